// The compiler as a command (the `agentsfence` Python command runs it for compile, check and
// test). Exit status: 0 compiled / no errors / every case passed; 1 the policy has errors, the
// output cannot be written, or a case failed; 2 the command line is wrong.
import * as fs from "node:fs";
import * as path from "node:path";
import { compilePolicy, type Diagnostic } from "./index";
import { moduleDir } from "./load";
import { runPolicyTests, type TestFileResult } from "./policytest";

export const USAGE = [
  "usage: agentsfence-compile FILE... -o OUT.afb [--defaults PATH] [--json]",
  "       agentsfence-compile check FILE... [--defaults PATH] [--json] [--strict]",
  "       agentsfence-compile test TESTFILE... [--policy FILE] [--wasm PATH] [--defaults PATH]",
].join("\n");

export interface CliOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

type Mode = "compile" | "check" | "test";

interface CliArgs {
  mode: Mode;
  files: string[];
  output?: string;
  defaultsPath?: string;
  policy?: string;
  wasm?: string;
  json: boolean;
  /** check: warnings fail the check too. */
  strict: boolean;
}

const processOutput: CliOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

export function runCli(argv: string[], out: CliOutput = processOutput): number {
  const args = parseArgs(argv);
  if (typeof args === "string") {
    out.stderr(`${args}\n${USAGE}\n`);
    return 2;
  }
  if (args.mode === "test") return runTests(args, out);
  const result = compilePolicy(args.files.map((file) => ({ path: file })), { defaultsPath: args.defaultsPath });
  let writeError: string | undefined;
  if (result.ok && args.output !== undefined) {
    try {
      fs.writeFileSync(args.output, result.bytes);
    } catch (e) {
      writeError = `cannot write ${args.output}: ${(e as Error).message}`;
    }
  }
  const errors = result.ok ? [] : result.errors;
  const ok = result.ok && writeError === undefined && !(args.strict && result.warnings.length > 0);
  if (args.json) {
    const report = {
      ok,
      ...(result.ok && { ...(args.output !== undefined && { output: args.output }), size: result.bytes.length, hash: result.hash, policy: result.ir.name }),
      errors,
      warnings: result.warnings,
      ...(writeError && { writeError }),
    };
    out.stdout(JSON.stringify(report) + "\n");
  } else {
    // In file order, as an editor lists them.
    const all = [...result.warnings.map((d) => ({ d, severity: "warning" })), ...errors.map((d) => ({ d, severity: "error" }))];
    for (const { d, severity } of all.sort((a, b) => compareAt(a.d, b.d))) out.stderr(line(d, severity));
    if (writeError) out.stderr(`error: ${writeError}\n`);
    if (ok && args.output !== undefined) {
      out.stdout(`${args.output}: ${result.bytes.length} bytes, policy ${result.ir.name}, sha256 ${result.hash}\n`);
    } else if (result.ok && writeError === undefined) {
      const count = result.warnings.length;
      const strict = !ok ? " (--strict: warnings fail the check)" : "";
      out.stdout(`${args.files.join(" ")}: policy ${result.ir.name} has no errors, ${count} warning${count === 1 ? "" : "s"}${strict}\n`);
    }
  }
  return ok ? 0 : 1;
}

function runTests(args: CliArgs, out: CliOutput): number {
  const wasmPath = args.wasm ?? path.join(moduleDir(), "fence.wasm");
  let wasm: Uint8Array;
  try {
    wasm = new Uint8Array(fs.readFileSync(wasmPath));
  } catch (e) {
    out.stderr(`error: cannot read the evaluator ${wasmPath} (give its path with --wasm): ${(e as Error).message}\n`);
    return 1;
  }
  let passed = 0;
  let failed = 0;
  let broken = 0;
  for (const file of args.files) {
    const result = runPolicyTests(file, { wasm, policy: args.policy, defaultsPath: args.defaultsPath });
    report(result, out);
    if (result.errors.length > 0) broken++;
    for (const c of result.cases) c.problems.length === 0 ? passed++ : failed++;
  }
  const unusable = broken > 0 ? `, ${broken} file${broken === 1 ? "" : "s"} with errors` : "";
  out.stdout(`${failed === 0 && broken === 0 ? "ok" : "FAILED"}: ${passed} passed, ${failed} failed${unusable}\n`);
  return failed === 0 && broken === 0 ? 0 : 1;
}

function report(result: TestFileResult, out: CliOutput): void {
  for (const w of result.warnings) out.stderr(line(w, "warning"));
  for (const e of result.errors) out.stderr(line(e, "error"));
  for (const c of result.cases) {
    if (c.problems.length === 0) continue;
    const step = c.step ? ` (step ${c.step.number} of ${c.step.of})` : "";
    out.stdout(`${c.at.file}:${c.at.line}:${c.at.col}: FAIL ${c.name}${step}\n`);
    for (const problem of c.problems) out.stdout(`    ${problem}\n`);
    if (c.decision === undefined) continue;
    const { kind, reason, rule, message } = c.decision;
    out.stdout(`    decision: ${kind} [${reason}]${rule ? ` by ${rule}` : ""}: ${message}\n`);
  }
}

function compareAt(a: Diagnostic, b: Diagnostic): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col;
}

function line(d: Diagnostic, severity: string): string {
  return `${d.file}:${d.line}:${d.col}: ${severity}: ${d.message}\n`;
}

const VALUE_OPTIONS: Record<string, { key: "output" | "defaultsPath" | "policy" | "wasm"; modes: Mode[] }> = {
  "-o": { key: "output", modes: ["compile"] },
  "--output": { key: "output", modes: ["compile"] },
  "--defaults": { key: "defaultsPath", modes: ["compile", "check", "test"] },
  "--policy": { key: "policy", modes: ["test"] },
  "--wasm": { key: "wasm", modes: ["test"] },
};

// The parsed arguments, or what is wrong with them.
function parseArgs(argv: string[]): CliArgs | string {
  const mode: Mode = argv[0] === "check" || argv[0] === "test" ? argv[0] : "compile";
  const args: CliArgs = { mode, files: [], json: false, strict: false };
  for (let i = mode === "compile" ? 0 : 1; i < argv.length; i++) {
    const arg = argv[i];
    const option = VALUE_OPTIONS[arg];
    if (option !== undefined && option.modes.includes(mode)) {
      const value = argv[++i];
      if (value === undefined) return `${arg} needs a value`;
      args[option.key] = value;
    } else if (arg === "--json" && mode !== "test") {
      args.json = true;
    } else if (arg === "--strict" && mode === "check") {
      args.strict = true;
    } else if (arg.startsWith("-") && arg !== "-") {
      return `unknown option ${arg}${mode === "compile" ? "" : ` for ${mode}`}`;
    } else {
      args.files.push(arg);
    }
  }
  if (args.files.length === 0) return mode === "test" ? "no test file given" : "no policy file given";
  if (mode === "compile" && args.output === undefined) return "no output file given (-o OUT.afb)";
  return args;
}
