// The binder's case folding (docs/bytecode.md §7.3), which the compiler applies to a policy's
// intent words as fence.wasm applies it to the user's.
import { describe, expect, it } from "vitest";
import { grammarLower } from "../normalize";

describe("grammarLower", () => {
  it("folds ASCII, Latin-1 and Cyrillic capitals, and nothing else", () => {
    expect(grammarLower("ÉCRIS")).toBe("écris");
    expect(grammarLower("ОТПРАВЬ Ёлке")).toBe("отправь ёлке");
    expect(grammarLower("ЀЏ")).toBe("ѐџ");
    expect(grammarLower("ŁÓDŹ ×")).toBe("ŁódŹ ×");
    expect(grammarLower("ΑΒΓ 送信")).toBe("ΑΒΓ 送信");
  });
});
