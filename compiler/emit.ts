// Stage 5: Plan -> the bytes of docs/bytecode.md. Layout only: every decision about what
// the code says was made by optimize.ts. Same plan, same bytes.
import { createHash } from "node:crypto";
import {
  DIR_ENTRY_SIZE, FORMAT_VERSION, HASH_OFFSET, HEADER_SIZE, MAGIC, NONE, OP_DECIDE, SEC_CLASSES,
  SEC_BUDGETS, SEC_CLASSIFY, SEC_GLOB_INDEX, SEC_CODE, SEC_INTENT, SEC_RULES, SEC_SETS, SEC_SETTINGS, SEC_STRINGS, SEC_TOOLS,
  SET_MAX_ARGS_BYTES, SET_MAX_INTENT_BYTES, SET_MAX_JSON_DEPTH, SET_MAX_LEAVES, SET_MAX_SESSIONS,
  SET_MAX_SHELL_DEPTH, SET_MAX_TARGETS, SET_POLICY_NAME, SET_SHELL_NETWORK, SET_SHELL_SHELLS,
  SET_SANDBOX_CAPABILITIES, SET_SANDBOX_HIDE, SET_SANDBOX_READ_ONLY, SET_SANDBOX_ENV, SET_SANDBOX_HOSTS, SET_SANDBOX_RULES,
  SET_SHELL_WRAPPERS, SET_SHELL_PROGRAMS, SET_FAIL_OPEN, SETKIND_HASH, SETKIND_KEYS, SECTION_COUNT,
} from "../bytecode/format";
import { formatPos } from "./diagnostic";
import { fnv1a, globIndexWords } from "./globindex";
import { EFFECT_CODES, type Operand, type Plan, type SetPlan } from "./optimize";

const utf8 = new TextEncoder();

export interface Emitted {
  bytes: Uint8Array;
  /** SHA-256 of the file with its hash field zeroed, in hex: the value stored in the header. */
  hash: string;
}

export function emit(plan: Plan): Emitted {
  const strings = new StringTable();
  // Built in kind order so that strings are interned in one fixed order.
  const sets = setsSection(plan.sets, strings);
  const tools = toolsSection(plan, strings);
  const code = codeSection(plan, strings);
  const sections = new Map<number, Uint8Array>([
    [SEC_SETS, sets],
    [SEC_TOOLS, tools],
    [SEC_CLASSES, classesSection(plan, code.ranges, strings)],
    [SEC_RULES, rulesSection(plan, strings)],
    [SEC_CODE, code.bytes],
    [SEC_CLASSIFY, classifySection(plan)],
    [SEC_INTENT, intentSection(plan)],
    [SEC_SETTINGS, settingsSection(plan, strings)],
    [SEC_BUDGETS, budgetsSection(plan, strings)],
    [SEC_GLOB_INDEX, wordsSection(globIndexWords(plan))],
  ]);
  sections.set(SEC_STRINGS, strings.section());
  return assemble(sections);
}

/** Smallest power of two that keeps the table at most three-quarters full (and so above the
 *  member count): sets are most of a policy's bytes, and the shipped policy's decisions probed
 *  little more than at two-thirds full (424,139 vs 420,432 fuel on the benchmark's mix, 3% more
 *  to bind its intent) in 9,008 fewer bytes, which pay for the glob index (§3.6). */
function bucketCount(members: number): number {
  let buckets = 1;
  while (4 * members > 3 * buckets || buckets <= members) buckets *= 2;
  return buckets;
}

class StringTable {
  private readonly index = new Map<string, number>();
  private readonly encoded: Uint8Array[] = [];

  intern(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.encoded.length;
      this.index.set(s, i);
      this.encoded.push(utf8.encode(s));
    }
    return i;
  }

  bytesOf(i: number): Uint8Array {
    return this.encoded[i];
  }

  // count, offsets[count+1] relative to the blob, then the blob.
  section(): Uint8Array {
    const w = new Writer();
    w.u32(this.encoded.length);
    let offset = 0;
    w.u32(0);
    for (const s of this.encoded) w.u32((offset += s.length));
    for (const s of this.encoded) w.bytes(s);
    return w.finish();
  }
}

class Writer {
  private buf = new Uint8Array(256);
  private view = new DataView(this.buf.buffer);
  length = 0;

  private reserve(n: number): number {
    if (this.length + n > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
      grown.set(this.buf);
      this.buf = grown;
      this.view = new DataView(grown.buffer);
    }
    const at = this.length;
    this.length += n;
    return at;
  }

  u8(v: number): void {
    const at = this.reserve(1); // may replace this.buf
    this.buf[at] = v;
  }

  u32(v: number): void {
    const at = this.reserve(4); // may replace this.view
    this.view.setUint32(at, v >>> 0, true);
  }

  bytes(b: Uint8Array): void {
    const at = this.reserve(b.length); // may replace this.buf
    this.buf.set(b, at);
  }

  align4(): void {
    while (this.length % 4 !== 0) this.u8(0);
  }

  setU16(at: number, v: number): void {
    this.view.setUint16(at, v, true);
  }

  setU32(at: number, v: number): void {
    this.view.setUint32(at, v >>> 0, true);
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

function wordsSection(words: number[]): Uint8Array {
  const w = new Writer();
  for (const word of words) w.u32(word);
  return w.finish();
}

// count, set_offset[count] relative to the section, then each set (§4).
function setsSection(sets: SetPlan[], strings: StringTable): Uint8Array {
  const w = new Writer();
  w.u32(sets.length);
  const offsetsAt = w.length;
  for (let i = 0; i < sets.length; i++) w.u32(0);
  sets.forEach((set, i) => {
    w.setU32(offsetsAt + 4 * i, w.length);
    w.u8(set.kind);
    w.u8(0);
    w.u8(0);
    w.u8(0);
    w.u32(set.members.length);
    if (set.kind === SETKIND_HASH || set.kind === SETKIND_KEYS) {
      for (const word of hashBuckets(set, strings)) w.u32(word);
    } else {
      w.u32(0);
      for (const [key, value] of set.members) {
        w.u32(strings.intern(key));
        w.u32(value);
      }
    }
  });
  return w.finish();
}

// bucket_count, then the buckets as (key+1, value) words (HASH) or key+1 words (KEYS);
// FNV-1a, then linear probing.
function hashBuckets(set: SetPlan, strings: StringTable): Uint32Array {
  const buckets = bucketCount(set.members.length);
  const mask = buckets - 1;
  const stride = set.kind === SETKIND_HASH ? 2 : 1;
  const words = new Uint32Array(1 + stride * buckets);
  words[0] = buckets;
  for (const [key, value] of set.members) {
    const k = strings.intern(key);
    let b = fnv1a(strings.bytesOf(k)) & mask;
    while (words[1 + stride * b] !== 0) b = (b + 1) & mask;
    words[1 + stride * b] = k + 1;
    if (stride === 2) words[2 + stride * b] = value;
  }
  return words;
}

function toolsSection({ ir, tables }: Plan, strings: StringTable): Uint8Array {
  const w = new Writer();
  w.u32(tables.exactTools);
  w.u32(tables.globTools);
  w.u32(ir.tools.length);
  let roleStart = 0;
  for (const tool of ir.tools) {
    w.u32(tool.class);
    w.u32(roleStart);
    w.u32(tool.roles.length);
    w.u32(tool.flags);
    roleStart += tool.roles.length;
  }
  w.u32(roleStart);
  for (const tool of ir.tools) {
    for (const { argPath, role } of tool.roles) {
      w.u32(strings.intern(argPath));
      w.u32(role);
    }
  }
  return w.finish();
}

interface CodeRange {
  start: number;
  length: number;
}

// Per class: each rule's tests jump to the next rule's first instruction when they fail;
// each rule ends in its DECIDE, and the class in DECIDE NONE with the class default.
function codeSection({ ir, classes }: Plan, strings: StringTable): { bytes: Uint8Array; ranges: CodeRange[] } {
  const w = new Writer();
  w.u32(0);
  let count = 0;
  const instruction = (op: number, subject: number, flags: number, arg: number, operand: number, jump: number) => {
    w.u8(op);
    w.u8(subject);
    w.u8(flags);
    w.u8(0);
    w.u32(arg);
    w.u32(operand);
    const jumpAt = w.length;
    w.u32(jump);
    count++;
    return jumpAt;
  };
  const ranges = classes.map((cls) => {
    const start = count;
    for (const { rule, tests } of cls.rules) {
      const jumps = tests.map((t) => {
        const arg = t.arg === null ? NONE : strings.intern(t.arg);
        return instruction(t.op, t.subject, t.flags, arg, operandValue(t.operand, strings), 0);
      });
      instruction(OP_DECIDE, 0, EFFECT_CODES[ir.rules[rule].effect], NONE, rule, 0);
      for (const at of jumps) w.setU32(at, count);
    }
    instruction(OP_DECIDE, 0, cls.defaultEffect, NONE, NONE, 0);
    return { start, length: count - start };
  });
  w.setU32(0, count);
  return { bytes: w.finish(), ranges };
}

function operandValue(operand: Operand, strings: StringTable): number {
  if ("string" in operand) return strings.intern(operand.string);
  if ("set" in operand) return operand.set;
  return operand.number;
}

function classesSection({ ir }: Plan, ranges: CodeRange[], strings: StringTable): Uint8Array {
  const w = new Writer();
  w.u32(ir.classes.length);
  ir.classes.forEach((cls, c) => {
    w.u32(strings.intern(cls.capability));
    w.u32(strings.intern(cls.risk));
    w.u32(ranges[c].start);
    w.u32(ranges[c].length);
  });
  return w.finish();
}

function rulesSection({ ir }: Plan, strings: StringTable): Uint8Array {
  const w = new Writer();
  w.u32(ir.rules.length);
  for (const rule of ir.rules) {
    w.u32(strings.intern(rule.id));
    w.u32(EFFECT_CODES[rule.effect]);
    w.u32(strings.intern(rule.reason));
    w.u32(rule.message === null ? NONE : strings.intern(rule.message));
    w.u32(strings.intern(formatPos(rule.at)));
  }
  return w.finish();
}

function classifySection({ ir, tables }: Plan): Uint8Array {
  const w = new Writer();
  w.u32(tables.classifyWords);
  w.u32(ir.classify.entryClasses.length);
  ir.classify.entryClasses.forEach((c, e) => {
    w.u32(c);
    w.u32(ir.classify.entryFlags[e]);
    w.u32(ir.classify.entryRoles[e]);
  });
  w.u32(tables.argRoles);
  w.u32(tables.trustedServers);
  w.u32(tables.exposureArgs);
  w.u32(tables.exposureWords);
  return w.finish();
}

function intentSection({ ir, tables }: Plan): Uint8Array {
  const w = new Writer();
  w.u32(tables.negations);
  w.u32(tables.nothingWords);
  w.u32(tables.fileExtensions);
  w.u32(tables.intentWords);
  w.u32(tables.negationCancels);
  w.u32(ir.intent.verbs.length);
  let classStart = 0;
  for (const verb of ir.intent.verbs) {
    w.u32(classStart);
    w.u32(verb.classes.length);
    classStart += verb.classes.length;
  }
  w.u32(classStart);
  for (const verb of ir.intent.verbs) for (const c of verb.classes) w.u32(c);
  w.u32(ir.intent.deriveFrom.length);
  for (const c of ir.intent.deriveFrom) w.u32(c);
  w.u32(ir.intent.recordsFrom.length);
  for (const c of ir.intent.recordsFrom) w.u32(c);
  w.u32(ir.intent.ownRecordsFrom.length);
  for (const c of ir.intent.ownRecordsFrom) w.u32(c);
  w.u32(tables.grammar);
  w.u32(tables.actionTools);
  w.u32(tables.actionVerbs);
  return w.finish();
}

function settingsSection({ ir, tables }: Plan, strings: StringTable): Uint8Array {
  const { limits } = ir;
  const entries: Array<[number, number]> = [
    [SET_POLICY_NAME, strings.intern(ir.name)],
    [SET_MAX_ARGS_BYTES, limits.maxArgsBytes],
    [SET_MAX_JSON_DEPTH, limits.maxJsonDepth],
    [SET_MAX_LEAVES, limits.maxLeaves],
    [SET_MAX_TARGETS, limits.maxTargets],
    [SET_MAX_INTENT_BYTES, limits.maxIntentBytes],
    [SET_MAX_SESSIONS, limits.maxSessions],
    [SET_SHELL_WRAPPERS, tables.shellWrappers],
    [SET_SHELL_NETWORK, tables.shellNetwork],
    [SET_SHELL_SHELLS, tables.shellShells],
    [SET_MAX_SHELL_DEPTH, ir.shell.maxDepth],
    [SET_FAIL_OPEN, tables.failOpen],
    [SET_SHELL_PROGRAMS, tables.shellPrograms],
    [SET_SANDBOX_CAPABILITIES, tables.sandboxCapabilities],
    [SET_SANDBOX_HIDE, tables.sandboxHide],
    [SET_SANDBOX_READ_ONLY, tables.sandboxReadOnly],
    [SET_SANDBOX_ENV, tables.sandboxEnv],
    [SET_SANDBOX_HOSTS, tables.sandboxHosts],
    [SET_SANDBOX_RULES, tables.sandboxRules],
  ];
  entries.sort(([a], [b]) => a - b);
  const w = new Writer();
  w.u32(entries.length);
  for (const [key, value] of entries) {
    w.u32(key);
    w.u32(value);
  }
  return w.finish();
}

// count, budgets × (id, limit, source, amount, scope), then per class its budget indices as ranges (§3.2).
function budgetsSection({ ir }: Plan, strings: StringTable): Uint8Array {
  const w = new Writer();
  w.u32(ir.budgets.length);
  for (const budget of ir.budgets) {
    w.u32(strings.intern(budget.id));
    w.u32(budget.limit);
    w.u32(strings.intern(formatPos(budget.at)));
    w.u32(budget.amount === null ? NONE : strings.intern(budget.amount));
    w.u32(budget.scope);
  }
  const perClass = ir.classes.map((_, c) => ir.budgets.flatMap((b, i) => (b.classes.includes(c) ? [i] : [])));
  w.u32(perClass.length);
  let start = 0;
  for (const members of perClass) {
    w.u32(start);
    w.u32(members.length);
    start += members.length;
  }
  w.u32(start);
  for (const members of perClass) for (const b of members) w.u32(b);
  return w.finish();
}

// Header fields of §2 besides the hash.
const VERSION_OFFSET = 4;
const TOTAL_LENGTH_OFFSET = 8;
const SECTION_COUNT_OFFSET = 12;

// Header, directory in kind order, sections 4-byte aligned, then the hash over the whole
// file with the hash field still zero.
function assemble(sections: Map<number, Uint8Array>): Emitted {
  const w = new Writer();
  w.bytes(new Uint8Array(HEADER_SIZE + SECTION_COUNT * DIR_ENTRY_SIZE));
  w.setU32(0, MAGIC);
  w.setU16(VERSION_OFFSET, FORMAT_VERSION); // the u16 flags after it stay 0
  w.setU32(SECTION_COUNT_OFFSET, SECTION_COUNT);
  for (let kind = 1; kind <= SECTION_COUNT; kind++) {
    const body = sections.get(kind)!;
    w.align4();
    const entry = HEADER_SIZE + (kind - 1) * DIR_ENTRY_SIZE;
    w.setU32(entry, kind);
    w.setU32(entry + 4, w.length);
    w.setU32(entry + 8, body.length);
    w.bytes(body);
  }
  w.setU32(TOTAL_LENGTH_OFFSET, w.length);
  const bytes = w.finish();
  const digest = createHash("sha256").update(bytes).digest();
  bytes.set(digest, HASH_OFFSET);
  return { bytes, hash: digest.toString("hex") };
}
