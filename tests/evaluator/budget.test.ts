// Call budgets through fence.wasm (docs/bytecode.md §3.2, §8.2): reserve in decide, commit and
// release, exhaustion, the counters, restore; the verifier on BUDGETS; and the witness of §8.1.
import { beforeEach, describe, expect, test } from "vitest";
import { SEC_BUDGETS, SUBJ_EMAIL } from "../../bytecode/format";
import { compileYaml, rehash, sectionAt, setU32, u32 } from "./bytecode";
import { type Budget, type Fence, loadFence } from "../../host-js/host";
import { fenceWasm } from "./wasm";

const POLICY = `
version: 1
name: budgets
defaults: {read: allow, "*": ask}
tools:
  - {name: send_email, capability: email.send, risk: send, args: {to: email}}
  - {name: post, capability: message.send, risk: send, args: {channel: recipient}}
  - {name: read_file, capability: file.read, risk: read, args: {path: path}}
rules:
  - id: mail-named
    effect: allow
    capability: [email.send]
    when:
      email: {in_intent: true}
  - id: mail-unnamed
    effect: ask
    capability: [email.send]
    when:
      email: {not: {in_intent: true}}
  - id: no-evil
    effect: block
    capability: [message.send]
    when:
      recipient: {equals: "#evil"}
intent:
  verbs:
    - {words: [email], capabilities: [email.send], object: destination}
budgets:
  - {id: one-email, capability: [email.send], limit: 1}
  - {id: three-sends, risk: [send], limit: 3}
`;

const wasm = fenceWasm();
const policy = compileYaml(POLICY);
let fence: Fence;
let h: number;

beforeEach(() => {
  fence = loadFence(wasm);
  expect(fence.load(policy).ok).toBe(true);
  expect(fence.configure("/home/u", "/home/u/work").ok).toBe(true);
  h = fence.openSession();
  expect(fence.intent(h, "Email bob@example.com the notes").ok).toBe(true);
});

const counters = (handle = h) => fence.budgets(handle) as Budget[];
const mail = (to: string | string[]) => fence.decide(h, "send_email", { to });

describe("reserve, commit, release", () => {
  test("an allowed call reserves a unit of each of its budgets and carries the reservation id", () => {
    const d = mail("bob@example.com");
    expect(d).toMatchObject({ kind: "allow", rule: "mail-named" });
    expect(d.reservation).toBeGreaterThan(0);
    expect(counters()).toEqual([
      { id: "one-email", limit: 1, spent: 0, reserved: 1 },
      { id: "three-sends", limit: 3, spent: 0, reserved: 1 },
    ]);
    expect(fence.commit(h, d.reservation)).toEqual({ ok: true, text: "committed" });
    expect(counters().map((b) => [b.spent, b.reserved])).toEqual([[1, 0], [1, 0]]);
  });

  test("the budget is exhausted by spent plus reserved units: the next call is blocked and says why", () => {
    const first = mail("bob@example.com");
    const second = mail("bob@example.com"); // the first has not run yet: its unit is still reserved
    expect(second).toMatchObject({
      kind: "block", reason: "budget_exhausted", rule: "one-email", capability: "email.send", reservation: 0,
      message: "AgentsFence blocked send_email: the policy's budget one-email allows 1 call of email.send (send) per session, and it is used up (0 made, 1 under way) [one-email]",
    });
    expect(fence.release(h, first.reservation)).toEqual({ ok: true, text: "released" });
    const third = mail("bob@example.com");
    expect(third).toMatchObject({ kind: "allow", rule: "mail-named" });
    expect(fence.commit(h, third.reservation).ok).toBe(true);
    expect(mail("bob@example.com").message).toContain("(1 made, 0 under way) [one-email]");
  });

  test("the message names whose calls the budget counts and over what time", () => {
    const scoped = (per: string) => {
      const f = loadFence(wasm);
      expect(f.load(compileYaml(POLICY.replace("limit: 1}", `limit: 1, ${per}}`))).ok).toBe(true);
      const s = f.openSession();
      f.intent(s, "Email bob@example.com the notes");
      f.decide(s, "send_email", { to: "bob@example.com" });
      return f.decide(s, "send_email", { to: "bob@example.com" }).message;
    };
    expect(scoped("per: team")).toContain("allows 1 call of email.send (send) per team, and it is used up");
    expect(scoped("per: user, period: day")).toContain("allows 1 call of email.send (send) per user each day, and");
    expect(scoped("period: week")).toContain("allows 1 call of email.send (send) per session each week, and");
  });

  test("an ask reserves too; a block by a rule reserves nothing", () => {
    const ask = mail("eve@attacker.example");
    expect(ask).toMatchObject({ kind: "ask", rule: "mail-unnamed" });
    expect(ask.reservation).toBeGreaterThan(0);
    const blocked = fence.decide(h, "post", { channel: "#evil" });
    expect(blocked).toMatchObject({ kind: "block", rule: "no-evil", reservation: 0 });
    expect(counters().map((b) => b.reserved)).toEqual([1, 1]);
  });

  test("a budget shared by classes counts them together", () => {
    const ids = [fence.decide(h, "post", { channel: "#a" }), fence.decide(h, "post", { channel: "#b" }), mail("bob@example.com")]
      .map((d) => d.reservation);
    expect(ids.every((id) => id > 0) && new Set(ids).size).toBe(3);
    expect(fence.decide(h, "post", { channel: "#c" })).toMatchObject({ kind: "block", reason: "budget_exhausted", rule: "three-sends" });
    expect(fence.decide(h, "read_file", { path: "a.txt" })).toMatchObject({ kind: "allow", reservation: 0 });
  });

  test("settling an unknown, settled or foreign reservation changes nothing and says so", () => {
    const d = mail("bob@example.com");
    const other = fence.openSession();
    const nothing = { ok: false, text: "no open reservation with this id in the session (unknown or already settled): nothing changed" };
    expect(fence.commit(other, d.reservation)).toEqual(nothing);
    expect(fence.commit(h, d.reservation + 1000)).toEqual(nothing);
    expect(fence.commit(h, 0)).toEqual(nothing);
    expect(fence.commit(h, d.reservation).ok).toBe(true);
    expect(fence.commit(h, d.reservation)).toEqual(nothing);
    expect(fence.release(h, d.reservation)).toEqual(nothing);
    expect(counters().map((b) => [b.spent, b.reserved])).toEqual([[1, 0], [1, 0]]);
    expect(fence.commit(12345, 1)).toEqual({ ok: false, text: "unknown session" });
    expect(fence.budgets(12345)).toEqual({ ok: false, text: "unknown session" });
  });

  test("sessions count apart; handle 0 and explain reserve nothing; closing a session forgets its counters", () => {
    expect(mail("bob@example.com").reservation).toBeGreaterThan(0);
    const other = fence.openSession();
    expect(fence.intent(other, "Email bob@example.com").ok).toBe(true);
    expect(fence.decide(other, "send_email", { to: "bob@example.com" })).toMatchObject({ kind: "allow" });
    expect(fence.decide(0, "send_email", { to: "x@example.com" })).toMatchObject({ kind: "ask", reservation: 0 });
    expect(fence.explain(other, "send_email", { to: "bob@example.com" }).ok).toBe(true);
    expect(counters(other).map((b) => b.reserved)).toEqual([1, 1]);
    expect(fence.closeSession(other)).toBe(true);
    const again = fence.openSession(); // reuses the slot
    expect(counters(again).map((b) => [b.spent, b.reserved])).toEqual([[0, 0], [0, 0]]);
  });

  test("a policy load ends every session and its counters", () => {
    mail("bob@example.com");
    expect(fence.load(policy).ok).toBe(true);
    expect(fence.budgets(h)).toEqual({ ok: false, text: "unknown session" });
  });
});

describe("budget_restore", () => {
  test("raises spent counts, never lowers them, and skips ids the policy does not have", () => {
    expect(fence.restoreBudgets(h, "one-email\t1\nretired\t4\nthree-sends\t2\n")).toEqual({
      ok: true, text: "restored; skipped ids the policy does not have: retired",
    });
    expect(counters().map((b) => b.spent)).toEqual([1, 2]);
    expect(mail("bob@example.com")).toMatchObject({ reason: "budget_exhausted", rule: "one-email" });
    expect(fence.restoreBudgets(h, "three-sends\t0").ok).toBe(true);
    expect(counters().map((b) => b.spent)).toEqual([1, 2]);
  });

  test("a malformed line changes nothing", () => {
    for (const lines of ["one-email 1", "one-email\t", "one-email\t-1", "\t3", "one-email\t99999999999", "one-email\t1\nx"]) {
      expect(fence.restoreBudgets(h, lines), lines).toEqual({
        ok: false, text: "each line must be a budget id, a tab and a decimal count: nothing changed",
      });
    }
    expect(counters().map((b) => b.spent)).toEqual([0, 0]);
  });
});

describe("many calls between settlements never overshoot", () => {
  test("of 50 decisions before any settles, exactly the limit are not blocked", () => {
    const big = compileYaml(POLICY.replace("limit: 3}", "limit: 7}"));
    expect(fence.load(big).ok).toBe(true);
    const s = fence.openSession();
    const kinds = Array.from({ length: 50 }, (_, i) => fence.decide(s, "post", { channel: `#c${i}` }));
    expect(kinds.filter((d) => d.kind !== "block").length).toBe(7);
    expect(kinds.filter((d) => d.reason === "budget_exhausted").length).toBe(43);
  });
});

describe("the witness of §8.1", () => {
  test("holds every value that passed the deciding rule's tests, not only the first", () => {
    const d = mail(["bob@example.com", "eve@attacker.example", "mallory@attacker.example"]);
    expect(d).toMatchObject({ kind: "ask", rule: "mail-unnamed" });
    expect(d.witness).toEqual([[SUBJ_EMAIL, "eve@attacker.example"], [SUBJ_EMAIL, "mallory@attacker.example"]]);
    expect(d.message).toContain("for eve@attacker.example"); // {value} stays the first
  });

  test("is empty when a class default decides or a rule held on no value", () => {
    expect(fence.decide(h, "read_file", { path: "a.txt" }).witness).toEqual([]);
  });
});

test("disasm lists each budget, its limit, source and the classes it counts", () => {
  const text = fence.disasm();
  expect(text).toMatch(/\nbudgets 2\n {2}budget 0 one-email limit 1 source test\.yaml:\d+:\d+ counts class 1 \(email\.send \/ send\)\n/);
  expect(text).toMatch(/\n {2}budget 1 three-sends limit 3 source test\.yaml:\d+:\d+ counts class 1 \(email\.send \/ send\) class 2 \(message\.send \/ send\)\n/);
});

describe("the verifier on BUDGETS", () => {
  const at = (bytes: Uint8Array) => sectionAt(bytes, SEC_BUDGETS);
  const rejects = (mutate: (b: Uint8Array) => void, reason: RegExp) => {
    const b = policy.slice();
    mutate(b);
    const r = loadFence(wasm).load(rehash(b));
    expect(r.ok).toBe(false);
    expect(r.text).toMatch(reason);
  };
  // count, budgets × 20 bytes, class_count, classes × 8 bytes, member_total, members.
  const classTable = (b: Uint8Array) => at(b) + 4 + 20 * u32(b, at(b));
  const memberTable = (b: Uint8Array) => classTable(b) + 4 + 8 * u32(b, classTable(b));

  test("rejects a zero limit, a wrong class count, a range out of bounds and members out of order", () => {
    rejects((b) => setU32(b, at(b) + 8, 0), /^BUDGETS at offset \d+: limit must be at least 1, budget 0$/);
    rejects((b) => setU32(b, at(b) + 4, 0xfffff), /^BUDGETS at offset \d+: budget id: string index 1048575 out of range/);
    // A budget of sums has limit 0 and a cap that is a sum in normal form, above 0.
    rejects((b) => setU32(b, at(b) + 16, 0), /^BUDGETS at offset \d+: a budget of sums has limit 0, budget 0$/);
    rejects((b) => { setU32(b, at(b) + 8, 0); setU32(b, at(b) + 16, u32(b, at(b) + 4)); }, /^BUDGETS at offset \d+: budget cap is not a sum in normal form/);
    rejects((b) => setU32(b, classTable(b), 2), /^BUDGETS at offset \d+: class_count 2 differs from the CLASSES count 4$/);
    // Whose calls it counts (session, user, team) and its period (none, day, week): nothing else.
    rejects((b) => setU32(b, at(b) + 20, 3), /^BUDGETS at offset \d+: unknown scope or period, budget 0$/);
    rejects((b) => setU32(b, at(b) + 20, 3 << 8), /^BUDGETS at offset \d+: unknown scope or period, budget 0$/);
    const emailClass = (b: Uint8Array) => {
      for (let c = 0; c < u32(b, classTable(b)); c++) if (u32(b, classTable(b) + 8 + 8 * c) === 2) return classTable(b) + 4 + 8 * c;
      throw new Error("no class with two budgets");
    };
    rejects((b) => setU32(b, emailClass(b), u32(b, memberTable(b))), /member range out of bounds, class/);
    rejects((b) => {
      const first = u32(b, emailClass(b));
      setU32(b, memberTable(b) + 4 + 4 * first, 1);
      setU32(b, memberTable(b) + 8 + 4 * first, 0);
    }, /budget indices not strictly ascending, class/);
    rejects((b) => setU32(b, memberTable(b) + 4, 9), /budget index out of range, class/);
  });
});

describe("a narrowing's ask", () => {
  test("reserves like any ask, and an exhausted budget still blocks it", () => {
    expect(fence.narrow(h, "ask\temail.send").ok).toBe(true);
    const d = mail("bob@example.com");
    expect(d).toMatchObject({ kind: "ask", reason: "intent_narrowed" });
    expect(d.reservation).toBeGreaterThan(0);
    expect(mail("bob@example.com")).toMatchObject({ kind: "block", reason: "budget_exhausted", rule: "one-email" });
  });
});
