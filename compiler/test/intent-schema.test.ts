// The schema of a model's reading of the user's message, and its JSON Schema export.
import { describe, expect, it } from "vitest";
import { IntentNarrowing, MAX_NARROWING } from "../intent-schema";
import { schemaFiles } from "../schemas";

describe("intent narrowing schema", () => {
  it("takes capabilities and globs to prohibit or ask about, and nothing else", () => {
    expect(IntentNarrowing.safeParse({ prohibit: ["email.*"], ask: ["money.move"] }).success).toBe(true);
    expect(IntentNarrowing.safeParse({ prohibit: [], ask: [], allow: ["email.send"] }).success).toBe(false);
    expect(IntentNarrowing.safeParse({ prohibit: ["Email Send"], ask: [] }).success).toBe(false);
    expect(IntentNarrowing.safeParse({ prohibit: [] }).success).toBe(false);
    expect(IntentNarrowing.safeParse({ prohibit: Array(MAX_NARROWING + 1).fill("x"), ask: [] }).success).toBe(false);
  });

  it("exports as a closed JSON Schema object", () => {
    const schema = JSON.parse(schemaFiles()["intent-narrowing.schema.json"]);
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(["prohibit", "ask"]);
  });
});
