// Runs a class's code (docs/bytecode.md §5) over one call: its tool name, argument leaves
// (json.ts) and extracted targets (targets.ts). verify.ts has checked the code, so every run
// ends at a DECIDE within code_len steps.
import {
  OP_DECIDE, OP_TEST_PRESENT, OP_TEST_EQUALS, OP_TEST_IN, OP_TEST_GLOB, OP_TEST_PREFIX,
  OP_TEST_DOMAIN, OP_TEST_UNDER, OP_TEST_IN_INTENT, OP_TEST_GRANTED, OP_TEST_INTENT_ANY, OP_TEST_IN_DERIVED, FLAG_NEGATE, FLAG_ALL, SUBJ_TOOL, SUBJ_ARG,
} from "./format";
import {
  classCodeStart, insnOp, insnSubject, insnFlags, insnArg, insnOperand, insnJump, strPtr, strLen,
  setFind, setFindHashed, setMemberCount, listKey,
} from "./decode";
import { bytesEqual, startsWith, indexOfByte, sameBytes } from "./bytes";
import { scratchAlloc } from "./mem";
import { globMatch } from "./glob";
import { leafCount, leafPath, leafPathLen, leafValue, leafValueLen } from "./json";
import { targetCount, targetKind, targetPtr, targetLen, homePtr, homeLen } from "./targets";
import { intentHas, intentDerivedHas, intentGrants, intentNamesKind } from "./intent";

// The call being decided.
let toolName: usize = 0;
let toolNameLen: u32 = 0;
let intentStore: usize = 0;
let callClass: u32 = 0;

// The trace of the last run, kept only while `explain` asks for one: each test run (its
// instruction and whether it held), then the DECIDE reached. A run takes at most code_len
// steps; the trace keeps the first TRACE_MAX.
export const TRACE_MAX: u32 = 4096;
const traceSteps: usize = memory.data(<i32>(TRACE_MAX << 3));
let tracing = false;
export let traceCount: u32 = 0;

// Turning tracing on starts a new trace; turning it off keeps the trace for reading.
export function setTracing(on: bool): void {
  tracing = on;
  if (on) traceCount = 0;
}

export function tracePc(k: u32): u32 { return load<u32>(traceSteps + (<usize>k << 3)); }
export function traceHeld(k: u32): bool { return load<u32>(traceSteps + (<usize>k << 3) + 4) != 0; }

@inline function traceStep(pc: u32, held: bool): void {
  if (!tracing || traceCount >= TRACE_MAX) return;
  store<u32>(traceSteps + (<usize>traceCount << 3), pc);
  store<u32>(traceSteps + (<usize>traceCount << 3) + 4, held ? 1 : 0);
  traceCount++;
}

// The outcome of the last run.
export let decidedRule: u32 = 0;   // rule index, or NONE for the class default
export let witness: usize = 0;     // the value of the deciding rule's last passing per-value test
export let witnessLen: u32 = 0;
export let hasWitness = false;
export let outOfMemory = false;    // a test needed scratch memory it could not have

// The deciding rule's witness of §8.1: every value that passed one of its per-value tests, as
// (subject, ptr, len) triples in scratch memory. A failing test empties it.
let deltas: usize = 0;
let deltaCap: u32 = 0;
export let deltaCount: u32 = 0;

export function deltaSubject(k: u32): u32 { return load<u32>(deltas + <usize>k * 12); }
export function deltaPtr(k: u32): usize { return <usize>load<u32>(deltas + <usize>k * 12 + 4); }
export function deltaLen(k: u32): u32 { return load<u32>(deltas + <usize>k * 12 + 8); }

function deltaPush(subject: u32, v: i64): void {
  if (deltaCount == deltaCap) {
    const want = max<u32>(16, deltaCap << 1);
    const grown = scratchAlloc((<usize>want) * 12);
    if (grown == 0) { outOfMemory = true; return; }
    if (deltaCount > 0) memory.copy(grown, deltas, (<usize>deltaCount) * 12);
    deltas = grown;
    deltaCap = want;
  }
  const e = deltas + <usize>deltaCount * 12;
  store<u32>(e, subject);
  store<u32>(e + 4, <u32>(v >>> 32));
  store<u32>(e + 8, <u32>v);
  deltaCount++;
}

// ---- subject values ----
function valueCount(subject: u32): u32 {
  if (subject == SUBJ_TOOL) return 1;
  return subject == SUBJ_ARG ? leafCount() : targetCount();
}

// Value k of the subject, as (ptr << 32 | len); -1 when k is not a value of this subject.
function valueAt(subject: u32, arg: u32, k: u32): i64 {
  if (subject == SUBJ_TOOL) return (<i64>toolName << 32) | <i64>toolNameLen;
  if (subject == SUBJ_ARG) {
    if (!bytesEqual(leafPath(k), leafPathLen(k), strPtr(arg), strLen(arg))) return -1;
    return (<i64>leafValue(k) << 32) | <i64>leafValueLen(k);
  }
  if (targetKind(k) != subject) return -1;
  return (<i64>targetPtr(k) << 32) | <i64>targetLen(k);
}

// ---- per-value tests ----
function inList(set: u32, p: usize, len: u32, glob: bool): bool {
  const n = setMemberCount(set);
  for (let j: u32 = 0; j < n; j++) {
    const key = listKey(set, j);
    const hit = glob ? globMatch(strPtr(key), strLen(key), p, len) : startsWith(p, len, strPtr(key), strLen(key));
    if (hit) return true;
  }
  return false;
}

// The host a value names: a URL's host (no userinfo, port), an address's domain, else the value.
function hostOf(p: usize, len: u32): u64 {
  let start: u32 = 0;
  let end = len;
  let scheme = -1;
  for (let i: u32 = 0; i + 2 < len; i++) {
    const c = <u32>load<u8>(p + i);
    if (c == 0x3a && load<u8>(p + i + 1) == 0x2f && load<u8>(p + i + 2) == 0x2f) { scheme = <i32>i; break; }
    if (c == 0x2f || c == 0x40) break;
  }
  if (scheme >= 0) {
    start = <u32>scheme + 3;
    for (let i = start; i < len; i++) {
      const c = <u32>load<u8>(p + i);
      if (c == 0x2f || c == 0x3f || c == 0x23) { end = i; break; }
    }
    for (let i = start; i < end; i++) if (load<u8>(p + i) == 0x40) start = i + 1;
    if (start < end && load<u8>(p + start) == 0x5b) {
      const close = indexOfByte(p, end, 0x5d, start);
      if (close >= 0) end = <u32>close + 1;
    } else {
      const colon = indexOfByte(p, end, 0x3a, start);
      if (colon >= 0) end = <u32>colon;
    }
  } else {
    for (let i: u32 = 1; i < len; i++) if (load<u8>(p + i) == 0x40) start = i + 1;
  }
  if (end > start && load<u8>(p + end - 1) == 0x2e) end--;
  return ((<u64>(p + start)) << 32) | <u64>(end - start);
}

// The value's host, or a parent domain of it, is in KEYS set `set`.
function domainIn(set: u32, p: usize, len: u32): bool {
  const host = hostOf(p, len);
  const h = <usize>(host >>> 32), n = <u32>host;
  if (n == 0) return false;
  if (setFind(set, h, n) >= 0) return true;
  for (let i: u32 = 0; i < n; i++) {
    if (load<u8>(h + i) == 0x2e && i + 1 < n && setFind(set, h + i + 1, n - i - 1) >= 0) return true;
  }
  return false;
}

// [p, p+len) or one of its ancestors ("/a/b" -> "/a" -> "/", "~/a" -> "~") is in `set`. The
// prefixes' hashes grow in one pass over the path, so a deep path costs one hash, not one a level.
function pathOrAncestorIn(set: u32, p: usize, len: u32): bool {
  let h: u32 = 0x811c9dc5;
  for (let i: u32 = 0; i < len; i++) {
    const c = <u32>load<u8>(p + i);
    h = (h ^ c) * 0x01000193;
    // An ancestor ends before a '/' (the root "/" is its own first byte); the path at the end.
    const ends = i + 1 == len || load<u8>(p + i + 1) == 0x2f || (i == 0 && c == 0x2f);
    if (ends && setFindHashed(set, p, i + 1, h) >= 0) return true;
  }
  return false;
}

// A path is under a member of KEYS set `set`: in its absolute form, and, below home, its `~` form.
function underIn(set: u32, p: usize, len: u32): bool {
  if (pathOrAncestorIn(set, p, len)) return true;
  const h = homePtr(), hl = homeLen();
  if (hl == 0 || len == 0) return false;
  let rest: u32;
  if (hl == 1 && load<u8>(h) == 0x2f) rest = len == 1 ? 1 : 0; // home "/": every absolute path
  else if (len == hl && sameBytes(p, h, hl)) rest = len;
  else if (len > hl && sameBytes(p, h, hl) && load<u8>(p + hl) == 0x2f) rest = hl;
  else return false;
  if (load<u8>(p) != 0x2f) return false;
  const n = 1 + len - rest;
  const tilde = scratchAlloc(n);
  if (tilde == 0) { outOfMemory = true; return false; }
  store<u8>(tilde, 0x7e);
  memory.copy(tilde + 1, p + rest, len - rest);
  return pathOrAncestorIn(set, tilde, n);
}

function valueTest(op: u32, subject: u32, operand: u32, p: usize, len: u32): bool {
  switch (op) {
    case OP_TEST_EQUALS: return bytesEqual(p, len, strPtr(operand), strLen(operand));
    case OP_TEST_IN: return setFind(operand, p, len) >= 0;
    case OP_TEST_GLOB: return inList(operand, p, len, true);
    case OP_TEST_PREFIX: return inList(operand, p, len, false);
    case OP_TEST_DOMAIN: return domainIn(operand, p, len);
    case OP_TEST_UNDER: return underIn(operand, p, len);
    case OP_TEST_IN_INTENT: return intentStore != 0 && intentHas(intentStore, subject, p, len);
    case OP_TEST_IN_DERIVED: return intentStore != 0 && intentDerivedHas(intentStore, subject, p, len);
    case OP_TEST_GRANTED: return intentGrants(intentStore, callClass); // of the call's class, whatever the tool's name
  }
  return false;
}

// Whether instruction pc holds (§5: ANY/ALL quantifiers, NEGATE per value, PRESENT as a whole).
// A passing ANY test makes its first passing value the witness, a passing ALL test its first
// value; either adds every value that passed to the deltas (so an ANY test reads them all).
function holds(pc: u32): bool {
  const op = insnOp(pc), subject = insnSubject(pc), flags = insnFlags(pc);
  const arg = insnArg(pc), operand = insnOperand(pc);
  const negate = (flags & FLAG_NEGATE) != 0;
  const all = (flags & FLAG_ALL) != 0;
  const n = valueCount(subject);
  if (op == OP_TEST_PRESENT) {
    let present = false;
    for (let k: u32 = 0; k < n && !present; k++) present = valueAt(subject, arg, k) >= 0;
    return (present == (operand == 1)) != negate;
  }
  if (op == OP_TEST_INTENT_ANY) return intentNamesKind(intentStore, subject) != negate; // of the intent, not the call
  let first: i64 = -1;
  let passed = false;
  for (let k: u32 = 0; k < n; k++) {
    const v = valueAt(subject, arg, k);
    if (v < 0) continue;
    if (first < 0) first = v;
    const pass = valueTest(op, subject, operand, <usize>(v >>> 32), <u32>v) != negate;
    if (all) {
      if (!pass) return false; // runClass empties the deltas of a failing test's rule
      deltaPush(subject, v);
    } else if (pass) {
      if (!passed) setWitness(v);
      passed = true;
      deltaPush(subject, v);
    }
  }
  if (!all) return passed;
  if (first < 0) return false;
  setWitness(first);
  return true;
}

function setWitness(v: i64): void {
  witness = <usize>(v >>> 32);
  witnessLen = <u32>v;
  hasWitness = true;
}

// Runs class `cls` for the call; returns the effect and sets decidedRule and the witness.
export function runClass(cls: u32, name: usize, nameLen: u32, store: usize): u32 {
  toolName = name;
  toolNameLen = nameLen;
  intentStore = store;
  callClass = cls;
  hasWitness = false;
  outOfMemory = false;
  deltaCount = 0;
  deltaCap = 0; // the scratch arena was reset: the last call's array is gone
  let pc = classCodeStart(cls);
  while (insnOp(pc) != OP_DECIDE) {
    const held = holds(pc);
    traceStep(pc, held);
    if (held) {
      pc++;
    } else {
      hasWitness = false; // the rule did not match: its witness is not the decision's
      deltaCount = 0;
      pc = insnJump(pc);
    }
  }
  traceStep(pc, true);
  decidedRule = insnOperand(pc);
  return insnFlags(pc);
}
