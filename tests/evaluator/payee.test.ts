// Who a request pays (docs/policy.md "intent"): the person it pays, not one named in a phrase
// about what is paid ("for the dinner with Bob") nor the owner of what is paid ("Bob's invoice"),
// under the shipped policy.
import { beforeAll, describe, expect, test } from "vitest";
import type { Fence } from "../../host-js/host";
import { shippedFence } from "./shipped";

let fence: Fence;

beforeAll(async () => {
  fence = await shippedFence();
}, 60_000);

function paying(message: string, recipient: string): string {
  const h = fence.openSession();
  expect(fence.intent(h, message).ok).toBe(true);
  const kind = fence.decide(h, "mcp__wallet__send_money", { recipient, amount: 40, currency: "EUR" }).kind;
  fence.closeSession(h);
  return kind;
}

describe("the payee", () => {
  test.each([
    ["Pay Bob 40 EUR for the dinner", "Bob"],
    ["Send 40 EUR to Bob for the dinner with Ana", "Bob"],
    ["Paga 40 € a Bob per la cena con Ana", "Bob"],
  ])("the person the request pays is paid: %s", (message, recipient) => {
    expect(paying(message, recipient)).toBe("allow");
  });

  test.each([
    ["Pay the 40 EUR invoice for the dinner with Bob", "Bob"],
    ["Send 40 EUR to Bob for the dinner with Ana", "Ana"],
    ["Paga il conto di 40 € per la cena con Bob", "Bob"],
    ["Pay Bob's invoice of 40 EUR", "Bob"],
    ["Pay Bob’s invoice of 40 EUR", "Bob"],
    ["Pay bob@example.com's invoice of 40 EUR", "bob@example.com"],
  ])("a person named about what is paid, or as its owner, is not: %s", (message, recipient) => {
    expect(paying(message, recipient)).toBe("ask");
  });

  test("an address in a phrase about the thread a reply joins still receives", () => {
    const h = fence.openSession();
    expect(fence.intent(h, "Reply in the thread with ines.sousa@example.pt saying the files are uploaded.").ok).toBe(true);
    expect(fence.decide(h, "mcp__gmail__send_email", { to: ["ines.sousa@example.pt"], subject: "Re: Files", body: "Uploaded." }).kind).toBe("allow");
    fence.closeSession(h);
  });
});
