// The schema is the one definition of the language: it must export as JSON Schema for editors.
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { PolicyFile } from "../schema";

describe("JSON Schema export", () => {
  const schema = z.toJSONSchema(PolicyFile) as Record<string, any>;

  it("exports the policy file as a strict object that requires only version", () => {
    expect(schema.type).toBe("object");
    expect(schema.required).toEqual(["version"]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(["version", "name", "extends", "defaults", "tools", "classify", "rules", "budgets", "intent", "shell", "sandbox", "limits", "fail_open"]);
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });

  it("carries rule effects, subjects and the recursive not", () => {
    const rule = schema.properties.rules.items;
    expect(rule.required).toEqual(["id", "effect"]);
    expect(rule.properties.effect.enum).toEqual(["allow", "block", "ask", "confine", "warn"]);
    const when = rule.properties.when;
    const subject = new RegExp(when.propertyNames.pattern);
    expect(["tool", "path", "args.message.to"].every((s) => subject.test(s))).toBe(true);
    expect(subject.test("nope")).toBe(false);
    const predicate = schema.$defs[when.additionalProperties.$ref.split("/").pop()];
    expect(predicate.additionalProperties).toBe(false);
    expect(predicate.properties.not.$ref).toBe(when.additionalProperties.$ref);
  });
});
