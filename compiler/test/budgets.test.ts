// Call budgets in the compiler: the schema's errors, ids shared with rules, the classes each
// budget counts, and the BUDGETS section as docs/bytecode.md §3.2 lays it out.
import { describe, expect, it } from "vitest";
import { compilePolicy, formatDiagnostic } from "../index";
import { compileText as compileWith, errorsOf as errorsWith } from "./compile";
import { readAfb } from "./reader";

const FILE = "policies/b.yaml";
const TOOLS = `version: 1
tools:
  - {name: send_email, capability: email.send, risk: send}
  - {name: post, capability: message.send, risk: send}
  - {name: read_file, capability: file.read, risk: read}
`;

const compileText = (text: string) => compileWith(text, FILE);
const errorsOf = (text: string) => errorsWith(text, FILE);

describe("budgets", () => {
  it("rejects a limit below 1, an unknown key and a bad id, at their positions", () => {
    expect(errorsOf(`${TOOLS}budgets:\n  - {id: one, capability: [email.send], limit: 0}\n`)).toEqual([
      "policies/b.yaml:7:48: limit must be at least 1 (got 0)",
    ]);
    expect(errorsOf(`${TOOLS}budgets:\n  - {id: one, per: task, limit: 1}\n`)).toEqual([
      'policies/b.yaml:7:15: unknown key "per" (expected one of id, capability, risk, limit, amount)',
    ]);
    expect(errorsOf(`${TOOLS}budgets:\n  - {id: One Email, limit: 1}\n`)).toEqual([
      'policies/b.yaml:7:10: id must be lower-case letters, digits, _ . - (like one-email) (got "One Email")',
    ]);
    expect(errorsOf(`${TOOLS}budgets:\n  - {id: one}\n`)).toEqual([
      "policies/b.yaml:7:5: a budget takes limit (calls) or amount (a cap on their sums), one of the two",
    ]);
    expect(errorsOf(`${TOOLS}budgets:\n  - {id: one, limit: 1, amount: 5}\n`)).toEqual([
      "policies/b.yaml:7:5: a budget takes limit (calls) or amount (a cap on their sums), one of the two",
    ]);
    expect(errorsOf(`${TOOLS}budgets:\n  - {id: one, amount: five euros}\n`)).toEqual([
      'policies/b.yaml:7:23: expected a sum above 0: a number like 500 or 12.5, optionally with a currency code ("500 EUR")',
    ]);
    expect(errorsOf(`${TOOLS}budgets:\n  - {id: one, amount: "0.00 EUR"}\n`)).toEqual([
      'policies/b.yaml:7:23: expected a sum above 0: a number like 500 or 12.5, optionally with a currency code ("500 EUR")',
    ]);
  });

  it("rejects an id that a rule or another budget already has, naming the first", () => {
    const text = `${TOOLS}rules:\n  - {id: mail, effect: allow}\nbudgets:\n  - {id: mail, limit: 1}\n  - {id: two, limit: 2}\n  - {id: two, limit: 3}\n`;
    expect(errorsOf(text)).toEqual([
      'policies/b.yaml:9:10: duplicate id "mail": a rule or budget already has it (first defined at policies/b.yaml:7:10)',
      'policies/b.yaml:11:10: duplicate id "two": a rule or budget already has it (first defined at policies/b.yaml:10:10)',
    ]);
  });

  it("warns about a budget that counts no class", () => {
    const result = compileText(`${TOOLS}budgets:\n  - {id: none, capability: [calendar.*], limit: 1}\n`);
    expect(result.ok && result.warnings.map(formatDiagnostic)).toEqual([
      'policies/b.yaml:7:5: budget "none" counts nothing: no tool class of this policy matches its capability and risk selectors',
      'policies/b.yaml:7:29: capability "calendar.*" matches no tool class of this policy',
    ]);
  });

  it("lowers selectors to classes and emits the BUDGETS section of §3.2", () => {
    const result = compileText(`${TOOLS}budgets:
  - {id: one-email, capability: ["email.*"], limit: 1}
  - {id: sends, risk: [send], limit: 5}
  - {id: anything, limit: 100}
  - {id: spend, capability: ["email.*"], amount: "EUR 250.50"}
`);
    if (!result.ok) throw new Error(result.errors.map(formatDiagnostic).join("\n"));
    const classOf = (capability: string) => result.ir.classes.findIndex((c) => c.capability === capability);
    expect(result.ir.budgets.map((b) => [b.id, b.limit, b.classes])).toEqual([
      ["one-email", 1, [classOf("email.send")]],
      ["sends", 5, [classOf("email.send"), classOf("message.send")].sort()],
      ["anything", 100, result.ir.classes.map((_, i) => i)],
      ["spend", 0, [classOf("email.send")]],
    ]);
    expect(result.ir.budgets.map((b) => b.amount)).toEqual([null, null, null, "250.5 EUR"]);
    const afb = readAfb(result.bytes);
    expect(afb.sections.map((s) => s.kind)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const { budgets, classes, members } = afb.budgets;
    const cap = (i: number) => (i === 0xffffffff ? null : afb.strings[i]);
    expect(budgets.map((b) => [afb.strings[b.id], b.limit, afb.strings[b.source], cap(b.amount)])).toEqual([
      ["one-email", 1, "policies/b.yaml:7:5", null],
      ["sends", 5, "policies/b.yaml:8:5", null],
      ["anything", 100, "policies/b.yaml:9:5", null],
      ["spend", 0, "policies/b.yaml:10:5", "250.5 EUR"],
    ]);
    expect(classes.length).toBe(afb.classes.length);
    const budgetsOf = (c: number) => members.slice(classes[c].start, classes[c].start + classes[c].count);
    expect(budgetsOf(classOf("email.send"))).toEqual([0, 1, 2, 3]);
    expect(budgetsOf(classOf("message.send"))).toEqual([1, 2]);
    expect(budgetsOf(classOf("file.read"))).toEqual([2]);
    expect(budgetsOf(0)).toEqual([2]);
  });

  it("concatenates budgets across extends, the base's first", () => {
    const result = compilePolicy([
      { path: "v/base.yaml", text: `${TOOLS}budgets:\n  - {id: base-one, limit: 1}\n` },
      { path: "v/user.yaml", text: "version: 1\nextends: [base.yaml]\nbudgets:\n  - {id: user-two, limit: 2}\n" },
    ]);
    expect(result.ok && result.ir.budgets.map((b) => b.id)).toEqual(["base-one", "user-two"]);
  });
});
