// `check` and `test` modes of the compiler's command line: diagnostics without an output file,
// and policy test files run through the real fence.wasm.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fenceWasm } from "../../tests/evaluator/wasm";
import { runCli } from "../cli";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agentsfence-policytest-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const wasmPath = path.join(tmp, "fence.wasm");
fs.writeFileSync(wasmPath, fenceWasm());

function run(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const status = runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { status, stdout, stderr };
}

function write(name: string, text: string): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, text);
  return file;
}

const POLICY = [
  "version: 1",
  "tools:",
  "  - {name: send_mail, capability: email.send, risk: send, args: {to: email}}",
  "defaults: {send: ask}",
  "intent:",
  "  verbs:",
  "    - {words: [mail], capabilities: [email.send], object: destination}",
  "rules:",
  "  - {id: named, effect: allow, capability: [email.send], when: {email: {in_intent: true}}}",
  "  - {id: unnamed, effect: block, capability: [email.send], reason: not_named, when: {email: {not: {in_intent: true}}}}",
  "",
].join("\n");

describe("check", () => {
  it("reports warnings as file:line:col lines, writes nothing and exits 0", () => {
    const file = write("shadowed.yaml", POLICY + "  - {id: later, effect: allow, capability: [email.send], when: {email: {in_intent: true}, args.to: {present: true}}}\n");
    const { status, stdout, stderr } = run("check", file);
    expect(status).toBe(0);
    expect(stderr).toBe(`${file}:11:5: warning: rule "later" can never decide: rule "named" (${file}:9:5) comes before it and holds whenever it does\n`);
    expect(stdout).toBe(`${file}: policy shadowed has no errors, 1 warning\n`);
  });

  it("exits 1 on errors and answers JSON under --json", () => {
    const file = write("broken.yaml", "version: 1\nrules:\n  - {id: a, effect: deny}\n");
    expect(run("check", file)).toEqual({ status: 1, stdout: "", stderr: `${file}:3:21: error: effect must be one of allow, block, ask, confine, warn (got "deny")\n` });
    const json = run("check", write("fine.yaml", POLICY), "--json");
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, policy: "fine", errors: [], warnings: [] });
    expect(JSON.parse(json.stdout).output).toBeUndefined();
  });

  it("refuses the options of other modes", () => {
    expect(run("check", "x.yaml", "-o", "y.afb").stderr).toMatch(/^unknown option -o for check\n/);
    expect(run("test").stderr).toMatch(/^no test file given\n/);
  });
});

describe("test", () => {
  write("mail.yaml", POLICY);
  const cases = [
    "policy: mail.yaml",
    "cases:",
    "  - name: named",
    "    intent: mail bob@example.com",
    "    tool: send_mail",
    "    args: {to: bob@example.com}",
    "    expect: {kind: allow, rule: named}",
    "  - name: from content",
    "    intent: [mail bob@example.com, and also him]",
    "    tool: send_mail",
    "    args: {to: eve@attacker.example}",
    "    expect: {kind: block, reason: not_named, message_contains: eve@attacker.example}",
    "",
  ].join("\n");

  it("runs every case through fence.wasm and prints a summary line", () => {
    const file = write("mail.test.yaml", cases);
    expect(run("test", file, "--wasm", wasmPath)).toEqual({ status: 0, stdout: "ok: 2 passed, 0 failed\n", stderr: "" });
  });

  it("names each failing case at its line, with what differed and the decision, and exits 1", () => {
    const file = write("wrong.test.yaml", cases.replace("{kind: allow, rule: named}", "{kind: block, rule: unnamed}"));
    const { status, stdout } = run("test", file, "--wasm", wasmPath);
    expect(status).toBe(1);
    expect(stdout.split("\n")).toEqual([
      `${file}:3:5: FAIL named`,
      '    kind: expected "block", got "allow"',
      '    rule: expected "unnamed", got "named"',
      expect.stringMatching(/^ {4}decision: allow \[rule_allow\] by named: AgentsFence allowed send_mail/),
      "FAILED: 1 passed, 1 failed",
      "",
    ]);
  });

  it("tests another policy with --policy, and a compiled .afb too", () => {
    const file = write("mail2.test.yaml", cases);
    const other = write("other.yaml", POLICY.replace("reason: not_named", "reason: stranger"));
    const result = run("test", file, "--wasm", wasmPath, "--policy", other);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('reason: expected "not_named", got "stranger"');
    const afb = path.join(tmp, "mail.afb");
    expect(run(path.join(tmp, "mail.yaml"), "-o", afb).status).toBe(0);
    expect(run("test", file, "--wasm", wasmPath, "--policy", afb).stdout).toBe("ok: 2 passed, 0 failed\n");
  });

  it("says what a test file holds when given a bare list of cases, or nothing", () => {
    const bare = write("bare.test.yaml", "- name: x\n  tool: read_file\n  args: {path: a}\n  expect: {kind: allow}\n");
    const { status, stderr } = run("test", bare, "--wasm", wasmPath);
    expect(status).toBe(1);
    expect(stderr).toBe(`${bare}:1:1: error: a test file must be a mapping (got a list): it holds policy: (the file it tests) `
      + "and cases: (a list like this one) (docs/policy-tests.md)\n");
    const empty = write("empty.test.yaml", "");
    expect(run("test", empty, "--wasm", wasmPath).stderr).toBe(
      `${empty}:1:1: error: the file is empty: a test file needs policy: (the file it tests) and cases: (docs/policy-tests.md)\n`);
  });

  it("reports a malformed test file, or a policy that does not compile, at file:line:col", () => {
    const bad = write("bad.test.yaml", "policy: mail.yaml\ncases:\n  - name: x\n    tool: send_mail\n    args: {}\n    expect: {kind: deny}\n    extra: 1\n");
    const { status, stdout, stderr } = run("test", bad, "--wasm", wasmPath);
    expect(status).toBe(1);
    expect(stderr).toBe([
      `${bad}:6:20: error: expect.kind must be one of allow, block, ask, confine (got "deny")`,
      `${bad}:7:5: error: unknown key "extra" (expected one of name, intent, tool, args, expect, outcome, steps)`,
      "",
    ].join("\n"));
    expect(stdout).toBe("FAILED: 0 passed, 0 failed, 1 file with errors\n");
    const broken = write("broken-policy.test.yaml", cases.replace("mail.yaml", "broken.yaml"));
    write("broken.yaml", "version: 1\nrules:\n  - {id: a, effect: deny}\n");
    const result = run("test", broken, "--wasm", wasmPath);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${broken}:1:9: error: the policy ${path.join(tmp, "broken.yaml")} does not compile`);
    expect(result.stderr).toContain('broken.yaml:3:21: error: effect must be one of allow, block, ask, confine, warn (got "deny")');
  });

  it("says where the evaluator should be when it is missing", () => {
    const result = run("test", path.join(tmp, "mail.test.yaml"), "--wasm", path.join(tmp, "none.wasm"));
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error: cannot read the evaluator .*none\.wasm \(give its path with --wasm\)/);
  });

  it("passes on the shipped example for the default policy", () => {
    const { status, stdout } = run("test", "policies/tests/defaults.test.yaml", "--wasm", wasmPath);
    expect(stdout).toMatch(/^ok: \d+ passed, 0 failed\n$/);
    expect(status).toBe(0);
  });
});

describe("test: steps in one session", () => {
  // "also" says a later message adds its recipient: without it, a new recipient replaces the earlier.
  write("budget.yaml", POLICY.replace("intent:\n", "intent:\n  grammar: {additive: [also]}\n") +
    "budgets:\n  - {id: one-mail, capability: [email.send], limit: 1}\n");
  const steps = [
    "policy: budget.yaml",
    "cases:",
    "  - name: one mail per session, and a call that never ran gives its unit back",
    "    steps:",
    "      - intent: mail bob@example.com",
    "        tool: send_mail",
    "        args: {to: bob@example.com}",
    "        expect: {kind: allow, rule: named, witness: [bob@example.com]}",
    "        outcome: cancelled",
    "      - tool: send_mail",
    "        args: {to: bob@example.com}",
    "        expect: {kind: allow}",
    "      - tool: send_mail",
    "        args: {to: bob@example.com}",
    "        expect: {kind: block, reason: budget_exhausted, rule: one-mail, message_contains: one-mail}",
    "  - name: a later message names another recipient",
    "    steps:",
    "      - intent: mail bob@example.com",
    "        tool: send_mail",
    "        args: {to: carol@example.com}",
    "        expect: {kind: block, reason: not_named, witness: [carol@example.com]}",
    "      - intent: also mail carol@example.com",
    "      - tool: send_mail",
    "        args: {to: carol@example.com, cc: bob@example.com}",
    "        expect: {kind: allow, rule: named, witness: [bob@example.com, carol@example.com]}",
    "",
  ].join("\n");

  it("carries budgets and amendments from step to step and exits 0 when every case holds", () => {
    const file = write("steps.test.yaml", steps);
    expect(run("test", file, "--wasm", wasmPath)).toEqual({ status: 0, stdout: "ok: 2 passed, 0 failed\n", stderr: "" });
  });

  it("names the failing step at its line, with what differed, and exits 1", () => {
    const file = write(
      "steps-wrong.test.yaml",
      steps.replace("outcome: cancelled", "outcome: ran").replace("witness: [carol@example.com]}\n      - intent", "witness: [bob@example.com]}\n      - intent"),
    );
    const { status, stdout } = run("test", file, "--wasm", wasmPath);
    expect(status).toBe(1);
    expect(stdout.split("\n")).toEqual([
      `${file}:10:9: FAIL one mail per session, and a call that never ran gives its unit back (step 2 of 3)`,
      '    kind: expected "allow", got "block"',
      expect.stringMatching(/^ {4}decision: block \[budget_exhausted\] by one-mail: AgentsFence blocked send_mail: .*one-mail allows 1 call/),
      `${file}:18:9: FAIL a later message names another recipient (step 1 of 3)`,
      '    witness: expected ["bob@example.com"], got ["carol@example.com"]',
      expect.stringMatching(/^ {4}decision: block \[not_named\] by unnamed: /),
      "FAILED: 0 passed, 2 failed",
      "",
    ]);
  });

  it.each([
    ["ran", "block"],
    ["failed", "block"],
    ["blocked", "allow"],
    ["cancelled", "allow"],
  ])("settles a call that %s so that the next one is %s", (outcome, next) => {
    const file = write(
      `outcome-${outcome}.test.yaml`,
      [
        "policy: budget.yaml",
        "cases:",
        "  - name: settled",
        "    steps:",
        "      - {intent: mail bob@example.com, tool: send_mail, args: {to: bob@example.com}, expect: {kind: allow}, outcome: " + outcome + "}",
        "      - {tool: send_mail, args: {to: bob@example.com}, expect: {kind: " + next + "}}",
        "",
      ].join("\n"),
    );
    expect(run("test", file, "--wasm", wasmPath)).toEqual({ status: 0, stdout: "ok: 1 passed, 0 failed\n", stderr: "" });
  });

  it("reports steps that are not a message or a call, in file order", () => {
    const bad = write(
      "bad-steps.test.yaml",
      [
        "policy: budget.yaml",
        "cases:",
        "  - name: both",
        "    tool: send_mail",
        "    steps: [{intent: hi}]",
        "  - name: half a call",
        "    tool: send_mail",
        "    args: {}",
        "  - name: steps",
        "    steps:",
        "      - {}",
        "      - {tool: send_mail, args: {}, expect: {kind: block}, outcome: ran}",
        "      - {intent: hi, outcome: ran}",
        "",
      ].join("\n"),
    );
    const { status, stdout, stderr } = run("test", bad, "--wasm", wasmPath);
    expect(status).toBe(1);
    expect(stderr.split("\n")).toEqual([
      `${bad}:4:11: error: tool: a case holds steps or one call, not both: move it into a step`,
      `${bad}:5:12: error: steps: none is a call, so the case tests nothing`,
      `${bad}:6:5: error: cases[1]: a call needs tool, args and expect (missing expect)`,
      `${bad}:11:9: error: steps[0]: a step needs intent (a user message), a call (tool, args, expect), or both`,
      `${bad}:12:69: error: outcome: only a call the fence lets through has one, and this one expects block`,
      `${bad}:13:31: error: outcome: only a call has one`,
      "",
    ]);
    expect(stdout).toBe("FAILED: 0 passed, 0 failed, 1 file with errors\n");
  });
});
