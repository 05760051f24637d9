// `agentsfence test`: runs policy test files (compiler/testschema.ts) against the compiled
// policy through fence.wasm, the evaluator the hosts load, so a case passes only if the real
// decision matches. A case's steps share one session, and the runner settles each reservation
// as the host would, so budgets and amended intents carry from step to step.
import * as fs from "node:fs";
import * as path from "node:path";
import { loadFence, type Decision, type Fence, type Status } from "../host-js/host";
import { issueDiagnostics } from "./check";
import { diagnostic, type Diagnostic, type SourcePos } from "./diagnostic";
import { compilePolicy } from "./index";
import { parseYaml, type ParsedFile } from "./parse";
import { DEFAULT_ENV, PolicyTestFile, type Outcome, type Step, type TestCase } from "./testschema";

export interface CaseResult {
  name: string;
  /** Where the case starts; where its failing step is when it failed. */
  at: SourcePos;
  /** The failing step, counted from 1, of a case written as steps. */
  step?: { number: number; of: number };
  /** Why the case failed; empty when it passed. */
  problems: string[];
  /** The last call's decision, or the failing step's; none when that step decided no call. */
  decision?: Decision;
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
const SPENDS: Record<Outcome, boolean> = { ran: true, failed: true, blocked: false, cancelled: false };

const TEST_FILE = {
  name: "a test file",
  empty: "a test file needs policy: (the file it tests) and cases: (docs/policy-tests.md)",
  notMapping: "it holds policy: (the file it tests) and cases: (a list like this one) (docs/policy-tests.md)",
};

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
    const errors = checked.error.issues.flatMap((issue) => issueDiagnostics(issue, parsed, PolicyTestFile, TEST_FILE));
    // In file order, as an editor lists them.
    result.errors.push(...errors.sort((a, b) => a.line - b.line || a.col - b.col));
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
      result.cases.push(runCase(fence, session, testCase, ["cases", i], parsed));
    } finally {
      fence.closeSession(session);
    }
  });
  return result;
}

// Runs the steps in order and stops at the first that fails: later ones would start from a
// state the case did not mean.
function runCase(fence: Fence, session: number, testCase: TestCase, at: Array<string | number>, parsed: ParsedFile): CaseResult {
  const steps: Step[] = testCase.steps ?? [testCase];
  let last: Decision | undefined;
  for (const [j, step] of steps.entries()) {
    const problems: string[] = [];
    let decision: Decision | undefined;
    for (const message of messagesOf(step)) {
      const bound = fence.intent(session, message);
      if (!bound.ok) problems.push(`the intent could not be bound: ${bound.text}`);
    }
    if (problems.length === 0 && step.tool !== undefined && step.args !== undefined && step.expect !== undefined) {
      decision = fence.decide(session, step.tool, JSON.stringify(step.args));
      problems.push(...mismatches(step.expect, decision));
      if (decision.reservation !== 0) problems.push(...settle(fence, session, decision.reservation, step.outcome ?? "ran"));
      last = decision;
    }
    if (problems.length > 0) {
      const failed = testCase.steps === undefined ? { at } : { at: [...at, "steps", j], step: { number: j + 1, of: steps.length } };
      return { name: testCase.name, at: parsed.locate(failed.at), step: failed.step, problems, decision };
    }
  }
  return { name: testCase.name, at: parsed.locate(at), problems: [], decision: last };
}

// What the host does once the call it let through ran or did not.
function settle(fence: Fence, session: number, reservation: number, outcome: Outcome): string[] {
  const spend = SPENDS[outcome];
  const settled: Status = spend ? fence.commit(session, reservation) : fence.release(session, reservation);
  return settled.ok ? [] : [`the evaluator could not ${spend ? "commit" : "release"} reservation ${reservation}: ${settled.text}`];
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

function messagesOf(step: Step): string[] {
  if (step.intent === undefined) return [];
  return typeof step.intent === "string" ? [step.intent] : step.intent;
}

function mismatches(expect: NonNullable<Step["expect"]>, decision: Decision): string[] {
  const problems: string[] = [];
  for (const field of CHECKED_FIELDS) {
    const expected = expect[field];
    if (expected !== undefined && decision[field] !== expected) {
      problems.push(`${field}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(decision[field])}`);
    }
  }
  const fragment = expect.message_contains;
  if (fragment !== undefined && !decision.message.includes(fragment)) {
    problems.push(`message: expected it to contain ${JSON.stringify(fragment)}`);
  }
  if (expect.warned !== undefined) {
    const got = [...decision.warned].sort();
    const wanted = [...expect.warned].sort();
    if (got.join("\n") !== wanted.join("\n")) problems.push(`warned: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(got)}`);
  }
  if (expect.witness !== undefined) {
    // Order-insensitive: the record lists values in code order, which a policy author does not see.
    const got = decision.witness.map(([, value]) => value).sort();
    const wanted = [...expect.witness].sort();
    if (got.length !== wanted.length || got.some((value, k) => value !== wanted[k])) {
      problems.push(`witness: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(got)}`);
    }
  }
  return problems;
}
