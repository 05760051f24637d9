// "do" before its subject is an auxiliary ("under no circumstances do you want to be
// transferred", "never do you send"): it asks for nothing and, negated, rules nothing out by
// itself; the verb after it is read as the request's own.
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { type Fence, loadFence } from "../../host-js/host";
import { fenceWasm } from "./wasm";

const root = path.resolve(__dirname, "../..");
let fence: Fence;

beforeAll(async () => {
  fence = await loadFence(fenceWasm());
  expect(fence.load(new Uint8Array(fs.readFileSync(path.join(root, "build/policies/defaults.afb")))).ok).toBe(true);
}, 60_000);

const READ = ["mcp__desk__get_reservation_details", { reservation_id: "PEP4E0" }] as const;
const SEND = ["send_message", { action: "send", target: "email:dora@example.com", message: "The report is ready." }] as const;

function decided(message: string, call: readonly [string, object]): string {
  const h = fence.openSession();
  fence.intent(h, message);
  const kind = fence.decide(h, call[0], call[1]).kind;
  fence.closeSession(h);
  return kind;
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
