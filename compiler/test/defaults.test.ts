// The shipped policy must always compile cleanly: operators extend it.
import { describe, expect, it } from "vitest";
import { compilePolicy, formatDiagnostic } from "../index";
import { readAfb } from "./reader";

describe("policies/defaults.yaml", () => {
  it("compiles with no errors and no warnings", () => {
    const result = compilePolicy([{ path: "policies/defaults.yaml" }]);
    expect(result.ok ? [] : result.errors.map(formatDiagnostic)).toEqual([]);
    expect(result.warnings.map(formatDiagnostic)).toEqual([]);
    if (!result.ok) return;
    const afb = readAfb(result.bytes);
    expect(afb.totalLength).toBe(result.bytes.length);
    expect(afb.rules.map((r) => afb.strings[r.id])).toEqual(result.ir.rules.map((r) => r.id));
    expect(afb.classes).toHaveLength(result.ir.classes.length);
  });
});
