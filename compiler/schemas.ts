// The JSON Schemas editors and the host read (policies/schema/), generated from the zod schemas:
// the policy language (schema.ts), policy test files (testschema.ts) and a model's reading of a
// user message (intent-schema.ts, checked by the Python host). One source for each.
import * as z from "zod";
import { PolicyFile } from "./schema";
import { PolicyTestFile } from "./testschema";
import { IntentNarrowing } from "./intent-schema";

/** File name -> its text, as `npm run schemas` and scripts/build.sh write them. */
export function schemaFiles(): Record<string, string> {
  const text = (schema: z.ZodType, title: string) =>
    JSON.stringify({ title, ...z.toJSONSchema(schema) }, null, 2) + "\n";
  return {
    "policy.schema.json": text(PolicyFile, "AgentsFence policy (docs/policy.md)"),
    "policy-test.schema.json": text(PolicyTestFile, "AgentsFence policy tests (docs/policy-tests.md)"),
    "intent-narrowing.schema.json": text(IntentNarrowing, "AgentsFence: a model's reading of a user message (llm_intent)"),
  };
}
