// Reads the input files and everything they extend, parses and checks each one, and
// returns them in merge order (docs/policy.md: extended files first, the extending last).
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { checkFile, type CheckedFile, type Findings } from "./check";
import { diagnostic, type SourcePos } from "./diagnostic";
import { parseYaml } from "./parse";

export interface PolicyInput {
  path: string;
  /** The file's text; read from disk when absent. */
  text?: string;
}

export interface LoadOptions {
  /** The shipped policy that `extends: [defaults]` names. */
  defaultsPath?: string;
}

// The directory of this module: dist/ in the bundle, compiler/ when run from source.
export function moduleDir(): string {
  return typeof __dirname === "string" ? __dirname : path.dirname(fileURLToPath(import.meta.url));
}

/** `defaults`: the option, else next to the running bundle, else the repository's policies/. */
function findDefaults(opts: LoadOptions): string | undefined {
  if (opts.defaultsPath !== undefined) return path.resolve(opts.defaultsPath);
  const candidates = [path.join(moduleDir(), "defaults.yaml"), path.join(moduleDir(), "..", "policies", "defaults.yaml")];
  return candidates.find(isFile);
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

// How a file found through extends is named in diagnostics and rule sources.
function displayPath(abs: string): string {
  const relative = path.relative(process.cwd(), abs);
  return relative.startsWith("..") || path.isAbsolute(relative) ? abs : relative;
}

export function loadPolicies(inputs: PolicyInput[], opts: LoadOptions): Findings & { files: CheckedFile[] } {
  const given = new Map<string, string>();
  for (const input of inputs) if (input.text !== undefined) given.set(path.resolve(input.path), input.text);
  const exists = (abs: string) => given.has(abs) || isFile(abs);
  const findings: Findings = { errors: [], warnings: [] };
  const files: CheckedFile[] = [];
  const done = new Set<string>();
  const visiting: string[] = [];

  // Depth first, each file once, after everything it extends.
  const visit = (abs: string, display: string, from?: SourcePos): void => {
    if (done.has(abs)) return;
    if (visiting.includes(abs)) {
      const cycle = [...visiting.slice(visiting.indexOf(abs)), abs].map(displayPath).join(" -> ");
      findings.errors.push(diagnostic(from!, `extends cycle: ${cycle}`));
      return;
    }
    let text = given.get(abs);
    if (text === undefined) {
      try {
        text = fs.readFileSync(abs, "utf8");
      } catch (e) {
        const at = from ?? { file: display, line: 1, col: 1 };
        findings.errors.push(diagnostic(at, `cannot read ${display}: ${(e as Error).message}`));
        done.add(abs);
        return;
      }
    }
    const result = checkFile(parseYaml(display, text), abs, exists);
    findings.errors.push(...result.errors);
    findings.warnings.push(...result.warnings);
    const checked = result.checked;
    if (!checked) {
      done.add(abs);
      return;
    }
    visiting.push(abs);
    (checked.policy.extends ?? []).forEach((entry, i) => {
      const at = checked.locate(["extends", i]);
      if (entry === "defaults") {
        const defaults = findDefaults(opts);
        if (defaults && isFile(defaults)) visit(defaults, displayPath(defaults), at);
        else {
          const where = defaults ? ` at ${defaults}` : "";
          findings.errors.push(diagnostic(at, `extends defaults: the shipped policy was not found${where} (give its path with --defaults)`));
        }
        return;
      }
      const target = path.resolve(path.dirname(abs), entry);
      const relative = !path.isAbsolute(entry) && !path.isAbsolute(display);
      visit(target, relative ? path.join(path.dirname(display), entry) : target, at); // checkFile has reported a missing one
    });
    visiting.pop();
    done.add(abs);
    files.push(checked);
  };

  for (const input of inputs) visit(path.resolve(input.path), input.path);
  return { ...findings, files };
}
