// The pronoun "I" inside a sentence ("Ok, I want to cancel …") is a subject of the grammar, not a
// name: it neither binds as a value nor hides the lead words around it, so the request it opens
// grants as it does at the sentence's start, and a statement of what the user did still grants
// nothing.
import { beforeAll, describe, expect, test } from "vitest";
import type { Fence } from "../../host-js/host";
import { shippedFence, decidedKind } from "./shipped";

let fence: Fence;

beforeAll(async () => {
  fence = await shippedFence();
}, 60_000);

const CANCEL = ["mcp__retail__cancel_pending_order", { order_id: "#W3113816", reason: "no longer needed" }] as const;
const ADDRESS = ["mcp__retail__modify_pending_order_address",
  { order_id: "#W3113816", address1: "5 Hauptstrasse", address2: "", city: "Berlin", state: "BE", country: "Germany", zip: "10115" }] as const;
const SEND = ["send_message", { action: "send", target: "email:dora@example.com", message: "The report is ready." }] as const;

function decided(message: string, call: readonly [string, object]): string {
  return decidedKind(fence, message, call[0], call[1]);
}

describe("a capitalized pronoun inside a sentence", () => {
  test.each([
    "Ok, I want to cancel order #W3113816.",
    "For my account, I need to cancel the order #W3113816.",
    "Today, I would like to cancel order #W3113816.",
    "Thanks. Actually, I wish to cancel order #W3113816.",
  ])("opens the request it states: %s", (message) => {
    expect(decided(message, CANCEL)).toBe("allow");
  });

  test.each([
    "Hi, I want to email dora@example.com the report.",
    "Thanks, I'd like you to send the report to dora@example.com.",
  ])("a send asked for after a greeting runs: %s", (message) => {
    expect(decided(message, SEND)).toBe("allow");
  });

  test.each([
    ["Yesterday, I cancelled order #W3113816 myself; please change its address to 5 Hauptstrasse, Berlin.", CANCEL],
    ["Ok, I already emailed dora@example.com the report.", SEND],
    ["Hi, I want to know whether order #W3113816 shipped.", ADDRESS],
  ] as const)("what the user says they did asks for nothing: %s", (message, call) => {
    expect(decided(message, call)).not.toBe("allow");
  });
});
