// The JSON Schemas editors read (policies/schema/), generated from the zod schemas: the policy
// language (schema.ts) and policy test files (testschema.ts). One source for each.
import * as z from "zod";
import { PolicyFile } from "./schema";
import { PolicyTestFile } from "./testschema";

/** File name -> its text, as `npm run schemas` and scripts/build.sh write them. */
export function schemaFiles(): Record<string, string> {
  const text = (schema: z.ZodType, title: string) =>
    JSON.stringify({ title, ...z.toJSONSchema(schema) }, null, 2) + "\n";
  return {
    "policy.schema.json": text(PolicyFile, "AgentsFence policy (docs/policy.md)"),
    "policy-test.schema.json": text(PolicyTestFile, "AgentsFence policy tests (docs/policy-tests.md)"),
  };
}
