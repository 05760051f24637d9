// `agentsfence test`: runs policy test files (compiler/testschema.ts) against the compiled
// policy through fence.wasm, the evaluator the hosts load, so a case passes only if the real
// decision matches.
import * as fs from "node:fs";
import * as path from "node:path";
import { loadFence, type Decision } from "../assembly/test/host";
import { issueDiagnostics } from "./check";
import { diagnostic, type Diagnostic, type SourcePos } from "./diagnostic";
import { compilePolicy } from "./index";
import { parseYaml } from "./parse";
import { DEFAULT_ENV, PolicyTestFile, type TestCase } from "./testschema";

export interface CaseResult {
  name: string;
  at: SourcePos;
  /** Why the case failed; empty when it passed. */
  problems: string[];
  decision: Decision;
}

export interface TestFileResult {
  file: string;
  /** The file, its policy or the evaluator could not be used: no case ran. */
  errors: Diagnostic[];
  warnings: Diagnostic[];
  cases: CaseResult[];
}

export interface TestOptions {
  /** fence.wasm's bytes. */
  wasm: Uint8Array;
  /** A policy (.yaml or .afb) to test instead of the one the file names. */
  policy?: string;
  defaultsPath?: string;
}

const CHECKED_FIELDS = ["kind", "reason", "rule", "capability", "risk"] as const;

export function runPolicyTests(file: string, opts: TestOptions): TestFileResult {
  const result: TestFileResult = { file, errors: [], warnings: [], cases: [] };
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    result.errors.push(diagnostic({ file, line: 1, col: 1 }, `cannot read ${file}: ${(e as Error).message}`));
    return result;
  }
  const parsed = parseYaml(file, text);
  result.errors.push(...parsed.errors);
  if (parsed.errors.length > 0) return result;
  const checked = PolicyTestFile.safeParse(parsed.value, { reportInput: true });
  if (!checked.success) {
    for (const issue of checked.error.issues) result.errors.push(...issueDiagnostics(issue, parsed, PolicyTestFile));
    return result;
  }
  const tests = checked.data;
  const named = path.isAbsolute(tests.policy) ? tests.policy : path.join(path.dirname(file), tests.policy);
  const policyPath = opts.policy ?? named;
  const policyAt = opts.policy === undefined ? parsed.locate(["policy"]) : { file, line: 1, col: 1 };
  const bytecode = policyBytes(policyPath, policyAt, opts, result);
  if (bytecode === undefined) return result;

  const fence = loadFence(opts.wasm);
  const loaded = fence.load(bytecode);
  if (!loaded.ok) {
    result.errors.push(diagnostic(policyAt, `fence.wasm rejected the policy ${policyPath}: ${loaded.text}`));
    return result;
  }
  const env = tests.env ?? DEFAULT_ENV;
  const configured = fence.configure(env.home, env.cwd);
  if (!configured.ok) {
    result.errors.push(diagnostic(parsed.locate(["env"]), `fence.wasm refused the environment: ${configured.text}`));
    return result;
  }
  tests.cases.forEach((testCase, i) => {
    const session = fence.openSession();
    try {
      const problems: string[] = [];
      for (const message of messagesOf(testCase)) {
        const bound = fence.intent(session, message);
        if (!bound.ok) problems.push(`the intent could not be bound: ${bound.text}`);
      }
      const decision = fence.decide(session, testCase.tool, JSON.stringify(testCase.args));
      problems.push(...mismatches(testCase, decision));
      result.cases.push({ name: testCase.name, at: parsed.locate(["cases", i]), problems, decision });
    } finally {
      fence.closeSession(session);
    }
  });
  return result;
}

function policyBytes(policyPath: string, at: SourcePos, opts: TestOptions, result: TestFileResult): Uint8Array | undefined {
  if (policyPath.endsWith(".afb")) {
    try {
      return new Uint8Array(fs.readFileSync(policyPath));
    } catch (e) {
      result.errors.push(diagnostic(at, `cannot read the policy ${policyPath}: ${(e as Error).message}`));
      return undefined;
    }
  }
  const compiled = compilePolicy([{ path: policyPath }], { defaultsPath: opts.defaultsPath });
  result.warnings.push(...compiled.warnings);
  if (!compiled.ok) {
    result.errors.push(diagnostic(at, `the policy ${policyPath} does not compile`), ...compiled.errors);
    return undefined;
  }
  return compiled.bytes;
}

function messagesOf(testCase: TestCase): string[] {
  if (testCase.intent === undefined) return [];
  return typeof testCase.intent === "string" ? [testCase.intent] : testCase.intent;
}

function mismatches(testCase: TestCase, decision: Decision): string[] {
  const problems: string[] = [];
  for (const field of CHECKED_FIELDS) {
    const expected = testCase.expect[field];
    if (expected !== undefined && decision[field] !== expected) {
      problems.push(`${field}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(decision[field])}`);
    }
  }
  const fragment = testCase.expect.message_contains;
  if (fragment !== undefined && !decision.message.includes(fragment)) {
    problems.push(`message: expected it to contain ${JSON.stringify(fragment)}`);
  }
  return problems;
}
