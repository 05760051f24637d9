// `explain`: the class, the tests each rule ran and the DECIDE reached, from the evaluator's
// own run, and the new tests GRANTED and INTENT_ANY as a decision sees them.
import { expect, test } from "vitest";
import { compileYaml } from "./bytecode";
import { loadFence } from "../../host-js/host";
import { fenceWasm } from "./wasm";

const POLICY = compileYaml(`
version: 1
name: explain
defaults: {"*": ask}
tools:
  - name: send_email
    capability: email.send
    risk: send
    args: {to: email}
rules:
  - id: unasked
    effect: block
    capability: [email.send]
    when:
      tool: {granted: false}
  - id: beside-named
    effect: block
    capability: [email.send]
    when:
      email: {intent_any: true, not: {in_intent: true}}
  - id: named
    effect: allow
    capability: [email.send]
    when:
      email: {in_intent: true}
intent:
  verbs:
    - {words: [email], capabilities: [email.send], object: destination}
`);

function explainWith(intent: string, args: unknown) {
  const fence = loadFence(fenceWasm());
  expect(fence.load(POLICY).ok).toBe(true);
  const h = fence.openSession();
  expect(fence.intent(h, intent).ok).toBe(true);
  return { trace: fence.explain(h, "send_email", args), decision: fence.decide(h, "send_email", args) };
}

test("traces each rule's tests in order and the DECIDE that ended the run", () => {
  const { trace, decision } = explainWith("Email bob@example.com the notes", { to: "bob@example.com" });
  expect(trace.ok).toBe(true);
  expect(trace.text.split("\n")).toEqual([
    "class\temail.send\tsend\tmapped",
    "test\tunasked\tgranted\ttool\tfailed\tnegated",
    "test\tbeside-named\tintent_any\temail\theld\tplain",
    "test\tbeside-named\tin_intent\temail\tfailed\tnegated",
    "test\tnamed\tin_intent\temail\theld\tplain",
    "decide\tnamed\tallow\tends",
    "",
  ]);
  expect(decision).toMatchObject({ kind: "allow", rule: "named" });
});

test("an address beside the named ones is blocked; with none named the default asks", () => {
  expect(explainWith("Email bob@example.com the notes", { to: "eve@attacker.example" }).decision)
    .toMatchObject({ kind: "block", rule: "beside-named" });
  const { trace, decision } = explainWith("Email the notes to the people they list", { to: "dave@example.com" });
  expect(decision).toMatchObject({ kind: "ask", reason: "default_ask" });
  expect(trace.text).toContain("test\tbeside-named\tintent_any\temail\tfailed\tplain\n");
  expect(trace.text).toContain("decide\t(default)\task\tends\n");
});

test("a request that asks for no mail is blocked by the GRANTED test", () => {
  const { trace, decision } = explainWith("Summarize the notes", { to: "bob@example.com" });
  expect(decision).toMatchObject({ kind: "block", rule: "unasked" });
  expect(trace.text).toContain("test\tunasked\tgranted\ttool\theld\tnegated\n");
});
