// `agentsfence-compile FILE... -o OUT.afb [--defaults PATH] [--json]`: the compiler as a
// command. Exit status: 0 compiled, 1 the policy has errors (or the output cannot be
// written), 2 the command line is wrong.
import * as fs from "node:fs";
import { compilePolicy, type Diagnostic } from "./index";

export const USAGE = "usage: agentsfence-compile FILE... -o OUT.afb [--defaults PATH] [--json]";

export interface CliOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

interface CliArgs {
  files: string[];
  output: string;
  defaultsPath?: string;
  json: boolean;
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
  const result = compilePolicy(args.files.map((path) => ({ path })), { defaultsPath: args.defaultsPath });
  let writeError: string | undefined;
  if (result.ok) {
    try {
      fs.writeFileSync(args.output, result.bytes);
    } catch (e) {
      writeError = `cannot write ${args.output}: ${(e as Error).message}`;
    }
  }
  const errors = result.ok ? [] : result.errors;
  const ok = result.ok && writeError === undefined;
  if (args.json) {
    const report = {
      ok,
      ...(result.ok && { output: args.output, size: result.bytes.length, hash: result.hash, policy: result.ir.name }),
      errors,
      warnings: result.warnings,
      ...(writeError && { writeError }),
    };
    out.stdout(JSON.stringify(report) + "\n");
  } else {
    for (const w of result.warnings) out.stderr(line(w, "warning"));
    for (const e of errors) out.stderr(line(e, "error"));
    if (writeError) out.stderr(`error: ${writeError}\n`);
    if (ok) out.stdout(`${args.output}: ${result.bytes.length} bytes, policy ${result.ir.name}, sha256 ${result.hash}\n`);
  }
  return ok ? 0 : 1;
}

function line(d: Diagnostic, severity: string): string {
  return `${d.file}:${d.line}:${d.col}: ${severity}: ${d.message}\n`;
}

// The parsed arguments, or what is wrong with them.
function parseArgs(argv: string[]): CliArgs | string {
  const files: string[] = [];
  let output: string | undefined;
  let defaultsPath: string | undefined;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "-o" || arg === "--output" || arg === "--defaults") {
      const value = argv[++i];
      if (value === undefined) return `${arg} needs a value`;
      if (arg === "--defaults") defaultsPath = value;
      else output = value;
    } else if (arg === "--json") {
      json = true;
    } else if (arg.startsWith("-") && arg !== "-") {
      return `unknown option ${arg}`;
    } else {
      files.push(arg);
    }
  }
  if (files.length === 0) return "no policy file given";
  if (output === undefined) return "no output file given (-o OUT.afb)";
  return { files, output, defaultsPath, json };
}
