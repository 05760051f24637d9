// The emitter against docs/bytecode.md, read back by a reader written from the spec.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  EFFECT_ALLOW, EFFECT_ASK, EFFECT_BLOCK, EFFECT_CONFINE, FLAG_ALL, FLAG_NEGATE, FORMAT_VERSION, HASH_OFFSET, MAGIC, NONE,
  OP_DECIDE, OP_TEST_DOMAIN, OP_TEST_EQUALS, OP_TEST_GLOB, OP_TEST_IN, OP_TEST_IN_INTENT, OP_TEST_IN_DERIVED, OP_TEST_PRESENT,
  SECTION_COUNT, SET_MAX_LEAVES, SET_MAX_SHELL_DEPTH, SET_POLICY_NAME, SET_SHELL_WRAPPERS, SET_FAIL_OPEN, SETKIND_HASH, SETKIND_KEYS,
  SETKIND_LIST, SETTINGS_COUNT, SUBJ_ARG, SUBJ_EMAIL, SUBJ_PROGRAM, SUBJ_TOOL, SUBJ_URL,
} from "../../bytecode/format";
import { compilePolicy, formatDiagnostic } from "../index";
import { hashLookup, members, readAfb, setting, type Afb } from "./reader";

const BASIC = "compiler/test/fixtures/basic.yaml";

function compileOk(inputs: Array<{ path: string; text?: string }>) {
  const result = compilePolicy(inputs);
  if (!result.ok) throw new Error(result.errors.map(formatDiagnostic).join("\n"));
  return result;
}

const basic = compileOk([{ path: BASIC }]);
const afb = readAfb(basic.bytes);
const str = (i: number) => afb.strings[i];
const ruleIndex = (id: string) => afb.rules.findIndex((r) => str(r.id) === id);
const classIndex = (capability: string) => afb.classes.findIndex((c) => str(c.capability) === capability);
const classCode = (a: Afb, c: number) => a.code.slice(a.classes[c].codeStart, a.classes[c].codeStart + a.classes[c].codeLen);
/** The tests of rule `id` as emitted in class `c`. */
function testsOf(c: number, id: string) {
  const code = classCode(afb, c);
  const end = code.findIndex((insn) => insn.op === OP_DECIDE && insn.operand === ruleIndex(id));
  let start = end;
  while (start > 0 && code[start - 1].op !== OP_DECIDE) start--;
  return code.slice(start, end);
}

describe("header and layout", () => {
  it("writes the header of §2", () => {
    expect(Buffer.from(basic.bytes.slice(0, 4)).toString("latin1")).toBe("AFBC");
    expect(afb.magic).toBe(MAGIC);
    expect(afb.version).toBe(FORMAT_VERSION);
    expect(afb.flags).toBe(0);
    expect(afb.totalLength).toBe(basic.bytes.length);
    expect(afb.sections.map((s) => s.kind)).toEqual(Array.from({ length: SECTION_COUNT }, (_, i) => i + 1));
  });

  it("stores the SHA-256 of the file with the hash field zeroed", () => {
    const zeroed = basic.bytes.slice();
    zeroed.fill(0, HASH_OFFSET, HASH_OFFSET + 32);
    const digest = createHash("sha256").update(zeroed).digest("hex");
    expect(Buffer.from(afb.storedHash).toString("hex")).toBe(digest);
    expect(basic.hash).toBe(digest);
  });

  it("aligns sections to 4 bytes, in order, without overlap, inside the file", () => {
    let end = 48 + 12 * SECTION_COUNT;
    for (const s of afb.sections) {
      expect(s.offset % 4).toBe(0);
      expect(s.offset).toBeGreaterThanOrEqual(end);
      end = s.offset + s.length;
    }
    expect(end).toBeLessThanOrEqual(basic.bytes.length);
  });

  it("gives each section exactly the length its counts say", () => {
    const length = (kind: number) => afb.sections[kind - 1].length;
    expect(length(4)).toBe(4 + 16 * afb.classes.length);
    expect(length(5)).toBe(4 + 20 * afb.rules.length);
    expect(length(6)).toBe(4 + 16 * afb.code.length);
    expect(length(3)).toBe(16 + 16 * afb.tools.tools.length + 8 * afb.tools.roles.length);
    expect(length(9)).toBe(4 + 8 * SETTINGS_COUNT);
  });

  it("is deterministic: the same input gives the same bytes", () => {
    const again = compileOk([{ path: BASIC }]);
    expect(Buffer.from(again.bytes).equals(Buffer.from(basic.bytes))).toBe(true);
  });
});

describe("sets", () => {
  it("finds every HASH and KEYS member by FNV-1a and linear probing", () => {
    const hashSets = afb.sets.map((s, i) => [s, i] as const).filter(([s]) => s.kind === SETKIND_HASH || s.kind === SETKIND_KEYS);
    expect(hashSets.filter(([s]) => s.kind === SETKIND_HASH).length).toBeGreaterThan(3);
    expect(hashSets.filter(([s]) => s.kind === SETKIND_KEYS).length).toBeGreaterThan(5);
    for (const [set, i] of hashSets) {
      const full = set.slots.filter(([key1]) => key1 !== 0);
      expect(full).toHaveLength(set.memberCount);
      expect(set.bucketCount & (set.bucketCount - 1)).toBe(0);
      expect(set.bucketCount).toBeGreaterThan(set.memberCount);
      expect(4 * set.memberCount).toBeLessThanOrEqual(3 * set.bucketCount); // at most three-quarters full
      for (const [key1, value] of full) expect(hashLookup(afb, i, str(key1 - 1))).toBe(value);
      expect(hashLookup(afb, i, "no-such-member")).toBeUndefined();
    }
  });

  it("keeps LIST sets in policy order with bucket_count 0", () => {
    const globs = afb.sets[afb.tools.globList];
    expect(globs.kind).toBe(SETKIND_LIST);
    expect(globs.bucketCount).toBe(0);
    const mcp = testsOf(classIndex("file.read"), "mcp-anything")[0];
    expect(members(afb, mcp.operand)).toEqual([["mcp__*", 0], ["read_file", 0]]);
  });

  it("stores identical sets once", () => {
    const text = "version: 1\nrules:\n  - id: a\n    effect: ask\n    when: {program: {in: [rm, dd]}}\n  - id: b\n    effect: block\n    when: {program: {in: [dd, rm]}}\n";
    const twoRules = readAfb(compileOk([{ path: "v/sets.yaml", text }]).bytes);
    const [b, a] = twoRules.code.filter((insn) => insn.op === OP_TEST_IN);
    expect(a.operand).toBe(b.operand);
  });
});

describe("tables", () => {
  it("maps exact tool names and MCP spellings to tools of the right class", () => {
    for (const name of ["mcp__gmail__send_email", "mcp_gmail_send_email"]) {
      const tool = hashLookup(afb, afb.tools.exactMap, name)!;
      expect(str(afb.classes[afb.tools.tools[tool].class].capability)).toBe("email.send");
      const { roleStart, roleCount } = afb.tools.tools[tool];
      expect(afb.tools.roles.slice(roleStart, roleStart + roleCount).map((r) => str(r.argPath))).toEqual(["to", "cc", "message.to"]);
    }
    expect(members(afb, afb.tools.globList)).toEqual([["browser_*", 2]]);
  });

  it("writes class 0 as unknown/unknown and the classifier and intent tables", () => {
    expect([str(afb.classes[0].capability), str(afb.classes[0].risk)]).toEqual(["unknown", "unknown"]);
    expect(afb.classify.entries).toEqual([classIndex("message.send"), classIndex("data.delete")]);
    expect(hashLookup(afb, afb.classify.wordMap, "share")).toBe(0);
    expect(hashLookup(afb, afb.classify.roleMap, "to")).toBe(1);
    const verb = hashLookup(afb, afb.intent.verbMap, "email")!;
    const { classStart, classCount } = afb.intent.verbs[verb];
    expect(afb.intent.classes.slice(classStart, classStart + classCount)).toEqual([classIndex("email.send"), classIndex("message.send")]);
    expect(hashLookup(afb, afb.intent.negations, "don't")).toBe(0);
    expect(hashLookup(afb, afb.intent.negationCancels, "forget")).toBe(0);
    expect(hashLookup(afb, afb.intent.fileExtensions, "txt")).toBe(0);
  });

  it("writes derive_from's classes and in_derived tests", () => {
    const text = [
      "version: 1",
      "tools:",
      "  - {name: read_channel, capability: chat.read, risk: read, args: {channel: recipient}}",
      "  - {name: fetch, capability: net.fetch, risk: egress, args: {url: url}}",
      "rules:",
      "  - {id: linked, effect: allow, capability: [net.fetch], when: {url: {in_derived: true}}}",
      "intent:",
      "  derive_from: [\"chat.*\"]",
      "",
    ].join("\n");
    const derived = readAfb(compileOk([{ path: "v/derive.yaml", text }]).bytes);
    const chatRead = derived.classes.findIndex((c) => derived.strings[c.capability] === "chat.read");
    expect(derived.intent.deriveFrom).toEqual([chatRead]);
    const test = derived.code.find((insn) => insn.op === OP_TEST_IN_DERIVED)!;
    expect([test.subject, test.operand, test.flags]).toEqual([SUBJ_URL, 0, FLAG_ALL]);
  });

  it("stores maps as HASH sets and sets that are only sets as KEYS", () => {
    const kind = (set: number) => afb.sets[set].kind;
    for (const map of [afb.tools.exactMap, afb.classify.wordMap, afb.classify.roleMap, afb.intent.verbMap]) expect(kind(map)).toBe(SETKIND_HASH);
    for (const set of [afb.intent.negations, afb.intent.nothingWords, afb.intent.fileExtensions, afb.intent.negationCancels, setting(afb, SET_SHELL_WRAPPERS), setting(afb, SET_FAIL_OPEN)]) {
      expect(kind(set)).toBe(SETKIND_KEYS);
    }
    for (const insn of afb.code.filter((i) => i.op === OP_TEST_IN)) expect(kind(insn.operand)).toBe(SETKIND_KEYS);
  });

  it("writes every setting once, sorted by key", () => {
    expect(afb.settings.map(([key]) => key)).toEqual(Array.from({ length: SETTINGS_COUNT }, (_, i) => i + 1));
    expect(str(setting(afb, SET_POLICY_NAME))).toBe("basic");
    expect(setting(afb, SET_MAX_LEAVES)).toBe(100);
    expect(setting(afb, SET_MAX_SHELL_DEPTH)).toBe(3);
    expect(members(afb, setting(afb, SET_SHELL_WRAPPERS))).toEqual([["sudo", 0]]);
    expect(members(afb, setting(afb, SET_FAIL_OPEN))).toEqual([]); // every class fails closed unless listed
  });

  it("writes rules with effect, reason, message or NONE, and file:line:col source", () => {
    const rule = afb.rules[ruleIndex("no-credentials")];
    expect(rule.effect).toBe(EFFECT_BLOCK);
    expect(str(rule.reason)).toBe("credential_path");
    expect(str(rule.message)).toBe("{value} holds credentials");
    expect(str(rule.source)).toBe(`${BASIC}:45:5`);
    const plain = afb.rules[ruleIndex("block-rm")];
    expect(str(plain.reason)).toBe("rule_block");
    expect(plain.message).toBe(NONE);
  });
});

describe("code", () => {
  it("ends every class in DECIDE NONE with its default, and jumps only forward to a rule start", () => {
    afb.classes.forEach((cls, c) => {
      const end = cls.codeStart + cls.codeLen;
      const last = afb.code[end - 1];
      expect(last).toMatchObject({ op: OP_DECIDE, operand: NONE });
      expect(last.flags).toBe({ allow: EFFECT_ALLOW, block: EFFECT_BLOCK, ask: EFFECT_ASK, confine: EFFECT_CONFINE }[basic.ir.classes[c].defaultEffect]);
      for (let i = cls.codeStart; i < end - 1; i++) {
        const insn = afb.code[i];
        expect(insn.zero).toBe(0);
        if (insn.op === OP_DECIDE) {
          expect(afb.rules[insn.operand].effect).toBe(insn.flags);
          continue;
        }
        expect(insn.jump).toBeGreaterThan(i);
        expect(insn.jump).toBeLessThan(end);
        expect(afb.code[insn.jump - 1].op).toBe(OP_DECIDE);
      }
    });
  });

  it("orders a class's rules block, ask, allow, each group in policy order", () => {
    const decided = classCode(afb, classIndex("email.send")).filter((i) => i.op === OP_DECIDE).map((i) => i.operand);
    expect(decided).toEqual([ruleIndex("ask-big-sends"), ruleIndex("mcp-anything"), ruleIndex("allow-named-recipients"), NONE]);
  });

  it("stops after a rule without tests, which always decides", () => {
    const code = classCode(afb, classIndex("data.delete"));
    expect(code.map((i) => [i.op, i.operand])).toEqual([[OP_DECIDE, ruleIndex("unconditional-block")], [OP_DECIDE, NONE]]);
  });

  it("turns tool selectors into EQUALS, IN or GLOB on the tool name", () => {
    const [tool, program] = testsOf(classIndex("shell.exec"), "block-rm");
    expect(tool).toMatchObject({ op: OP_TEST_EQUALS, subject: SUBJ_TOOL, arg: NONE });
    expect(str(tool.operand)).toBe("terminal");
    expect(program).toMatchObject({ op: OP_TEST_IN, subject: SUBJ_PROGRAM, flags: 0 });
    expect(testsOf(classIndex("file.read"), "mcp-anything")[0]).toMatchObject({ op: OP_TEST_GLOB, subject: SUBJ_TOOL });
    const several = readAfb(compileOk([{ path: "v/t.yaml", text: "version: 1\nrules:\n  - {id: r, effect: ask, tool: [a, b]}\n" }]).bytes);
    expect(several.code[0]).toMatchObject({ op: OP_TEST_IN, subject: SUBJ_TOOL });
    expect(members(several, several.code[0].operand).map(([k]) => k).sort()).toEqual(["a", "b"]);
  });

  it("reads allow rules with ALL, block and ask rules with ANY, and flags negation", () => {
    const [inIntent] = testsOf(classIndex("email.send"), "allow-named-recipients");
    expect(inIntent).toMatchObject({ op: OP_TEST_IN_INTENT, subject: SUBJ_EMAIL, flags: FLAG_ALL, operand: 0 });
    const [domain, present] = testsOf(classIndex("email.send"), "ask-big-sends");
    expect(domain).toMatchObject({ op: OP_TEST_DOMAIN, subject: SUBJ_EMAIL, flags: FLAG_NEGATE });
    expect(members(afb, domain.operand)).toEqual([["example.com", 0]]);
    expect(present).toMatchObject({ op: OP_TEST_PRESENT, subject: SUBJ_ARG, flags: 0, operand: 1 });
    expect(str(present.arg)).toBe("cc");
  });
});
