// The GLOB_INDEX section (docs/bytecode.md §3.6): for each LIST set a TEST_GLOB names, and the
// sandbox's path lists, every member filed under one key that each value it holds for must have
// (a literal segment, or the head or tail of the file name), so a lookup reads the keys of its
// value and tries only the members filed under them, not the whole list.
import { GLOB_KEY_MAX, OP_TEST_GLOB } from "../bytecode/format";
import type { Plan } from "./optimize";

const utf8 = new TextEncoder();

export function fnv1a(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}

const wild = (b: number) => b === 0x2a || b === 0x3f;

type Entry = [hash: number, member: number];

interface SetIndex {
  segments: Entry[];
  heads: Entry[];
  tails: Entry[];
  rest: number[];
  /** Bit L-1 set for a key of L bytes (a segment of 32 or more: bit 31). */
  segmentLengths: number;
  headLengths: number;
  tailLengths: number;
}

/** The key a pattern is filed under: the longest wildcard-free segment between two '/' (or an
 *  end of the pattern), else the longer of its file name's literal head and tail (at most
 *  GLOB_KEY_MAX bytes of each), else none. A pattern in a constant's form (`~`, `$HERMES_HOME`,
 *  `.`) matches through its absolute forms and is filed under none. */
export function globKey(pattern: string): { kind: "segment" | "head" | "tail"; key: Uint8Array } | null {
  if (/^[~$.]/.test(pattern)) return null;
  const bytes = utf8.encode(pattern);
  const parts: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x2f) {
      parts.push(bytes.subarray(start, i));
      start = i + 1;
    }
  }
  const isLiteral = (part: Uint8Array) => part.length > 0 && !part.some(wild);
  let best: Uint8Array | null = null;
  for (const part of parts) if (isLiteral(part) && (best === null || part.length >= best.length)) best = part;
  if (best !== null) return { kind: "segment", key: best };
  const name = parts[parts.length - 1];
  if (name.some((b, i) => b === 0x2a && name[i + 1] === 0x2a)) return null; // `**` may hold a '/'
  let first = 0;
  while (first < name.length && !wild(name[first])) first++;
  let last = name.length;
  while (last > 0 && !wild(name[last - 1])) last--;
  // A name with no wildcard is a literal segment, filed above (or empty: no key).
  const head = name.subarray(0, first);
  const tail = name.subarray(last);
  if (head.length === 0 && tail.length === 0) return null;
  if (tail.length >= head.length) return { kind: "tail", key: tail.subarray(Math.max(0, tail.length - GLOB_KEY_MAX)) };
  return { kind: "head", key: head.subarray(0, GLOB_KEY_MAX) };
}

function indexOf(members: Array<[string, number]>): SetIndex {
  const index: SetIndex = { segments: [], heads: [], tails: [], rest: [], segmentLengths: 0, headLengths: 0, tailLengths: 0 };
  members.forEach(([pattern], member) => {
    const found = globKey(pattern);
    if (found === null) {
      index.rest.push(member);
    } else if (found.kind === "segment") {
      index.segments.push([fnv1a(found.key), member]);
      index.segmentLengths |= 1 << (Math.min(found.key.length, GLOB_KEY_MAX) - 1);
    } else if (found.kind === "head") {
      index.heads.push([fnv1a(found.key), member]);
      index.headLengths |= 1 << (found.key.length - 1);
    } else {
      index.tails.push([fnv1a(found.key), member]);
      index.tailLengths |= 1 << (found.key.length - 1);
    }
  });
  const byHash = (a: Entry, b: Entry) => a[0] - b[0] || a[1] - b[1];
  index.segments.sort(byHash);
  index.heads.sort(byHash);
  index.tails.sort(byHash);
  return index;
}

/** count, indices × (set, offset), then each index: segment_count, head_count, tail_count,
 *  rest_count, segment_lengths, head_lengths, tail_lengths, the three (hash, member) lists, the
 *  rest members. */
export function globIndexWords(plan: Plan): number[] {
  // The sets the evaluator walks for a value: TEST_GLOB's, and the sandbox's path lists.
  const globSets = new Set<number>([plan.tables.sandboxHide, plan.tables.sandboxReadOnly]);
  for (const cls of plan.classes) {
    for (const { tests } of cls.rules) {
      for (const t of tests) if (t.op === OP_TEST_GLOB && "set" in t.operand) globSets.add(t.operand.set);
    }
  }
  const sets = [...globSets].filter((set) => plan.sets[set].members.length > 0).sort((a, b) => a - b);
  const words: number[] = [sets.length];
  const offsetsAt = words.length;
  for (const set of sets) words.push(set, 0);
  sets.forEach((set, i) => {
    words[offsetsAt + 2 * i + 1] = 4 * words.length;
    const index = indexOf(plan.sets[set].members);
    words.push(index.segments.length, index.heads.length, index.tails.length, index.rest.length,
      index.segmentLengths >>> 0, index.headLengths >>> 0, index.tailLengths >>> 0);
    for (const list of [index.segments, index.heads, index.tails]) for (const [hash, member] of list) words.push(hash, member);
    words.push(...index.rest);
  });
  return words;
}
