// The answer a model gives when the host asks it to read the user's message for what the
// deterministic grammar cannot (docs/policy.md, "A model's reading"). It can only narrow: the
// capabilities the user ruled out, and those the user wants to be asked about. The build exports
// it as JSON Schema (host-python/agentsfence/_data/intent-schema.json), against which the host
// validates every answer before the evaluator's `narrow` applies it.
import { z } from "zod";
import { capabilityGlob } from "./schema";

const capability = capabilityGlob
  .max(128)
  .describe("a capability or capability glob of the policy: email.send, email.*, net.fetch");

/** At most this many capabilities in each list: an answer is a few facts, not a policy. */
export const MAX_NARROWING = 32;

export const IntentNarrowing = z.strictObject({
  prohibit: z
    .array(capability)
    .max(MAX_NARROWING)
    .describe("capabilities the user's message rules out (\"do not send anything\", \"leave the drive alone\")"),
  ask: z
    .array(capability)
    .max(MAX_NARROWING)
    .describe("capabilities the user wants to be asked about before they are used (\"check with me before paying\")"),
});

export type IntentNarrowing = z.infer<typeof IntentNarrowing>;

/** The JSON Schema (draft 2020-12) of IntentNarrowing. */
export function intentNarrowingJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(IntentNarrowing, { target: "draft-2020-12" }) as Record<string, unknown>;
}
