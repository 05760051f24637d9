// Settings that widen exposure through fence.wasm (docs/bytecode.md §3.3, exposure): the levels
// a user's messages choose or rule out, kept per session and amended by later turns, and the
// OBJECT target a call's wide value makes.
import { beforeEach, describe, expect, test } from "vitest";
import { SUBJ_OBJECT } from "../../bytecode/format";
import { compileYaml } from "./bytecode";
import { type Fence, loadFence } from "../../host-js/host";
import { fenceWasm } from "./wasm";

const POLICY = `
version: 1
name: exposure
defaults: {"*": allow}
classify:
  verbs:
    - {words: [update], capability: data.write, risk: write, choices: [unread]}
  exposure:
    - setting: visibility
      levels:
        - {args: {private: [true], visibility: [private]}, words: [private]}
        - {args: {visibility: [internal]}, words: ["internal only"]}
        - {args: {private: [false], visibility: [public]}, words: [public, 公開]}
    - setting: role
      levels:
        - {args: {role: [reader]}, words: [read-only]}
        - {args: {role: [writer]}, words: ["edit access"]}
        - {args: {role: [owner]}, words: [owner]}
intent:
  negations: [not, "don't", nicht, ないで]
  negation_cancels: [forget]
  grammar:
    conjunction: [and, but]
rules:
  - id: ruled-out
    effect: block
    when:
      object: {glob: ["* (ruled out by the request)"]}
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

function session(...messages: string[]): number {
  const h = fence.openSession();
  for (const m of messages) expect(fence.intent(h, m).ok).toBe(true);
  return h;
}
const update = (h: number, args: Record<string, unknown>) => fence.decide(h, "mcp__gh__update_repo", args);
const objects = (d: { targets: Array<[number, string] | [number, string, true]> }) =>
  d.targets.filter(([s]) => s === SUBJ_OBJECT).map(([, v]) => v);

describe("exposure settings", () => {
  test("the narrowest level runs unstated; a wider one is not chosen", () => {
    const h = session("Update the description");
    expect(objects(update(h, { private: true }))).toEqual([]);
    const d = update(h, { private: false });
    expect(d).toMatchObject({ kind: "ask", rule: "unasked" });
    expect(objects(d)).toEqual(["private=false (not chosen by the request)"]);
    expect(update(h, { Visibility: "PUBLIC" })).toMatchObject({ kind: "ask", rule: "unasked" });
    // A value no level lists is no exposure setting: the choice it always was.
    expect(objects(update(h, { visibility: "secret" }))).toEqual(["secret"]);
  });

  test("a chosen level runs, and so does a narrower one; a wider one is ruled out", () => {
    const h = session("Update the description and make it internal only");
    expect(update(h, { visibility: "internal" }).kind).toBe("allow");
    expect(update(h, { private: true }).kind).toBe("allow");
    expect(update(h, { visibility: "public" })).toMatchObject({ kind: "block", rule: "ruled-out" });
  });

  test("a negated word rules its level and the wider ones out, in its clause only", () => {
    expect(update(session("Update the description, but do not make it public"), { private: false }).kind).toBe("block");
    expect(update(session("Das Repo darf nicht public werden"), { private: false }).kind).toBe("block");
    expect(update(session("説明を更新して。公開はしないで"), { private: false }).kind).toBe("block");
    expect(update(session("Don't change the title and make it public"), { private: false }).kind).toBe("allow");
    expect(update(session("Don't forget to make it public"), { private: false }).kind).toBe("allow");
    // "Not private" rules nothing out: the narrowest level always runs.
    expect(update(session("Do not keep it private"), { private: true }).kind).toBe("allow");
  });

  test("a later turn amends an earlier one", () => {
    const h = session("Share it read-only");
    expect(update(h, { role: "writer" }).kind).toBe("block");
    expect(fence.intent(h, "Actually give them edit access").ok).toBe(true);
    expect(update(h, { role: "writer" }).kind).toBe("allow");
    expect(update(h, { role: "owner" }).kind).toBe("block");
    expect(fence.intent(h, "But not edit access after all").ok).toBe(true);
    expect(update(h, { role: "writer" }).kind).toBe("block");
    expect(update(h, { role: "reader" }).kind).toBe("allow");
  });

  test("a session's choices are its own, also in a slot an earlier session used", () => {
    const a = session("Make it public");
    const b = session("Update the description");
    expect(update(a, { private: false }).kind).toBe("allow");
    expect(update(b, { private: false }).kind).toBe("ask");
    expect(fence.closeSession(a)).toBe(true);
    const c = session("Update the description");
    expect(update(c, { private: false }).kind).toBe("ask");
    expect(update(0, { private: false }).kind).toBe("ask");
  });

  test("quoted words choose nothing", () => {
    expect(update(session("Update the description.\n> make it public"), { private: false }).kind).toBe("ask");
  });
});
