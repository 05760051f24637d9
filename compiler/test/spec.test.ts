// docs/bytecode.md against bytecode/format.ts: every number the spec's tables name must be
// the constant of that name, and every constant must be in the spec, so they cannot drift.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as format from "../../bytecode/format";
import { PREDICATE_OPS, VALID_TESTS } from "../predicates";

const doc = readFileSync(new URL("../../docs/bytecode.md", import.meta.url), "utf8");
const constants = format as unknown as Record<string, number>;
const checked = new Set<string>();

/** The text from the heading that starts with `heading` to the next heading. */
function sectionText(heading: string): string {
  const lines = doc.split("\n");
  const start = lines.findIndex((l) => l.startsWith(heading));
  expect(start, `heading "${heading}" in docs/bytecode.md`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > start && l.startsWith("#"));
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

/** The body rows of the first table under `heading`, as trimmed cells without backticks. */
function tableRows(heading: string): string[][] {
  const rows = sectionText(heading)
    .split("\n")
    .filter((l) => l.startsWith("|"))
    .map((l) => l.slice(1, -1).split("|").map((cell) => cell.trim().replaceAll("`", "")));
  return rows.slice(2); // header and separator
}

function expectConstant(name: string, value: number): void {
  expect(constants[name], `${name} in bytecode/format.ts`).toBe(value);
  checked.add(name);
}

/** Checks a "number | NAME" table and that no constant with `prefix` is missing from it. */
function expectTable(heading: string, prefix: string): string[][] {
  const rows = tableRows(heading);
  expect(rows.length).toBeGreaterThan(0);
  for (const [number, name] of rows) expectConstant(prefix + name, Number(number));
  const listed = rows.map(([, name]) => prefix + name).sort();
  const defined = Object.keys(constants).filter((k) => k.startsWith(prefix) && !/_(COUNT|MAX|SIZE)$/.test(k)).sort();
  expect(defined).toEqual(listed);
  return rows;
}

describe("docs/bytecode.md tables match bytecode/format.ts", () => {
  it("§1, §2: conventions and the header", () => {
    expect(sectionText("## 1.")).toContain("`NONE` = `0xFFFFFFFF`");
    expectConstant("NONE", 0xffffffff);
    const header = tableRows("## 2.");
    const row = (field: string) => header.find((r) => r[2].startsWith(field))!;
    const magicBytes = row("magic")[2].match(/magic ([0-9A-F ]+) /)![1].trim().split(" ").map((h) => parseInt(h, 16));
    expectConstant("MAGIC", Buffer.from(magicBytes).readUInt32LE(0));
    expect(row("format version")[2]).toContain(`FORMAT_VERSION, ${format.FORMAT_VERSION}`);
    expect(doc).toContain(`Format version: **${format.FORMAT_VERSION}**`);
    checked.add("FORMAT_VERSION");
    expectConstant("HASH_OFFSET", Number(row("SHA-256")[0]));
    const directory = row("section directory");
    expectConstant("HEADER_SIZE", Number(directory[0]));
    expectConstant("DIR_ENTRY_SIZE", Number(directory[1].match(/^(\d+)·N$/)![1]));
  });

  it("§3.2: a budget's scope and period", () => {
    const rows = sectionText("### 3.2").split("\n").filter((l) => /^\| \d+ \|/.test(l))
      .map((l) => l.slice(1, -1).split("|").map((cell) => cell.trim()));
    for (const [number, name] of rows) expectConstant("BUDGET_" + name, Number(number));
    expect(Object.keys(constants).filter((k) => k.startsWith("BUDGET_")).sort()).toEqual(rows.map(([, n]) => "BUDGET_" + n).sort());
  });

  it("§3.3: classify entry flags, §8: describe's annotation bits", () => {
    expectTable("### 3.3", "CLASSIFY_");
    expect(sectionText("### 3.3")).toContain(`\`CLASSIFY_FLAG_MAX\` (${format.CLASSIFY_FLAG_MAX})`);
    checked.add("CLASSIFY_FLAG_MAX");
    expect(sectionText("### 3.3")).toContain(`\`TOOL_FLAGS\`, ${format.TOOL_FLAGS}`);
    checked.add("TOOL_FLAGS");
    const rows = tableRows("## 8.").filter(([bit]) => /^\d+$/.test(bit));
    const listed = rows.map(([, name]) => "ANNOTATION_" + name).sort();
    expect(Object.keys(format).filter((k) => k.startsWith("ANNOTATION_") && k !== "ANNOTATION_MAX").sort()).toEqual(listed);
    for (const [bit, name] of rows) {
      expect((format as Record<string, number>)["ANNOTATION_" + name]).toBe(Number(bit));
      checked.add("ANNOTATION_" + name);
    }
    expect(sectionText("## 8.")).toContain(`\`ANNOTATION_MAX\` (${format.ANNOTATION_MAX})`);
    checked.add("ANNOTATION_MAX");
  });

  it("§3.6: the glob index's key length", () => {
    expect(sectionText("### 3.6")).toContain(`\`GLOB_KEY_MAX\` (${format.GLOB_KEY_MAX})`);
    checked.add("GLOB_KEY_MAX");
  });

  it("§3: section kinds", () => {
    const rows = expectTable("## 3.", "SEC_");
    expectConstant("SECTION_COUNT", rows.length);
  });

  it("§3.1: settings keys", () => {
    const rows = expectTable("### 3.1", "SET_");
    expectConstant("SETTINGS_COUNT", rows.length);
  });

  it("§3.4, §3.5: what the shell reader knows of programs", () => {
    const options = expectTable("### 3.4", "SHO_");
    expectConstant("SHO_MAX", Math.max(...options.map(([n]) => Number(n))));
    const operands = expectTable("### 3.5", "SHM_");
    expectConstant("SHM_MAX", Math.max(...operands.map(([n]) => Number(n))));
    for (const rows of [options, operands]) rows.forEach(([n], i) => expect(Number(n)).toBe(2 ** i));
  });

  it("§4: set kinds", () => {
    expectTable("## 4.", "SETKIND_");
  });

  it("§5: opcodes, instruction size, flags and effects", () => {
    expectTable("## 5.", "OP_");
    const text = sectionText("## 5.");
    expectConstant("INSN_SIZE", Number(text.match(/An instruction is (\d+) bytes/)![1]));
    expectConstant("FLAG_NEGATE", 1 << Number(text.match(/bit (\d) NEGATE/)![1]));
    expectConstant("FLAG_ALL", 1 << Number(text.match(/bit (\d) ALL/)![1]));
    const effects = tableRows("## 5.").find(([, name]) => name === "DECIDE")![2];
    for (const [, value, name] of effects.matchAll(/(\d) (allow|block|ask|confine|warn)/g)) expectConstant(`EFFECT_${name.toUpperCase()}`, Number(value));
    const inIntent = tableRows("## 5.").find(([, name]) => name === "TEST_IN_INTENT")![2];
    for (const [, value, name] of inIntent.matchAll(/(\d) \((INTENT_\w+)\)/g)) expectConstant(name, Number(value));
  });

  it("§5.1: subjects and the tests each admits", () => {
    const rows = expectTable("### 5.1", "SUBJ_");
    expectConstant("SUBJECT_COUNT", rows.length);
    const allTests = tableRows("## 5.").map(([, name]) => name).filter((n) => n.startsWith("TEST_")).map((n) => n.slice(5));
    const opName = new Map(Object.entries(PREDICATE_OPS).map(([, op]) => [op, Object.keys(constants).find((k) => k.startsWith("OP_TEST_") && constants[k] === op)!.slice(8)]));
    for (const [number, name, , valid] of rows) {
      const but = valid.match(/^all but (\w+(?:, \w+)*)$/);
      const excluded = but ? but[1].split(", ") : [];
      const docTests = but ? allTests.filter((t) => !excluded.includes(t)) : valid.split(/\s+/);
      const compilerTests = VALID_TESTS[Number(number)].map((t) => opName.get(PREDICATE_OPS[t]));
      expect(compilerTests.sort(), `valid tests of ${name}`).toEqual([...docTests].sort());
    }
  });

  it("§6.7: the pattern bit of a target entry", () => {
    for (const name of ["TARGET_PATTERN", "TARGET_TREE"]) {
      const bit = Number(sectionText("### 8.1").match(new RegExp(`bit (\\d), \`${name}\``))![1]);
      expectConstant(name, 1 << bit);
    }
  });

  it("§5.2: argument roles", () => {
    const rows = expectTable("### 5.2", "ROLE_");
    expectConstant("ROLE_MAX", Math.max(...rows.map(([n]) => Number(n))));
  });

  it("§8.1: decision kinds", () => {
    const kind = tableRows("### 8.1").find(([, field]) => field.startsWith("kind:"))![1];
    for (const [, value, name] of kind.matchAll(/(\d) (allow|block|ask|confine)/g)) expectConstant(`KIND_${name.toUpperCase()}`, Number(value));
    const head = tableRows("### 8.1").slice(0, -1).reduce((n, [size]) => n + Number(size), 0);
    expect(sectionText("### 8.1")).toContain(`\`DECISION_HEAD_SIZE\` (${head})`);
    expectConstant("DECISION_HEAD_SIZE", head);
    const flags = tableRows("### 8.1").find(([, field]) => field.startsWith("flags:"))![1];
    for (const [, bit, name] of flags.matchAll(/bit (\d) (DECISION_\w+)/g)) expectConstant(name, 1 << Number(bit));
  });

  it("§8: configure's flags", () => {
    const flag = Number(sectionText("## 8.").match(/`flags` bit (\d), `CONFIGURE_FOLD_CASE`/)![1]);
    expectConstant("CONFIGURE_FOLD_CASE", 1 << flag);
    const noSandbox = Number(sectionText("## 8.").match(/`flags` bit (\d), `CONFIGURE_NO_SANDBOX`/)![1]);
    expectConstant("CONFIGURE_NO_SANDBOX", 1 << noSandbox);
  });

  it("§8.3: what sandbox_classify answers", () => {
    expectTable("### 8.3", "SANDBOX_");
  });

  it("§8: the fuel constants live in format.ts, as the spec says", () => {
    expect(sectionText("## 8.")).toContain("`FUEL_BASE + FUEL_PER_BYTE × input bytes` units (`bytecode/format.ts`)");
    expect(sectionText("## 8.")).toContain("`FUEL_BASE + FUEL_PER_TEXT_BYTE × input bytes`");
    checked.add("FUEL_BASE").add("FUEL_PER_BYTE").add("FUEL_PER_TEXT_BYTE");
  });

  it("§7.3: grammar categories, object directions, roles and moods", () => {
    expectTable("#### 7.3.1", "G_");
    expectTable("#### 7.3.2", "OBJECT_");
    expectTable("#### 7.3.3", "BOUND_");
    expectTable("#### 7.3.4", "MOOD_");
    expectTable("#### 7.3.5", "G2_");
    expectConstant("GRAMMAR2_PREFIX", Number(sectionText("#### 7.3.5").match(/`GRAMMAR2_PREFIX` \((\d+), `\+`\)/)![1]));
    expectConstant("GRAMMAR_OBJECT_SHIFT", Number(sectionText("### 7.3").match(/`GRAMMAR_OBJECT_SHIFT` \((\d+)\)/)![1]));
  });

  it("leaves no constant of format.ts unchecked", () => {
    expect(Object.keys(constants).filter((k) => !checked.has(k))).toEqual([]);
  });
});
