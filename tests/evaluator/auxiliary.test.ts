// "do" before its subject is an auxiliary ("under no circumstances do you want to be
// transferred", "never do you send"): it asks for nothing and, negated, rules nothing out by
// itself; the verb after it is read as the request's own.
import { beforeAll, describe, expect, test } from "vitest";
import type { Fence } from "../../host-js/host";
import { shippedFence, decidedKind } from "./shipped";

let fence: Fence;

beforeAll(async () => {
  fence = await shippedFence();
}, 60_000);

const READ = ["mcp__desk__get_reservation_details", { reservation_id: "PEP4E0" }] as const;
const SEND = ["send_message", { action: "send", target: "email:dora@example.com", message: "The report is ready." }] as const;

function decided(message: string, call: readonly [string, object]): string {
  return decidedKind(fence, message, call[0], call[1]);
}

describe("do before its subject", () => {
  test.each([
    "Check reservation PEP4E0. Under no circumstances do you want to be transferred to another agent.",
    "Look up reservation PEP4E0; in no case do you want a refund.",
    "Revisa la reserva PEP4E0. Under no circumstances do you want to wait.",
  ])("rules out no read the request asks for: %s", (message) => {
    expect(decided(message, READ)).toBe("allow");
  });

  test.each([
    "Under no circumstances do you send the report to dora@example.com.",
    "Check reservation PEP4E0, and never do you email dora@example.com about it.",
  ])("the verb after it is still negated: %s", (message) => {
    expect(decided(message, SEND)).toBe("block");
  });

  test("a question it opens grants no send", () => {
    expect(decided("Why do you want to email dora@example.com the report?", SEND)).not.toBe("allow");
  });
});
