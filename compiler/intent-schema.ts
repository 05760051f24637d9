// The answer a model gives when the host asks it to read the user's message for what the
// deterministic grammar cannot (settings llm_intent). It can only narrow: the capabilities the
// user ruled out, and those the user wants to be asked about. schemas.ts exports it as JSON
// Schema (policies/schema/intent-narrowing.schema.json, shipped in the package's _data/schema),
// against which the host validates every answer before the evaluator's `narrow` applies it.
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
