// A condition that opens an aside in brackets governs the aside to its closing bracket: "(if not
// possible, do not do anything on that order)" is a prohibition under a condition, which rules
// nothing out, and the requests around it still stand; a plain prohibition in brackets still
// holds, and the clauses after the bracket are not made conditional.
import { beforeAll, describe, expect, test } from "vitest";
import type { Fence } from "../../host-js/host";
import { shippedFence, decidedKind } from "./shipped";

let fence: Fence;

beforeAll(async () => {
  fence = await shippedFence();
}, 60_000);

const CANCEL = ["mcp__retail__cancel_pending_order", { order_id: "#W3113816", reason: "no longer needed" }] as const;
const SEND = ["send_message", { action: "send", target: "email:dora@example.com", message: "Order #W3113816 is cancelled." }] as const;

function decided(message: string, call: readonly [string, object]): string {
  return decidedKind(fence, message, call[0], call[1]);
}

describe("a condition that opens an aside", () => {
  test.each([
    "Cancel order #W3113816. Also keep the kettle (if not possible, do not do anything on that order), and return the lamp.",
    "Cancel order #W3113816. Swap the lamp (if that is not possible, do nothing), and email dora@example.com.",
    "Annule la commande #W3113816. Garde la bouilloire (si ce n'est pas possible, ne fais rien), et rends la lampe.",
  ])("rules nothing out around it: %s", (message) => {
    expect(decided(message, CANCEL)).toBe("allow");
  });

  test("the clause after the bracket is not conditional", () => {
    expect(decided("Cancel order #W3113816. Swap the lamp (if not possible, do not do anything), and email dora@example.com.", SEND)).toBe("allow");
  });

  test.each([
    "Cancel order #W3113816 (do not email anyone about it).",
    "Cancel order #W3113816 (and never write to dora@example.com).",
  ])("a plain prohibition in brackets still holds: %s", (message) => {
    expect(decided(message, SEND)).toBe("block");
  });
});
