// Budgets of sums through fence.wasm (docs/bytecode.md §3.2, §8.2): a call reserves its AMOUNT
// targets' sum in the budget's unit in decide, commit and release settle it, a sum that does not
// fit is blocked, one the budget cannot count is asked about, restore takes decimals; and the
// sums a call's arguments make (§5.2), their normal form (§6.9) and AT_MOST (§5).
import { beforeEach, describe, expect, test } from "vitest";
import { SUBJ_AMOUNT, SUBJ_OPAQUE } from "../../bytecode/format";
import { compileYaml } from "./bytecode";
import { type Budget, type Fence, loadFence } from "../../host-js/host";
import { fenceWasm } from "./wasm";

const POLICY = `
version: 1
name: sums
defaults: {read: allow, "*": ask}
tools:
  - {name: pay, capability: money.pay, risk: money, args: {to: object, invoice: object, amount: amount, currency: amount}}
  - {name: pay_cents, capability: money.pay, risk: money, args: {to: object, invoice: object, amount: amount_minor, currency: amount}}
  - {name: order, capability: money.order, risk: money, args: {to: object, lines: amount}}
  - {name: book, capability: money.book, risk: money, args: {to: object}}
rules:
  - id: big
    effect: block
    capability: ["money.*"]
    when:
      amount: {not: {at_most: 5000}}
  - id: big-order
    effect: block
    capability: [money.order]
    when:
      amount: {not: {at_most: "100 EUR"}}
  - id: pay-named
    effect: allow
    capability: ["money.*"]
    when:
      object: {in_intent: named}
budgets:
  - {id: euros, capability: [money.pay], amount: "500 EUR"}
  - {id: any, capability: ["money.*"], amount: 1000}
  - {id: three, capability: [money.pay], limit: 3}
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
  // Each payment of a test pays another invoice: one paid again would be a repeat (pays_once.test.ts).
  expect(fence.intent(h, "Pay Acme Corp the invoices INV-1, INV-2, INV-3, INV-4 and INV-5").ok).toBe(true);
  invoices = 0;
});
let invoices = 0;

const counters = () => fence.budgets(h) as Budget[];
const pay = (amount: unknown, currency?: string, tool = "pay") => {
  const invoice = `INV-${++invoices}`;
  return fence.decide(h, tool, currency === undefined ? { to: "Acme Corp", invoice, amount } : { to: "Acme Corp", invoice, amount, currency });
};
const sums = (d: { targets: Array<[number, string] | [number, string, true]> }) =>
  d.targets.filter(([s]) => s === SUBJ_AMOUNT).map(([, v, pattern]) => (pattern ? `pattern:${v}` : v));

describe("the sums a call makes", () => {
  test("a number in the currency of its object, a string with its own, minor units by the currency", () => {
    expect(sums(fence.decide(h, "pay", { to: "Acme Corp", amount: 250, currency: "eur" }))).toEqual(["250 EUR"]);
    expect(sums(fence.decide(h, "pay", { to: "Acme Corp", amount: "1,250.50", currency: "USD" }))).toEqual(["1250.5 USD"]);
    expect(sums(fence.decide(h, "pay", { to: "Acme Corp", amount: "€ 19.90" }))).toEqual(["19.9 EUR"]);
    expect(sums(fence.decide(h, "pay", { to: "Acme Corp", amount: "200 GBP", currency: "USD" }))).toEqual(["200 GBP"]);
    expect(sums(fence.decide(h, "pay", { to: "Acme Corp", amount: 2e2 }))).toEqual(["200"]);
    expect(sums(fence.decide(h, "pay_cents", { to: "Acme Corp", amount: 25000, currency: "usd" }))).toEqual(["250 USD"]);
    expect(sums(fence.decide(h, "pay_cents", { to: "Acme Corp", amount: 25000, currency: "JPY" }))).toEqual(["25000 JPY"]);
    expect(sums(fence.decide(h, "pay_cents", { to: "Acme Corp", amount: 25000, currency: "KWD" }))).toEqual(["25 KWD"]);
    // No currency: the unit is not known (a cent, a yen, a fils), and the sum is not read.
    const unknown = fence.decide(h, "pay_cents", { to: "Acme Corp", amount: 25000 });
    expect(sums(unknown)).toEqual(["pattern:*"]);
    expect(unknown.targets).toContainEqual([SUBJ_OPAQUE, "25000"]);
  });

  test("nested objects: each sum in its own object's currency, else the nearest enclosing one's", () => {
    const d = fence.decide(h, "order", {
      to: "Acme Corp",
      lines: { currency: "EUR", items: [{ price: 10 }, { price: 20, fee: { value: "2.5", currency_code: "USD" } }] },
    });
    expect(sums(d)).toEqual(["10 EUR", "20 EUR", "2.5 USD"]);
  });

  test("what reads as no sum is opaque, and the sum a pattern: never allowed", () => {
    const d = pay("two hundred", "EUR");
    expect(sums(d)).toEqual(["pattern:*"]);
    expect(d.targets).toContainEqual([SUBJ_OPAQUE, "two hundred"]);
    // The cap may hold on a sum nobody could read: the block becomes an ask.
    expect(d).toMatchObject({ kind: "ask", rule: "big", possible: true });
    expect(pay(-5, "EUR")).toMatchObject({ kind: "ask", rule: "big", possible: true });
    expect(pay(true, "EUR")).toMatchObject({ kind: "allow", rule: "pay-named" }); // not a sum: no sum at all
    const unread = fence.decide(h, "order", { to: "Acme Corp", lines: { price: "lots" } });
    expect(unread).toMatchObject({ kind: "ask", rule: "big", possible: true });
  });

  test("AT_MOST: a cap without a currency bounds the number; one with a currency holds maybe on another", () => {
    expect(pay(6000, "JPY")).toMatchObject({ kind: "block", rule: "big" });
    const order = (lines: unknown) => fence.decide(h, "order", { to: "Acme Corp", lines });
    expect(order({ currency: "EUR", price: 150 })).toMatchObject({ kind: "block", rule: "big-order" });
    expect(order({ currency: "EUR", price: 50 })).toMatchObject({ kind: "allow", rule: "pay-named" });
    expect(order({ currency: "USD", price: 50 })).toMatchObject({ kind: "ask", rule: "big-order", possible: true });
    expect(order({ price: 50 })).toMatchObject({ kind: "ask", rule: "big-order", possible: true });
  });
});

describe("budgets of sums", () => {
  test("a call reserves its sum in each budget, one unit in a budget of calls; commit spends, release frees", () => {
    const d = pay(200, "EUR");
    expect(d).toMatchObject({ kind: "allow", rule: "pay-named" });
    expect(d.reservation).toBeGreaterThan(0);
    expect(counters()).toEqual([
      { id: "euros", limit: 500, spent: 0, reserved: 200, sums: true, currency: "EUR" },
      { id: "any", limit: 1000, spent: 0, reserved: 200, sums: true },
      { id: "three", limit: 3, spent: 0, reserved: 1 },
    ]);
    expect(fence.commit(h, d.reservation).ok).toBe(true);
    const e = pay("99.99", "EUR");
    expect(fence.release(h, e.reservation).ok).toBe(true);
    expect(counters().map((b) => [b.spent, b.reserved])).toEqual([[200, 0], [200, 0], [1, 0]]);
  });

  test("a sum that does not fit in what is left, counting what is under way, is asked about, says why and is reserved", () => {
    expect(fence.commit(h, pay(300, "EUR").reservation).ok).toBe(true);
    const open = pay("150.5", "EUR");
    expect(open.kind).toBe("allow");
    const over = pay(50, "EUR");
    expect(over).toMatchObject({
      kind: "ask", reason: "budget_exceeded", rule: "euros",
      message: "AgentsFence asks about pay: the policy's budget euros caps the sums of money.pay (money) at 500 EUR per session, and this call's sum does not fit in what is left (300 spent, 150.5 under way) [euros]",
    });
    expect(over.witness).toEqual([[SUBJ_AMOUNT, "50 EUR"]]);
    expect(over.reservation).toBeGreaterThan(0);
    expect(fence.release(h, over.reservation).ok).toBe(true); // refused at the approval gate
    expect(pay("49.5", "EUR").kind).toBe("allow"); // 300 + 150.5 + 49.5 = 500: it fits
    expect(fence.release(h, open.reservation).ok).toBe(true);
  });

  test("a budget with a currency asks about a sum in another currency or in none, and reserves nothing of it", () => {
    const d = pay(300, "USD");
    expect(d).toMatchObject({ kind: "ask", reason: "budget_unmeasured", rule: "euros" });
    expect(d.witness).toEqual([[SUBJ_AMOUNT, "300 USD"]]);
    expect(d.reservation).toBeGreaterThan(0);
    expect(counters().map((b) => b.reserved)).toEqual([0, 300, 1]);
    expect(pay(300)).toMatchObject({ kind: "ask", reason: "budget_unmeasured", rule: "euros" });
    // The budget with no currency adds every sum by its number: 300 + 300 + 500 > 1000.
    expect(pay(500, "EUR")).toMatchObject({ kind: "ask", reason: "budget_exceeded", rule: "any" });
  });

  test("a call with no sum needs nothing of a budget of sums, however spent it is", () => {
    expect(fence.restoreBudgets(h, "any\t1000").ok).toBe(true);
    expect(fence.decide(h, "book", { to: "Acme Corp" })).toMatchObject({ kind: "allow", rule: "pay-named" });
    expect(pay("0.01", "EUR")).toMatchObject({ kind: "ask", reason: "budget_exceeded", rule: "any" });
  });

  test("a sum counts to the millionth, rounded up; a sum past the range fills any budget", () => {
    expect(fence.commit(h, pay("0.0000001", "EUR").reservation).ok).toBe(true);
    expect(counters()[0].spent).toBe(0.000001);
    expect(pay("99999999999999999999", "EUR")).toMatchObject({ kind: "block", rule: "big" });
    expect(pay(4999.999, "EUR")).toMatchObject({ kind: "ask", reason: "budget_exceeded", rule: "euros" });
  });

  test("restore takes decimals for a budget of sums, whole numbers for one of calls, all or nothing", () => {
    expect(fence.restoreBudgets(h, "euros\t120.5\nany\t7").ok).toBe(true);
    expect(counters().map((b) => b.spent)).toEqual([120.5, 7, 0]);
    expect(fence.restoreBudgets(h, "euros\t100")).toMatchObject({ ok: true }); // never lowers
    expect(counters()[0].spent).toBe(120.5);
    expect(fence.restoreBudgets(h, "any\t9\nthree\t1.5")).toEqual({
      ok: false, text: "each line must be a budget id, a tab and a decimal count: nothing changed",
    });
    expect(counters().map((b) => b.spent)).toEqual([120.5, 7, 0]);
    expect(fence.restoreBudgets(h, "euros\t-1").ok).toBe(false);
  });

  test("explain reserves nothing; disasm shows the cap", () => {
    expect(fence.explain(h, "pay", { to: "Acme Corp", amount: 5, currency: "EUR" }).ok).toBe(true);
    expect(counters().map((b) => b.reserved)).toEqual([0, 0, 0]);
    expect(fence.disasm()).toMatch(/\n {2}budget 0 euros cap "500 EUR" source test\.yaml:\d+:\d+ counts class \d+ \(money\.pay \/ money\)\n/);
    expect(fence.disasm()).toContain('TEST_AT_MOST amount any not "100 EUR"');
  });
});
