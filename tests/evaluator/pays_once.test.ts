// A payment the user asked for runs once per payee and purpose (docs/bytecode.md §8.2), whatever
// its sum or the tool it goes through: 44.99 after 45, or the same bill through another payment
// tool, is a second payment, and asked about.
import { beforeAll, describe, expect, test } from "vitest";
import type { Fence } from "../../host-js/host";
import { shippedFence } from "./shipped";

let fence: Fence;

const str = { type: "string" };
beforeAll(async () => {
  fence = await shippedFence();
  expect(fence.describe("mcp__bank__send_money", "Send money to a payee.", {
    type: "object", properties: { payee: str, amount: { type: "number" }, currency: str },
  }).ok).toBe(true);
  expect(fence.describe("mcp__bank__pay_bill", "Pay a bill to a payee.", {
    type: "object", properties: { payee: str, amount: { type: "number" }, currency: str },
  }).ok).toBe(true);
});

function session(message: string): number {
  const h = fence.openSession();
  fence.intent(h, message);
  return h;
}

describe("a bill is paid once", () => {
  const bill = { payee: "City Water", amount: 45, currency: "EUR" };
  test.each([
    ["Send €45 to City Water for the water bill"],
    ["Paga 45 € a City Water por la factura del agua"],
    ["Überweise 45 € an City Water für die Wasserrechnung"],
  ])("a second payment to the payee, of another sum or through another tool, is asked: %s", (message) => {
    const h = session(message);
    const first = fence.decide(h, "mcp__bank__send_money", bill);
    expect(first).toMatchObject({ kind: "allow" });
    expect(fence.commit(h, first.reservation).ok).toBe(true);
    expect(fence.decide(h, "mcp__bank__send_money", { ...bill, amount: 44.99 })).toMatchObject({ kind: "ask", reason: "repeated_payment" });
    expect(fence.decide(h, "mcp__bank__pay_bill", { ...bill, amount: 40 })).toMatchObject({ kind: "ask", reason: "repeated_payment" });
    fence.closeSession(h);
  });

  test("two payees the request named are each paid once", () => {
    const h = session("Pay €45 to City Water and €30 to Stadtwerke Nord");
    const first = fence.decide(h, "mcp__bank__send_money", bill);
    expect(first).toMatchObject({ kind: "allow" });
    expect(fence.commit(h, first.reservation).ok).toBe(true);
    const second = fence.decide(h, "mcp__bank__pay_bill", { payee: "Stadtwerke Nord", amount: 30, currency: "EUR" });
    expect(second).toMatchObject({ kind: "allow" });
    expect(fence.commit(h, second.reservation).ok).toBe(true);
    expect(fence.decide(h, "mcp__bank__pay_bill", { payee: "Stadtwerke Nord", amount: 30, currency: "EUR" })).toMatchObject({ kind: "ask", reason: "repeated_payment" });
    fence.closeSession(h);
  });
});
