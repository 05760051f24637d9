// A TOOLS entry's own choices (docs/bytecode.md §3.3, TOOL_FLAGS): the arguments its roles leave
// out are read as a tool nobody mapped of a class with the same flags reads them, and an entry
// without flags reads them by their shape only.
import { beforeEach, describe, expect, test } from "vitest";
import { SUBJ_OBJECT, SUBJ_PATH } from "../../bytecode/format";
import { compileYaml } from "./bytecode";
import { type Fence, loadFence } from "../../host-js/host";
import { fenceWasm } from "./wasm";

const POLICY = `
version: 1
name: tool-choices
defaults: {"*": allow}
tools:
  - mcp: {server: bank, tool: pay}
    capability: money.move
    risk: destructive
    choices: [unread]
    args: {to: recipient, amount: amount}
  - mcp: {server: bank, tool: pay_plain}
    capability: money.move
    risk: destructive
    args: {to: recipient, amount: amount}
  - mcp: {server: mail, tool: send}
    capability: message.send
    risk: send
    choices: [unread]
    content: [object]
    args: {to: email, body: text}
classify:
  arg_roles: {memo: text, account: object, id: object}
  exposure:
    - setting: role
      levels:
        - {args: {role: [reader]}}
        - {args: {role: [writer]}, words: ["edit access"]}
rules:
  - id: unasked
    effect: ask
    when:
      object: {glob: ["* (not chosen by the request)"]}
`;

const wasm = fenceWasm();
const policy = compileYaml(POLICY);
let fence: Fence;

beforeEach(() => {
  fence = loadFence(wasm);
  expect(fence.load(policy).ok).toBe(true);
  expect(fence.configure("/home/u", "/home/u/work").ok).toBe(true);
});

const targets = (tool: string, args: Record<string, unknown>, subject = SUBJ_OBJECT) => {
  const h = fence.openSession();
  expect(fence.intent(h, "Pay ana 40").ok).toBe(true);
  return fence.decide(h, tool, args).targets.filter(([s]) => s === subject).map(([, v]) => v);
};

describe("a tool entry's choices", () => {
  test("an argument no role reads is a choice: a string, a number, a flag set true", () => {
    expect(targets("mcp__bank__pay", { to: "ana", amount: 40, recurring: "monthly" })).toEqual(["monthly"]);
    expect(targets("mcp__bank__pay", { to: "ana", amount: 40, tip: 450 })).toEqual(["450"]);
    expect(targets("mcp__bank__pay", { to: "ana", amount: 40, express: true })).toEqual(["express"]);
    expect(targets("mcp__bank__pay", { to: "ana", amount: 40, express: false, note: null })).toEqual([]);
  });

  test("an argument takes the role a word of its name has: an object, or content", () => {
    expect(targets("mcp__bank__pay", { to: "ana", amount: 40, from_account: "ACC-7" })).toEqual(["acc-7"]);
    expect(targets("mcp__bank__pay", { to: "ana", amount: 40, memo: "for the tickets" })).toEqual([]);
  });

  test("an entry without choices reads what its roles leave out by its shape only", () => {
    expect(targets("mcp__bank__pay_plain", { to: "ana", amount: 40, recurring: "monthly", tip: 450 })).toEqual([]);
    expect(targets("mcp__bank__pay_plain", { to: "ana", amount: 40, proof: "/home/u/id.png" }, SUBJ_PATH)).toEqual(["/home/u/id.png"]);
  });

  test("content: [object] makes an object content; a choice stays a choice", () => {
    expect(targets("mcp__mail__send", { to: "a@x.example", body: "hi", thread_id: "T-9" })).toEqual([]);
    expect(targets("mcp__mail__send", { to: "a@x.example", body: "hi", priority: "urgent" })).toEqual(["urgent"]);
  });

  test("a setting that widens exposure is read as its level, not as a choice", () => {
    expect(targets("mcp__mail__send", { to: "a@x.example", role: "reader" })).toEqual([]);
    expect(targets("mcp__mail__send", { to: "a@x.example", role: "writer" })).toEqual(["role=writer (not chosen by the request)"]);
  });
});
