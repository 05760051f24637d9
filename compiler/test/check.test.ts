// Diagnostics: every error names file:line:col and what was expected there.
import { describe, expect, it } from "vitest";
import { compilePolicy, formatDiagnostic } from "../index";
import { compileText as compileWith, errorsOf as errorsWith } from "./compile";

const FILE = "policies/x.yaml";

const compileText = (text: string) => compileWith(text, FILE);
const errorsOf = (text: string) => errorsWith(text, FILE);

function warningsOf(text: string): string[] {
  const result = compileText(text);
  if (!result.ok) throw new Error(`expected the policy to compile: ${result.errors.map(formatDiagnostic).join("; ")}`);
  return result.warnings.map(formatDiagnostic);
}

describe("YAML and schema errors", () => {
  it("reports YAML syntax errors with their position", () => {
    expect(errorsOf("version: 1\nrules:\n  - id: a\n    effect: [allow\n")).toEqual([
      "policies/x.yaml:5:1: YAML syntax: Flow sequence in block collection must be sufficiently indented and end with a ]",
    ]);
    expect(errorsOf("version: 1\nversion: 1\n")).toEqual(["policies/x.yaml:2:1: YAML syntax: Map keys must be unique"]);
  });

  it("reports an empty file and a missing version", () => {
    expect(errorsOf("")).toEqual(["policies/x.yaml:1:1: the file is empty: a policy needs at least version: 1"]);
    expect(errorsOf("name: x\n")).toEqual(["policies/x.yaml:1:1: missing key version"]);
    expect(errorsOf("version: 1\nrules:\n  - effect: allow\n")).toEqual(["policies/x.yaml:3:5: missing key id"]);
  });

  it("reports a value of the wrong type", () => {
    expect(errorsOf("version: 1\nrules: {id: x}\n")).toEqual(["policies/x.yaml:2:8: rules must be a list (got a mapping)"]);
    expect(errorsOf("version: 1\nlimits: {max_sessions: 1.5}\n")).toEqual([
      "policies/x.yaml:2:24: limits.max_sessions must be an integer (got 1.5)",
    ]);
  });

  it("reports an unknown key at the key, listing the expected ones", () => {
    expect(errorsOf("version: 1\nrules:\n  - id: a\n    effect: allow\n    efect: block\n")).toEqual([
      'policies/x.yaml:5:5: unknown key "efect" (expected one of id, effect, capability, risk, tool, when, reason, message)',
    ]);
  });

  it("reports a bad effect with the allowed ones", () => {
    expect(errorsOf("version: 1\nrules:\n  - id: a\n    effect: deny\n")).toEqual([
      'policies/x.yaml:4:13: effect must be one of allow, block, ask, confine, warn (got "deny")',
    ]);
  });

  it("reports bad names, codes, bounds and unknown subjects", () => {
    const text = [
      "version: 2",
      "defaults: {Read: allow}",
      "tools:",
      "  - {name: x, capability: Email.Send, risk: send}",
      "rules:",
      "  - id: Bad Id",
      "    effect: ask",
      "    reason: Not-A-Code",
      "    capability: []",
      "    when: {nope: {equals: 1}}",
      "limits: {max_json_depth: 300}",
      "",
    ].join("\n");
    expect(errorsOf(text)).toEqual([
      "policies/x.yaml:1:10: version must be 1 (got 2)",
      'policies/x.yaml:2:12: invalid key "Read" in defaults: expected a risk class or "*"',
      'policies/x.yaml:4:27: capability must be a dotted lower-case name like email.send (got "Email.Send")',
      'policies/x.yaml:6:9: id must be lower-case letters, digits, _ . - (like no-credentials) (got "Bad Id")',
      'policies/x.yaml:8:13: reason must be a stable code of lower-case letters, digits and _ (got "Not-A-Code")',
      "policies/x.yaml:9:17: capability must have at least 1 item",
      'policies/x.yaml:10:12: invalid key "nope" in when: expected a subject: tool, email, domain, url, path, program, recipient, write, opaque, object, amount or args.NAME',
      "policies/x.yaml:11:26: limits.max_json_depth must be at most 256 (got 300)",
    ]);
  });

  it("reports constants of the wrong type inside lists", () => {
    const text = "version: 1\nrules:\n  - id: a\n    effect: ask\n    tool: [x, 3]\n    when: {path: {in: [/a, {b: 1}]}}\n";
    expect(errorsOf(text)).toEqual([
      "policies/x.yaml:5:15: tool[1] must be a string (got 3)",
      "policies/x.yaml:6:28: when.path.in[1] must be a string, a number or true/false (got a mapping)",
    ]);
  });
});

describe("semantic errors", () => {
  it("rejects a predicate on a subject it does not apply to", () => {
    const text = [
      "version: 1",
      "rules:",
      "  - id: a",
      "    effect: block",
      "    when:",
      '      email: {under: ["~/x"]}',
      "      path: {domain: [example.com]}",
      "      program: {in_intent: true}",
      "      args.to: {not: {under: [/x]}}",
      "",
    ].join("\n");
    expect(errorsOf(text)).toEqual([
      "policies/x.yaml:6:15: under does not apply to email (it takes equals, in, glob, prefix, domain, in_intent, in_derived, intent_any, present, not)",
      "policies/x.yaml:7:14: domain does not apply to path (it takes equals, in, glob, prefix, under, in_intent, in_derived, intent_any, present, not)",
      "policies/x.yaml:8:17: in_intent does not apply to program (it takes equals, in, glob, prefix, present, not)",
      "policies/x.yaml:9:23: under does not apply to args.to (it takes equals, in, glob, prefix, in_intent, in_derived, present, truthy, not)",
    ]);
  });

  it("rejects relative path constants and globs that cannot match a path", () => {
    const text = [
      "version: 1",
      "rules:",
      "  - id: a",
      "    effect: block",
      "    when:",
      '      path: {under: [.ssh, "~/../x", "$HOME/ok"], glob: ["*.env", "**/.env"], prefix: [tmp/]}',
      '      write: {under: [".", "./src/", "./a/../b", "./../x", "src"], in: ["./x"]}',
      "",
    ].join("\n");
    expect(errorsOf(text)).toEqual([
      'policies/x.yaml:6:22: path ".ssh" must be absolute, start with ~ (or $HOME), or start with ./ (the working directory)',
      'policies/x.yaml:6:28: path "~/../x" climbs above ~',
      'policies/x.yaml:6:58: path glob "*.env" can never match: paths are absolute, so it must start with /, ~ or **',
      'policies/x.yaml:6:88: path prefix "tmp/" must be absolute or start with ~ (or $HOME)',
      'policies/x.yaml:7:50: path "./../x" climbs above the working directory',
      'policies/x.yaml:7:60: path "src" must be absolute, start with ~ (or $HOME), or start with ./ (the working directory)',
      'policies/x.yaml:7:73: path "./x" must be absolute or start with ~ (or $HOME)',
    ]);
  });

  it("rejects constants that are not addresses or host names", () => {
    const text = [
      "version: 1",
      "rules:",
      "  - id: a",
      "    effect: block",
      "    when:",
      '      email: {equals: "not an address"}',
      '      url: {domain: ["http://example.com/"]}',
      "",
    ].join("\n");
    expect(errorsOf(text)).toEqual([
      'policies/x.yaml:6:23: "not an address" is not an e-mail address (expected one like name@example.com)',
      'policies/x.yaml:7:22: "http://example.com/" is not a host name (expected one like example.com; subdomains match too)',
    ]);
  });

  it("rejects empty predicates, also under not", () => {
    const text = "version: 1\nrules:\n  - id: a\n    effect: ask\n    when:\n      url: {}\n      email: {not: {}}\n";
    expect(errorsOf(text)).toEqual([
      "policies/x.yaml:6:12: url needs a predicate: one of equals, in, glob, prefix, domain, in_intent, in_derived, intent_any, present, not",
      "policies/x.yaml:7:20: email needs a predicate: one of equals, in, glob, prefix, domain, in_intent, in_derived, intent_any, present, not",
    ]);
  });

  it("rejects missing extends files, ill-formed tool entries and unknown placeholders", () => {
    const text = [
      "version: 1",
      "extends: [nothere.yaml]",
      "tools:",
      "  - name: x",
      "    mcp: {server: a, tool: b}",
      "    capability: email.send",
      "    risk: send",
      "  - {capability: a.b, risk: r}",
      "rules:",
      '  - {id: x, effect: ask, message: "{value} {oops}"}',
      "",
    ].join("\n");
    const errors = errorsOf(text);
    expect(errors).toHaveLength(4);
    expect(errors[0]).toMatch(/^policies\/x\.yaml:2:11: extends "nothere\.yaml": no such file \(.*policies\/nothere\.yaml\)$/);
    expect(errors.slice(1)).toEqual([
      "policies/x.yaml:5:5: a tool entry takes name or mcp, not both",
      "policies/x.yaml:8:5: a tool entry needs name or mcp",
      "policies/x.yaml:10:35: unknown placeholder {oops} in message (expected {tool}, {capability}, {risk}, {value}, {rule})",
    ]);
  });

  it("rejects duplicate rule ids across files, naming the first", () => {
    const result = compilePolicy([
      { path: "v/base.yaml", text: "version: 1\nrules:\n  - {id: same, effect: ask}\n" },
      { path: "v/user.yaml", text: "version: 1\nextends: [base.yaml]\nrules:\n  - id: same\n    effect: allow\n" },
    ]);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors.map(formatDiagnostic)).toEqual([
      'v/user.yaml:4:9: duplicate rule id "same" (first defined at v/base.yaml:3:10)',
    ]);
  });

  it("rejects an extends cycle at the extends entry that closes it", () => {
    const result = compilePolicy([{ path: "compiler/test/fixtures/cycle-a.yaml" }]);
    expect(result.ok ? [] : result.errors.map(formatDiagnostic)).toEqual([
      "compiler/test/fixtures/cycle-b.yaml:2:11: extends cycle: compiler/test/fixtures/cycle-a.yaml -> compiler/test/fixtures/cycle-b.yaml -> compiler/test/fixtures/cycle-a.yaml",
    ]);
  });

  it("rejects extends: [defaults] when the shipped policy is missing", () => {
    const result = compilePolicy([{ path: "v/x.yaml", text: "version: 1\nextends: [defaults]\n" }], { defaultsPath: "v/none.yaml" });
    expect(result.ok ? [] : result.errors.map(formatDiagnostic)).toEqual([
      expect.stringMatching(/^v\/x\.yaml:2:11: extends defaults: the shipped policy was not found at .*v\/none\.yaml \(give its path with --defaults\)$/),
    ]);
  });
});

describe("warnings", () => {
  it("warns about rules and intent verbs that match no class, and compiles", () => {
    const text = [
      "version: 1",
      "tools:",
      "  - {name: send_mail, capability: email.send, risk: send}",
      "rules:",
      "  - id: never",
      "    effect: ask",
      "    capability: [email.*]",
      "    risk: [read]",
      "  - id: wrong-tool",
      "    effect: ask",
      "    capability: [email.send]",
      "    tool: [some_other_tool]",
      "  - {id: fine, effect: ask, capability: [email.*]}",
      "intent:",
      "  verbs:",
      '    - {words: [x], capabilities: ["email.*", "zzz.*"]}',
      "",
    ].join("\n");
    expect(warningsOf(text)).toEqual([
      'policies/x.yaml:5:5: rule "never" can never apply: no tool class of this policy matches its capability, risk and tool selectors',
      'policies/x.yaml:9:5: rule "wrong-tool" can never apply: no tool class of this policy matches its capability, risk and tool selectors',
      'policies/x.yaml:16:46: intent capability "zzz.*" matches no capability of this policy',
      'policies/x.yaml:8:12: no tool class of this policy has the risk class "read" (risk classes: send)',
      "policies/x.yaml:12:12: no tool of Hermes 0.19.0 or of this policy is named \"some_other_tool\" (a tool of another plugin: map it under tools: to keep this warning away)",
    ]);
  });
});

describe("rules that can never decide", () => {
  const policy = (...rules: string[]) =>
    ["version: 1", "tools:", "  - {name: send_mail, capability: email.send, risk: send, args: {to: email}}",
      "  - {name: read_mail, capability: email.read, risk: read}", "rules:", ...rules, ""].join("\n");

  it("warns about a rule after an unconditional rule of the same classes", () => {
    expect(warningsOf(policy(
      "  - {id: all-mail, effect: ask, capability: [email.*]}",
      "  - {id: sends, effect: ask, capability: [email.send], when: {email: {in_intent: true}}}",
    ))).toEqual([
      'policies/x.yaml:7:5: rule "sends" can never decide: rule "all-mail" (policies/x.yaml:6:5) comes before it and holds whenever it does',
    ]);
  });

  it("knows that block rules run before allow rules, whatever the file order", () => {
    expect(warningsOf(policy(
      "  - {id: named, effect: allow, capability: [email.send], when: {email: {in: [a@x.example]}}}",
      "  - {id: no-x, effect: block, capability: [email.send], when: {email: {in: [a@x.example, b@x.example]}}}",
    ))).toEqual([
      'policies/x.yaml:6:5: rule "named" can never decide: rule "no-x" (policies/x.yaml:7:5) runs before it (block rules run before allow rules) and holds whenever it does',
    ]);
  });

  it("does not warn when the earlier rule is narrower, or covers only some classes", () => {
    expect(warningsOf(policy(
      "  - {id: one, effect: block, capability: [email.send], when: {email: {in: [a@x.example]}}}",
      "  - {id: two, effect: block, capability: [email.send], when: {email: {in: [a@x.example, b@x.example]}}}",
      "  - {id: sends, effect: ask, capability: [email.send]}",
      "  - {id: any-mail, effect: ask, capability: [email.*]}",
    ))).toEqual([]);
  });

  it("does not count an ANY test of an earlier block rule as holding when an allow rule's ALL test does not", () => {
    // allow reads every value (ALL), block any one (ANY): ALL implies ANY, not the reverse.
    expect(warningsOf(policy(
      "  - {id: ok, effect: allow, capability: [email.send], when: {email: {in_intent: true}}}",
      "  - {id: strict, effect: allow, capability: [email.send], when: {email: {in_intent: true}, args.to: {present: true}}}",
      "  - {id: any, effect: block, capability: [email.send], when: {email: {not: {in_intent: true}}}}",
    ))).toEqual([
      'policies/x.yaml:7:5: rule "strict" can never decide: rule "ok" (policies/x.yaml:6:5) comes before it and holds whenever it does',
    ]);
  });

  it("finds the first rule that holds among thousands on one class, whichever of its conditions matches", () => {
    const many = Array.from({ length: 3000 }, (_, i) =>
      `  - {id: r${i}, effect: ask, capability: [email.send], when: {email: {in: [u${i}@x.example]}}}`);
    expect(warningsOf(policy(
      ...many,
      "  - {id: wide, effect: ask, capability: [email.send], when: {email: {in: [u1@x.example, u2@x.example, v@x.example]}}}",
      // its value test is its second condition, and only "wide" holds all of its values
      "  - {id: later, effect: ask, capability: [email.send], when: {args.to: {present: true}, email: {in: [v@x.example, u2@x.example]}}}",
      // its first value is in r7's list, and r7 comes before "wide"
      "  - {id: seventh, effect: ask, capability: [email.send], when: {email: {in: [u7@x.example]}}}",
    ))).toEqual([
      'policies/x.yaml:3007:5: rule "later" can never decide: rule "wide" (policies/x.yaml:3006:5) comes before it and holds whenever it does',
      'policies/x.yaml:3008:5: rule "seventh" can never decide: rule "r7" (policies/x.yaml:13:5) comes before it and holds whenever it does',
    ]);
  });

  it("tries an earlier rule whose first condition is not a value test on every later rule", () => {
    expect(warningsOf(policy(
      "  - {id: named, effect: ask, capability: [email.send], when: {email: {in_intent: true}, args.to: {present: true}}}",
      "  - {id: others, effect: ask, capability: [email.send], when: {email: {not: {in: [a@x.example]}}}}",
      "  - {id: later, effect: ask, capability: [email.send], when: {args.to: {present: true}, email: {in_intent: true}}}",
      "  - {id: outside, effect: ask, capability: [email.send], when: {email: {not: {in: [a@x.example, b@x.example]}}}}",
    ))).toEqual([
      'policies/x.yaml:8:5: rule "later" can never decide: rule "named" (policies/x.yaml:6:5) comes before it and holds whenever it does',
      'policies/x.yaml:9:5: rule "outside" can never decide: rule "others" (policies/x.yaml:7:5) comes before it and holds whenever it does',
    ]);
  });

  it("warns about a rule whose conditions contradict each other", () => {
    expect(warningsOf(policy(
      "  - id: never",
      "    effect: block",
      "    capability: [email.send]",
      "    when: {args.to: {present: true}, email: {not: {present: true}}}",
      "  - id: both",
      "    effect: block",
      "    capability: [email.send]",
      "    when:",
      "      args.to: {present: true, not: {present: true}}",
    ))).toEqual([
      'policies/x.yaml:10:5: rule "both" can never apply: it asks for args.to to be both present and absent',
    ]);
  });
});
