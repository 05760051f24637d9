// Runs a class's code (docs/bytecode.md §5) over one call: its tool name, argument leaves
// (json.ts) and extracted targets (targets.ts). verify.ts has checked the code, so every run
// ends at a DECIDE within code_len steps. Tests have three outcomes (§5.4): a value a reader
// could not resolve (a pattern target, §6.7) or an intent item the user made conditional may
// satisfy a test without being known to: such a test holds "maybe". A rule none of whose tests
// failed but one held maybe has held maybe: a block rule then makes the call an ask, an ask
// rule asks, an allow rule does not allow.
import {
  NONE, OP_DECIDE, OP_TEST_PRESENT, OP_TEST_EQUALS, OP_TEST_IN, OP_TEST_GLOB, OP_TEST_PREFIX,
  OP_TEST_DOMAIN, OP_TEST_UNDER, OP_TEST_IN_INTENT, OP_TEST_GRANTED, OP_TEST_INTENT_ANY, OP_TEST_IN_DERIVED, OP_TEST_TRUTHY, OP_TEST_AT_MOST,
  FLAG_NEGATE, FLAG_ALL, SUBJ_TOOL, SUBJ_ARG, SUBJ_PATH, SUBJ_WRITE, EFFECT_BLOCK, EFFECT_ASK, EFFECT_ALLOW,
  EFFECT_WARN,
} from "../../bytecode/format";
import {
  classCodeStart, insnOp, insnSubject, insnFlags, insnArg, insnOperand, insnJump, strPtr, strLen,
  setFind, setFindHashed, setMemberCount, listKey, setBucketCount, setBucketKey, setCount, policyGeneration,
} from "../policy/decode";
import { bytesEqual, startsWith, indexOfByte, sameBytes } from "../abi/bytes";
import { alloc, free, scratchAlloc, scratchEpoch } from "../abi/mem";
import { globMatch, globsMeet, literalHead, literalDir } from "../readers/glob";
import { leafCount, leafPath, leafPathLen, leafValue, leafValueLen, leafIsString, leafInArray } from "../readers/json";
import { targetCount, targetKind, targetIsPattern, targetIsTree, targetEntryKind, targetPtr, targetLen } from "../readers/targets";
import { pathForms, constantForms, formAt, formsOutOfMemory } from "../readers/pathforms";
import { spanPtr, spanLen } from "../readers/normalize";
import { intentHas, intentDerivedHas, intentGrants, intentNamesKind, intentMeetsPattern } from "../intent/intent";
import { NO, YES, MAYBE, tri, negated } from "./tri";
import { amountAtMost } from "../readers/amount";

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
// NO, YES or MAYBE (a DECIDE is traced YES).
export function traceResult(k: u32): u32 { return load<u32>(traceSteps + (<usize>k << 3) + 4); }

@inline function traceStep(pc: u32, result: u32): void {
  if (!tracing || traceCount >= TRACE_MAX) return;
  store<u32>(traceSteps + (<usize>traceCount << 3), pc);
  store<u32>(traceSteps + (<usize>traceCount << 3) + 4, result);
  traceCount++;
}

// The outcome of the last run.
export let decidedRule: u32 = 0;   // rule index, or NONE for the class default
export let decidedMaybe = false;   // an ask because a block rule held maybe (decidedRule is that rule)
export let witness: usize = 0;     // a value the deciding rule's tests passed: `{value}` in messages
export let witnessLen: u32 = 0;
export let hasWitness = false;
export let outOfMemory = false;    // a test needed scratch memory it could not have

// The rules with effect warn that held (or held maybe), in code order: the record's `warned`.
let warned: usize = 0;
let warnedCap: u32 = 0;
export let warnedCount: u32 = 0;
export function warnedRule(k: u32): u32 { return load<u32>(warned + (<usize>k << 2)); }

// The deciding rule's witness of §8.1: every value that passed one of its per-value tests (or
// passed maybe), as (subject entry byte, ptr, len) triples in scratch memory. A failing test
// empties it.
let deltas: usize = 0;
let deltaCap: u32 = 0;
export let deltaCount: u32 = 0;

export function deltaSubject(k: u32): u32 { return load<u32>(deltas + <usize>k * 12); }
export function deltaPtr(k: u32): usize { return <usize>load<u32>(deltas + <usize>k * 12 + 4); }
export function deltaLen(k: u32): u32 { return load<u32>(deltas + <usize>k * 12 + 8); }

function deltaPush(entry: u32, v: i64): void {
  if (deltaCount == deltaCap) {
    const want = max<u32>(16, deltaCap << 1);
    const grown = scratchAlloc((<usize>want) * 12);
    if (grown == 0) { outOfMemory = true; return; }
    if (deltaCount > 0) memory.copy(grown, deltas, (<usize>deltaCount) * 12);
    deltas = grown;
    deltaCap = want;
  }
  const e = deltas + <usize>deltaCount * 12;
  store<u32>(e, entry);
  store<u32>(e + 4, <u32>(v >>> 32));
  store<u32>(e + 8, <u32>v);
  deltaCount++;
}

// ---- subject values ----
function valueCount(subject: u32): u32 {
  if (subject == SUBJ_TOOL) return 1;
  return subject == SUBJ_ARG ? leafCount() : targetCount();
}

// Whether the last value valueAt returned is a pattern, and its entry byte for the witness.
let valuePattern = false;
let valueTree = false;
let valueEntry: u32 = 0;

// Value k of the subject, as (ptr << 32 | len); -1 when k is not a value of this subject.
function valueAt(subject: u32, arg: u32, k: u32): i64 {
  valuePattern = false;
  valueTree = false;
  valueEntry = subject;
  if (subject == SUBJ_TOOL) return (<i64>toolName << 32) | <i64>toolNameLen;
  if (subject == SUBJ_ARG) {
    if (!bytesEqual(leafPath(k), leafPathLen(k), strPtr(arg), strLen(arg))) return -1;
    return (<i64>leafValue(k) << 32) | <i64>leafValueLen(k);
  }
  if (targetKind(k) != subject) return -1;
  valuePattern = targetIsPattern(k);
  valueTree = targetIsTree(k);
  valueEntry = targetEntryKind(k);
  return (<i64>targetPtr(k) << 32) | <i64>targetLen(k);
}

// ---- per-value tests on literal values ----
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

// The ancestors of a path in each of its forms (§6.5: absolute, `~`, `$HERMES_HOME`), as
// (form ptr, prefix length, FNV-1a of the prefix) triples: worked out once per path and call, so
// each UNDER test after the first costs a lookup per ancestor, not a pass over the path's bytes.
// Entries: u32 path ptr, u32 path len, u32 epoch, u32 count, u32 triples ptr.
const ANCESTRY_SLOTS: u32 = 4;
const ancestry: usize = memory.data(<i32>(ANCESTRY_SLOTS * 20));
let ancestryNext: u32 = 0;

function ancestorsOf(p: usize, len: u32): usize {
  for (let k: u32 = 0; k < ANCESTRY_SLOTS; k++) {
    const e = ancestry + <usize>k * 20;
    if (load<u32>(e + 8) == scratchEpoch && <usize>load<u32>(e) == p && load<u32>(e + 4) == len) return e;
  }
  const e = ancestry + <usize>ancestryNext * 20;
  ancestryNext = (ancestryNext + 1) % ANCESTRY_SLOTS;
  const n = pathForms(p, len);
  if (formsOutOfMemory) { outOfMemory = true; return 0; }
  let total: u32 = 0;
  for (let k: u32 = 0; k < n; k++) total += spanLen(formAt(k)) + 1;
  const triples = scratchAlloc(<usize>total * 12);
  if (triples == 0) { outOfMemory = true; return 0; }
  let count: u32 = 0;
  for (let k: u32 = 0; k < n; k++) {
    const f = formAt(k);
    const fp = spanPtr(f), fl = spanLen(f);
    let h: u32 = 0x811c9dc5;
    for (let i: u32 = 0; i < fl; i++) {
      const c = <u32>load<u8>(fp + i);
      h = (h ^ c) * 0x01000193;
      // An ancestor ends before a '/' (the root "/" is its own first byte); the path at the end.
      if (i + 1 == fl || load<u8>(fp + i + 1) == 0x2f || (i == 0 && c == 0x2f)) {
        const t = triples + <usize>count * 12;
        store<u32>(t, <u32>fp);
        store<u32>(t + 4, i + 1);
        store<u32>(t + 8, h);
        count++;
      }
    }
  }
  store<u32>(e, <u32>p);
  store<u32>(e + 4, len);
  store<u32>(e + 8, scratchEpoch);
  store<u32>(e + 12, count);
  store<u32>(e + 16, <u32>triples);
  return e;
}

// The longest member of each set of the installed policy (+1; 0: not yet measured), so a deep
// path is looked up only at the ancestors short enough to be a member.
let longestFor: u32 = 0; // the policy generation the table belongs to
let longest: usize = 0;

function longestMember(set: u32): u32 {
  if (longestFor != policyGeneration) {
    free(longest);
    longest = alloc(max<usize>(<usize>setCount() << 2, 4));
    if (longest == 0) return 0xffffffff;
    memory.fill(longest, 0, <usize>setCount() << 2);
    longestFor = policyGeneration;
  }
  const at = longest + (<usize>set << 2);
  let m = load<u32>(at);
  if (m == 0) {
    const buckets = setBucketCount(set);
    for (let b: u32 = 0; b < buckets; b++) {
      const key = setBucketKey(set, b);
      if (key != NONE && strLen(key) + 1 > m) m = strLen(key) + 1;
    }
    if (m == 0) m = 1;
    store<u32>(at, m);
  }
  return m - 1;
}

// A path is under a member of KEYS set `set` in one of its forms (§6.5).
function underIn(set: u32, p: usize, len: u32): bool {
  const e = ancestorsOf(p, len);
  if (e == 0) return false;
  const n = load<u32>(e + 12);
  const triples = <usize>load<u32>(e + 16);
  const most = longestMember(set);
  for (let k: u32 = 0; k < n; k++) {
    const t = triples + <usize>k * 12;
    const l = load<u32>(t + 4);
    if (l <= most && setFindHashed(set, <usize>load<u32>(t), l, load<u32>(t + 8)) >= 0) return true;
  }
  return false;
}

function literalTest(op: u32, subject: u32, operand: u32, p: usize, len: u32): u32 {
  switch (op) {
    case OP_TEST_EQUALS: return tri(bytesEqual(p, len, strPtr(operand), strLen(operand)));
    case OP_TEST_IN: return tri(setFind(operand, p, len) >= 0);
    case OP_TEST_GLOB: return tri(inList(operand, p, len, true));
    case OP_TEST_PREFIX: return tri(inList(operand, p, len, false));
    case OP_TEST_DOMAIN: return tri(domainIn(operand, p, len));
    case OP_TEST_UNDER: return tri(underIn(operand, p, len));
    case OP_TEST_IN_INTENT: return intentHas(intentStore, subject, p, len, operand);
    case OP_TEST_IN_DERIVED: return tri(intentDerivedHas(intentStore, subject, p, len));
    case OP_TEST_AT_MOST: return amountAtMost(p, len, strPtr(operand), strLen(operand));
  }
  return NO;
}

// A member of KEYS set `set`, in its absolute forms, lies below directory [d, d+dLen) (of a
// pattern of directories, with `pattern`): a tree target there reads or writes it (§6.9).
function memberBelow(set: u32, d: usize, dLen: u32, pattern: bool): bool {
  const root = dLen == 1 && load<u8>(d) == 0x2f;
  const below = withAnyTail(d, dLen, !root);
  if (below == 0) return true;
  const buckets = setBucketCount(set);
  for (let b: u32 = 0; b < buckets; b++) {
    const key = setBucketKey(set, b);
    if (key == NONE) continue;
    const n = constantForms(strPtr(key), strLen(key));
    if (formsOutOfMemory) { outOfMemory = true; return true; }
    for (let k: u32 = 0; k < n; k++) {
      const f = formAt(k);
      const fp = spanPtr(f), fl = spanLen(f);
      if (!pattern && literalHead(fp, fl) == fl) {
        if (root ? fl > 1 && load<u8>(fp) == 0x2f : fl > dLen && load<u8>(fp + dLen) == 0x2f && sameBytes(fp, d, dLen)) return true;
      } else if (globsMeet(fp, fl, spanPtr(below), spanLen(below))) {
        return true;
      }
    }
  }
  return false;
}

// ---- per-value tests on patterns (§6.7) ----
// YES when every value the pattern stands for passes, MAYBE when some may, NO when none can.

// [p, p+len) followed by `**`, in scratch: a constant read as "this, then anything".
function withAnyTail(p: usize, len: u32, slash: bool): u64 {
  const n = len + (slash ? 3 : 2);
  const out = scratchAlloc(<usize>n);
  if (out == 0) { outOfMemory = true; return 0; }
  memory.copy(out, p, len);
  let k = len;
  if (slash) { store<u8>(out + k, 0x2f); k++; }
  store<u8>(out + k, 0x2a);
  store<u8>(out + k + 1, 0x2a);
  return (<u64>out << 32) | <u64>n;
}

// Whether the pattern may be a path at or below [m, m+mLen) (absolute).
function patternMayBeUnder(pat: usize, patLen: u32, m: usize, mLen: u32): bool {
  if (globsMeet(pat, patLen, m, mLen)) return true;
  const t = withAnyTail(m, mLen, !(mLen == 1 && load<u8>(m) == 0x2f));
  return t == 0 || globsMeet(pat, patLen, spanPtr(t), spanLen(t));
}

// Some member of KEYS set `set`, in its absolute forms, may be a value of the pattern (or, with
// `under`, may have one at or below it).
function keysMeet(set: u32, pat: usize, patLen: u32, under: bool): bool {
  const buckets = setBucketCount(set);
  for (let b: u32 = 0; b < buckets; b++) {
    const key = setBucketKey(set, b);
    if (key == NONE) continue;
    if (!under) {
      if (globMatch(pat, patLen, strPtr(key), strLen(key))) return true;
      continue;
    }
    const n = constantForms(strPtr(key), strLen(key));
    if (formsOutOfMemory) { outOfMemory = true; return true; }
    for (let k: u32 = 0; k < n; k++) {
      const f = formAt(k);
      if (patternMayBeUnder(pat, patLen, spanPtr(f), spanLen(f))) return true;
    }
  }
  return false;
}

function listMeets(set: u32, pat: usize, patLen: u32, prefix: bool): bool {
  const n = setMemberCount(set);
  for (let j: u32 = 0; j < n; j++) {
    const key = listKey(set, j);
    if (!prefix) {
      if (globsMeet(pat, patLen, strPtr(key), strLen(key))) return true;
      continue;
    }
    const t = withAnyTail(strPtr(key), strLen(key), false);
    if (t == 0 || globsMeet(pat, patLen, spanPtr(t), spanLen(t))) return true;
  }
  return false;
}

function patternTest(op: u32, subject: u32, operand: u32, p: usize, len: u32): u32 {
  switch (op) {
    case OP_TEST_EQUALS: return globMatch(p, len, strPtr(operand), strLen(operand)) ? MAYBE : NO;
    case OP_TEST_IN: return keysMeet(operand, p, len, false) ? MAYBE : NO;
    case OP_TEST_GLOB: return listMeets(operand, p, len, false) ? MAYBE : NO;
    case OP_TEST_PREFIX: {
      const head = literalHead(p, len);
      if (inList(operand, p, head, false)) return YES;
      return listMeets(operand, p, len, true) ? MAYBE : NO;
    }
    case OP_TEST_DOMAIN: return setMemberCount(operand) > 0 ? MAYBE : NO;
    case OP_TEST_UNDER: {
      if (subject == SUBJ_PATH || subject == SUBJ_WRITE) {
        const dir = literalDir(p, len);
        if (dir > 0 && underIn(operand, p, dir)) return YES;
      }
      return keysMeet(operand, p, len, true) ? MAYBE : NO;
    }
    case OP_TEST_IN_INTENT: {
      // A pattern reads below its literal directory: that directory named grants it (under the
      // exact reading, only that directory itself named: not a folder above it).
      if (subject == SUBJ_PATH || subject == SUBJ_WRITE) {
        const dir = literalDir(p, len);
        if (dir > 0) {
          const r = intentHas(intentStore, subject, p, dir, operand);
          if (r != NO) return r;
        }
      }
      return intentMeetsPattern(intentStore, false, subject, p, len, operand) ? MAYBE : NO;
    }
    case OP_TEST_IN_DERIVED: return intentMeetsPattern(intentStore, true, subject, p, len, 0) ? MAYBE : NO;
    case OP_TEST_AT_MOST: return MAYBE; // a sum the fence could not read may be any
  }
  return NO;
}

// Whether a JSON scalar's text reads as false to Python's bool(): false, null, a zero number.
function falsyScalar(p: usize, len: u32): bool {
  const c = <u32>load<u8>(p);
  if (c == 0x66 || c == 0x6e) return true; // false, null
  for (let i: u32 = 0; i < len; i++) {
    const d = <u32>load<u8>(p + i);
    if (d == 0x65 || d == 0x45) break; // the exponent of a zero mantissa leaves it zero
    if (d >= 0x31 && d <= 0x39) return false;
  }
  return c != 0x74; // true; digits all zero
}

// TRUTHY (§5): the argument at path `arg` is true to Python's bool(), as a Python host (Hermes)
// reads it: a non-empty string, list or object, a non-zero number, true. Absent, empty, false,
// null and zero are false. Of several values at one path (a key given twice) any true one counts.
function argTruthy(arg: u32): bool {
  const at = strPtr(arg), atLen = strLen(arg);
  const n = leafCount();
  for (let k: u32 = 0; k < n; k++) {
    const p = leafPath(k), len = leafPathLen(k);
    if (len > atLen && load<u8>(p + atLen) == 0x2e && sameBytes(p, at, atLen)) return true; // an object
    if (!bytesEqual(p, len, at, atLen)) continue;
    if (leafInArray(k)) return true; // a list
    if (leafIsString(k) ? leafValueLen(k) > 0 : !falsyScalar(leafValue(k), leafValueLen(k))) return true;
  }
  return false;
}

function setWitness(v: i64): void {
  witness = <usize>(v >>> 32);
  witnessLen = <u32>v;
  hasWitness = true;
}

// What instruction pc finds (§5: ANY/ALL quantifiers, NEGATE per value, PRESENT, GRANTED and
// INTENT_ANY of the subject as a whole): NO, YES or MAYBE. ANY holds with a value that passes,
// maybe with one that passes maybe; ALL fails with a value that fails, and with none. Values
// that passed (or passed maybe) join the deltas; the first such value, a passing one before
// one that passed maybe, is the witness.
function holds(pc: u32): u32 {
  const op = insnOp(pc), subject = insnSubject(pc), flags = insnFlags(pc);
  const arg = insnArg(pc), operand = insnOperand(pc);
  const negate = (flags & FLAG_NEGATE) != 0;
  const all = (flags & FLAG_ALL) != 0;
  if (op == OP_TEST_GRANTED) {
    const r = intentGrants(intentStore, callClass); // of the call's class, whatever the tool's name
    return negate ? negated(r) : r;
  }
  if (op == OP_TEST_INTENT_ANY) return tri(intentNamesKind(intentStore, subject, operand) != negate); // of the intent
  if (op == OP_TEST_TRUTHY) return tri((argTruthy(arg) == (operand == 1)) != negate);
  const n = valueCount(subject);
  if (op == OP_TEST_PRESENT) {
    let present = false;
    for (let k: u32 = 0; k < n && !present; k++) present = valueAt(subject, arg, k) >= 0;
    return tri((present == (operand == 1)) != negate);
  }
  let result = all ? YES : NO;
  let any = false;
  let witnessed = NO; // the result that set the witness
  for (let k: u32 = 0; k < n; k++) {
    const v = valueAt(subject, arg, k);
    if (v < 0) continue;
    const p = <usize>(v >>> 32), len = <u32>v;
    let r = valuePattern ? patternTest(op, subject, operand, p, len) : literalTest(op, subject, operand, p, len);
    if (valueTree && op == OP_TEST_UNDER && r != YES && memberBelow(operand, p, len, valuePattern)) r = valuePattern ? MAYBE : YES;
    if (negate) r = negated(r);
    if (all) {
      if (r == NO) return NO; // runClass empties the deltas of a failing test's rule
      if (!any) setWitness(v);
      if (r == MAYBE) result = MAYBE;
      deltaPush(valueEntry, v);
    } else if (r != NO) {
      if (witnessed != YES && r != witnessed) { setWitness(v); witnessed = r; }
      if (r == YES || result == NO) result = r;
      deltaPush(valueEntry, v);
    }
    any = true;
  }
  return all && !any ? NO : result;
}

// The witness and deltas of a block rule that held maybe, kept while later rules run: the ask
// it becomes names them.
let maybeRule: u32 = NONE;
let maybeDeltas: usize = 0;
let maybeDeltaCount: u32 = 0;
let maybeWitness: usize = 0;
let maybeWitnessLen: u32 = 0;
let maybeHasWitness = false;

function forgetRule(): void {
  hasWitness = false;
  deltaCount = 0;
}

function keepMaybe(rule: u32): void {
  maybeRule = rule;
  maybeDeltas = deltas;
  maybeDeltaCount = deltaCount;
  maybeWitness = witness;
  maybeWitnessLen = witnessLen;
  maybeHasWitness = hasWitness;
  // The rules after it build their deltas in an array of their own.
  deltas = 0;
  deltaCap = 0;
  deltaCount = 0;
  hasWitness = false;
}

// The ask a block rule that held maybe makes: its id, witness and deltas.
function decideMaybe(): u32 {
  decidedRule = maybeRule;
  decidedMaybe = true;
  deltas = maybeDeltas;
  deltaCount = maybeDeltaCount;
  witness = maybeWitness;
  witnessLen = maybeWitnessLen;
  hasWitness = maybeHasWitness;
  return EFFECT_ASK;
}

function warnPush(rule: u32): void {
  if (warnedCount == warnedCap) {
    const want = max<u32>(8, warnedCap << 1);
    const grown = scratchAlloc((<usize>want) << 2);
    if (grown == 0) { outOfMemory = true; return; }
    if (warnedCount > 0) memory.copy(grown, warned, (<usize>warnedCount) << 2);
    warned = grown;
    warnedCap = want;
  }
  store<u32>(warned + (<usize>warnedCount << 2), rule);
  warnedCount++;
}

// Runs class `cls` for the call; returns the effect and sets decidedRule, decidedMaybe, the
// witness and the warned rules (§5.3, §5.4).
export function runClass(cls: u32, name: usize, nameLen: u32, store: usize): u32 {
  toolName = name;
  toolNameLen = nameLen;
  intentStore = store;
  callClass = cls;
  outOfMemory = false;
  decidedMaybe = false;
  deltaCount = 0;
  deltaCap = 0; // the scratch arena was reset: the last call's arrays are gone
  warnedCount = 0;
  warnedCap = 0;
  maybeRule = NONE;
  hasWitness = false;
  let pc = classCodeStart(cls);
  let maybe = false; // a test of the rule being run held maybe
  while (true) {
    if (insnOp(pc) != OP_DECIDE) {
      const r = holds(pc);
      traceStep(pc, r);
      if (r == NO) {
        forgetRule(); // the rule did not match: its witness is not the decision's
        maybe = false;
        pc = insnJump(pc);
      } else {
        if (r == MAYBE) maybe = true;
        pc++;
      }
      continue;
    }
    const rule = insnOperand(pc);
    const effect = insnFlags(pc);
    // The trace marks a DECIDE that ends the run YES, one the run goes on from MAYBE.
    // The class default ends every class (verify.ts): a block that held maybe asks.
    if (rule == NONE) {
      traceStep(pc, YES);
      if (maybeRule != NONE) return decideMaybe();
      decidedRule = NONE;
      return effect;
    }
    if (effect == EFFECT_WARN) {
      warnPush(rule);
    } else if (!maybe) {
      traceStep(pc, YES);
      if (effect != EFFECT_BLOCK && maybeRule != NONE) return decideMaybe();
      decidedRule = rule;
      return effect;
    } else if (effect == EFFECT_BLOCK) {
      if (maybeRule == NONE) keepMaybe(rule);
    } else if (effect == EFFECT_ASK) {
      traceStep(pc, YES);
      if (maybeRule != NONE) return decideMaybe();
      decidedRule = rule;
      return EFFECT_ASK;
    }
    // A warn, a block that held maybe, an allow that held maybe: the next rule runs.
    traceStep(pc, MAYBE);
    forgetRule();
    maybe = false;
    pc++;
  }
  return EFFECT_ALLOW;
}
