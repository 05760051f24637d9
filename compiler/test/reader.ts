// A reader of .afb files written from docs/bytecode.md alone, for tests: it checks the
// emitter against the spec rather than against itself.
import { SETKIND_HASH, SETKIND_KEYS, SETKIND_LIST } from "../../bytecode/format";

export interface Section {
  kind: number;
  offset: number;
  length: number;
}

export interface AfbSet {
  kind: number;
  memberCount: number;
  bucketCount: number;
  /** HASH: bucket_count (key+1, value) pairs; LIST: member_count (key, value) pairs. */
  slots: Array<[number, number]>;
}

export interface Instruction {
  op: number;
  subject: number;
  flags: number;
  zero: number;
  arg: number;
  operand: number;
  jump: number;
}

export interface Afb {
  magic: number;
  version: number;
  flags: number;
  totalLength: number;
  storedHash: Uint8Array;
  sections: Section[];
  strings: string[];
  sets: AfbSet[];
  tools: {
    exactMap: number;
    globList: number;
    tools: Array<{ class: number; roleStart: number; roleCount: number; flags: number }>;
    roles: Array<{ argPath: number; role: number }>;
  };
  classes: Array<{ capability: number; risk: number; codeStart: number; codeLen: number }>;
  rules: Array<{ id: number; effect: number; reason: number; message: number; source: number }>;
  code: Instruction[];
  classify: { wordMap: number; entries: number[]; flags: number[]; roles: number[]; roleMap: number; trusted: number };
  intent: {
    negations: number;
    nothingWords: number;
    fileExtensions: number;
    verbMap: number;
    negationCancels: number;
    verbs: Array<{ classStart: number; classCount: number }>;
    classes: number[];
    deriveFrom: number[];
    recordsFrom: number[];
    ownRecordsFrom: number[];
  };
  settings: Array<[number, number]>;
  budgets: {
    budgets: Array<{ id: number; limit: number; source: number; amount: number; scope: number }>;
    classes: Array<{ start: number; count: number }>;
    members: number[];
  };
}

export function fnv1aSpec(text: string): number {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(text)) h = Number((BigInt(h ^ b) * 0x01000193n) % 2n ** 32n);
  return h >>> 0;
}

export function readAfb(bytes: Uint8Array): Afb {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u32 = (at: number) => view.getUint32(at, true);
  const sectionCount = u32(12);
  const sections: Section[] = [];
  for (let i = 0; i < sectionCount; i++) {
    const at = 48 + 12 * i;
    sections.push({ kind: u32(at), offset: u32(at + 4), length: u32(at + 8) });
  }
  const start = (kind: number) => sections.find((s) => s.kind === kind)!.offset;
  // A cursor over u32 words from a section's start.
  const cursor = (kind: number) => {
    let at = start(kind);
    return () => {
      const v = u32(at);
      at += 4;
      return v;
    };
  };
  const times = <T>(n: number, f: () => T): T[] => Array.from({ length: n }, f);

  const s1 = start(1);
  const stringCount = u32(s1);
  const offsets = times(stringCount + 1, () => 0).map((_, i) => u32(s1 + 4 + 4 * i));
  const blob = s1 + 4 + 4 * (stringCount + 1);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const strings = times(stringCount, () => "").map((_, i) => decoder.decode(bytes.slice(blob + offsets[i], blob + offsets[i + 1])));

  const s2 = start(2);
  const sets = times(u32(s2), () => 0).map((_, i): AfbSet => {
    const at = s2 + u32(s2 + 4 + 4 * i);
    const kind = bytes[at];
    const memberCount = u32(at + 4);
    const bucketCount = u32(at + 8);
    const n = kind === SETKIND_HASH || kind === SETKIND_KEYS ? bucketCount : memberCount;
    // KEYS buckets hold key+1 alone: their values read as 0.
    const slots = times(n, () => 0).map((_, j): [number, number] =>
      kind === SETKIND_KEYS ? [u32(at + 12 + 4 * j), 0] : [u32(at + 12 + 8 * j), u32(at + 16 + 8 * j)]);
    return { kind, memberCount, bucketCount, slots };
  });

  const t = cursor(3);
  const exactMap = t();
  const globList = t();
  const tools = times(t(), () => ({ class: t(), roleStart: t(), roleCount: t(), flags: t() }));
  const roles = times(t(), () => ({ argPath: t(), role: t() }));

  const c = cursor(4);
  const classes = times(c(), () => ({ capability: c(), risk: c(), codeStart: c(), codeLen: c() }));
  const r = cursor(5);
  const rules = times(r(), () => ({ id: r(), effect: r(), reason: r(), message: r(), source: r() }));

  const s6 = start(6);
  const code = times(u32(s6), () => 0).map((_, i): Instruction => {
    const at = s6 + 4 + 16 * i;
    return { op: bytes[at], subject: bytes[at + 1], flags: bytes[at + 2], zero: bytes[at + 3], arg: u32(at + 4), operand: u32(at + 8), jump: u32(at + 12) };
  });

  const k = cursor(7);
  const wordMap = k();
  const entryTriples = times(k(), () => [k(), k(), k()]);
  const entries = entryTriples.map(([c]) => c);
  const entryFlags = entryTriples.map(([, f]) => f);
  const entryRoles = entryTriples.map(([, , r]) => r);
  const roleMap = k();
  const trusted = k();

  const n = cursor(8);
  const negations = n();
  const nothingWords = n();
  const fileExtensions = n();
  const verbMap = n();
  const negationCancels = n();
  const verbs = times(n(), () => ({ classStart: n(), classCount: n() }));
  const intentClasses = times(n(), n);
  const deriveFrom = times(n(), n);
  const recordsFrom = times(n(), n);
  const ownRecordsFrom = times(n(), n);

  const g = cursor(9);
  const settings = times(g(), (): [number, number] => [g(), g()]);

  const b = cursor(10);
  const budgetList = times(b(), () => ({ id: b(), limit: b(), source: b(), amount: b(), scope: b() }));
  const budgetClasses = times(b(), () => ({ start: b(), count: b() }));
  const budgetMembers = times(b(), b);

  return {
    magic: u32(0),
    version: view.getUint16(4, true),
    flags: view.getUint16(6, true),
    totalLength: u32(8),
    storedHash: bytes.slice(16, 48),
    sections,
    strings,
    sets,
    tools: { exactMap, globList, tools, roles },
    classes,
    rules,
    code,
    classify: { wordMap, entries, flags: entryFlags, roles: entryRoles, roleMap, trusted },
    intent: { negations, nothingWords, fileExtensions, verbMap, negationCancels, verbs, classes: intentClasses, deriveFrom, recordsFrom, ownRecordsFrom },
    settings,
    budgets: { budgets: budgetList, classes: budgetClasses, members: budgetMembers },
  };
}

/** HASH and KEYS lookup exactly as §4 describes it: the member's value, or undefined. */
export function hashLookup(afb: Afb, setIndex: number, key: string): number | undefined {
  const set = afb.sets[setIndex];
  const mask = set.bucketCount - 1;
  let b = fnv1aSpec(key) & mask;
  for (let probes = 0; probes < set.bucketCount; probes++) {
    const [key1, value] = set.slots[b];
    if (key1 === 0) return undefined;
    if (afb.strings[key1 - 1] === key) return value;
    b = (b + 1) & mask;
  }
  return undefined;
}

/** The members of a set as (key, value) pairs: LIST in order, HASH and KEYS in bucket order. */
export function members(afb: Afb, setIndex: number): Array<[string, number]> {
  const set = afb.sets[setIndex];
  const full = set.kind !== SETKIND_LIST ? set.slots.filter(([k]) => k !== 0).map(([k, v]): [number, number] => [k - 1, v]) : set.slots;
  return full.map(([k, v]) => [afb.strings[k], v]);
}

export function setting(afb: Afb, key: number): number {
  return afb.settings.find(([k]) => k === key)![1];
}
