// assembly/shell.ts keeps the wrappers' option syntax as UTF-8 bytes (half the size of a string
// constant) beside the text it stands for, in a comment: the two must say the same.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const source = readFileSync(new URL("../shell.ts", import.meta.url), "utf8");

describe("shell.ts's wrapper syntax", () => {
  it("holds the bytes of the text its comment shows", () => {
    const comment = source.split("\n").filter((l) => /^\/\/ {3}\S+\|/.test(l)).map((l) => l.slice(5)).join("");
    const bytes = source.match(/const WRAPPER_SYNTAX: usize = memory\.data<u8>\(\[([^\]]*)\]\);/)![1];
    const text = String.fromCharCode(...bytes.split(",").map((b) => Number(b.trim())));
    expect(text).toBe(comment);
    expect(source).toContain(`const WRAPPER_SYNTAX_LEN: u32 = ${text.length};`);
  });
});
