// The per-value tests holds (eval.ts) runs on each value of a subject: on a literal value
// (EQUALS, IN, GLOB, PREFIX, DOMAIN, UNDER, IN_INTENT, IN_DERIVED, AT_MOST), and on a pattern (§6.7).
// They read the call's intent store and set outOfMemory, both eval.ts's.
import {
  NONE, OP_TEST_EQUALS, OP_TEST_IN, OP_TEST_GLOB, OP_TEST_PREFIX, OP_TEST_DOMAIN, OP_TEST_UNDER,
  OP_TEST_IN_INTENT, OP_TEST_IN_DERIVED, OP_TEST_AT_MOST, SUBJ_PATH, SUBJ_WRITE,
} from "../../bytecode/format";
import {
  strPtr, strLen, setFind, setFindHashed, setMemberCount, listKey, setBucketCount, setBucketKey, setCount,
  policyGeneration,
} from "../policy/decode";
import { someMemberHolds } from "../policy/globindex";
import { bytesEqual, startsWith, indexOfByte, sameBytes } from "../abi/bytes";
import { alloc, free, scratchAlloc, scratchEpoch } from "../abi/mem";
import { globMatch, globsMeet, literalHead, literalDir } from "../readers/glob";
import { pathForms, constantForms, formAt, formsOutOfMemory, isWorkingDirectoryConstant } from "../readers/pathforms";
import { spanPtr, spanLen, cwdLen } from "../readers/normalize";
import { intentHas, intentDerivedHas, intentMeetsPattern } from "../intent/intent";
import { NO, YES, MAYBE, tri } from "./tri";
import { amountAtMost } from "../readers/amount";
import { intentStore, outOfMemory } from "./eval";

// ---- per-value tests on literal values ----
function prefixIn(set: u32, p: usize, len: u32): bool {
  const n = setMemberCount(set);
  for (let j: u32 = 0; j < n; j++) {
    const key = listKey(set, j);
    if (startsWith(p, len, strPtr(key), strLen(key))) return true;
  }
  return false;
}

// A pattern of LIST set `set` matches the value (§6.4): looked up once per set and value in a
// call, since a policy's rules test one list again on the same path (a write's PATH and WRITE
// targets, a rule and its by-class twin). Entries: set, ptr, len, epoch + 1, answer.
const GLOB_MEMO: u32 = 8;
const globMemo: usize = memory.data(<i32>(GLOB_MEMO * 20));
let nextGlobMemo: u32 = 0;

function globIn(set: u32, p: usize, len: u32): bool {
  for (let k: u32 = 0; k < GLOB_MEMO; k++) {
    const e = globMemo + <usize>k * 20;
    if (load<u32>(e + 12) == scratchEpoch + 1 && load<u32>(e) == set && load<u32>(e + 8) == len &&
        sameBytes(<usize>load<u32>(e + 4), p, len)) return load<u32>(e + 16) != 0;
  }
  const holds = someMemberHolds(set, p, len, globMemberHolds);
  const e = globMemo + <usize>nextGlobMemo * 20;
  nextGlobMemo = (nextGlobMemo + 1) % GLOB_MEMO;
  store<u32>(e, set);
  store<u32>(e + 4, <u32>p);
  store<u32>(e + 8, len);
  store<u32>(e + 12, scratchEpoch + 1);
  store<u32>(e + 16, holds ? 1 : 0);
  return holds;
}

function globMemberHolds(set: u32, member: u32, p: usize, len: u32): bool {
  const key = listKey(set, member);
  return globHolds(strPtr(key), strLen(key), p, len);
}

// A glob written in a constant's form (`~/x/**`) matches the absolute paths it stands for (§6.5),
// as a pattern target's constants do; any other glob matches as written.
function globHolds(g: usize, gLen: u32, p: usize, len: u32): bool {
  const c = gLen > 0 ? <u32>load<u8>(g) : 0;
  if (c != 0x7e && c != 0x24) return globMatch(g, gLen, p, len);
  const n = constantForms(g, gLen);
  if (formsOutOfMemory) { outOfMemory = true; return false; }
  for (let k: u32 = 0; k < n; k++) {
    const f = formAt(k);
    if (globMatch(spanPtr(f), spanLen(f), p, len)) return true;
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

// With no working directory known, a path may be below a `.` constant of the set whatever it is
// (§6.5): such a constant holds maybe, never certainly nor certainly not.
function underUnknownDirectory(set: u32): bool {
  if (cwdLen() > 0) return false;
  const buckets = setBucketCount(set);
  for (let b: u32 = 0; b < buckets; b++) {
    const key = setBucketKey(set, b);
    if (key != NONE && isWorkingDirectoryConstant(strPtr(key), strLen(key))) return true;
  }
  return false;
}

export function literalTest(op: u32, subject: u32, operand: u32, p: usize, len: u32): u32 {
  switch (op) {
    case OP_TEST_EQUALS: return tri(bytesEqual(p, len, strPtr(operand), strLen(operand)));
    case OP_TEST_IN: return tri(setFind(operand, p, len) >= 0);
    case OP_TEST_GLOB: return tri(globIn(operand, p, len));
    case OP_TEST_PREFIX: return tri(prefixIn(operand, p, len));
    case OP_TEST_DOMAIN: return tri(domainIn(operand, p, len));
    case OP_TEST_UNDER: return underIn(operand, p, len) ? YES : underUnknownDirectory(operand) ? MAYBE : NO;
    case OP_TEST_IN_INTENT: return intentHas(intentStore, subject, p, len, operand);
    case OP_TEST_IN_DERIVED: return tri(intentDerivedHas(intentStore, subject, p, len));
    case OP_TEST_AT_MOST: return amountAtMost(p, len, strPtr(operand), strLen(operand));
  }
  return NO;
}

// A member of KEYS set `set`, in its absolute forms, lies below directory [d, d+dLen) (of a
// pattern of directories, with `pattern`): a tree target there reads or writes it (§6.9). YES
// when one does, MAYBE when only a `.` member of an unknown working directory may (§6.5).
export function memberBelow(set: u32, d: usize, dLen: u32, pattern: bool): u32 {
  const root = dLen == 1 && load<u8>(d) == 0x2f;
  const below = withAnyTail(d, dLen, !root);
  if (below == 0) return YES;
  let result = NO;
  const buckets = setBucketCount(set);
  for (let b: u32 = 0; b < buckets; b++) {
    const key = setBucketKey(set, b);
    if (key == NONE) continue;
    const n = constantForms(strPtr(key), strLen(key));
    if (formsOutOfMemory) { outOfMemory = true; return YES; }
    const unknownDirectory = cwdLen() == 0 && isWorkingDirectoryConstant(strPtr(key), strLen(key));
    for (let k: u32 = 0; k < n; k++) {
      const f = formAt(k);
      const fp = spanPtr(f), fl = spanLen(f);
      let meets = false;
      if (!pattern && literalHead(fp, fl) == fl) {
        meets = root ? fl > 1 && load<u8>(fp) == 0x2f : fl > dLen && load<u8>(fp + dLen) == 0x2f && sameBytes(fp, d, dLen);
      } else {
        meets = globsMeet(fp, fl, spanPtr(below), spanLen(below));
      }
      if (meets && !unknownDirectory) return YES;
      if (meets) result = MAYBE;
    }
  }
  return result;
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

export function patternTest(op: u32, subject: u32, operand: u32, p: usize, len: u32): u32 {
  switch (op) {
    case OP_TEST_EQUALS: return globMatch(p, len, strPtr(operand), strLen(operand)) ? MAYBE : NO;
    case OP_TEST_IN: return keysMeet(operand, p, len, false) ? MAYBE : NO;
    case OP_TEST_GLOB: return listMeets(operand, p, len, false) ? MAYBE : NO;
    case OP_TEST_PREFIX: {
      const head = literalHead(p, len);
      if (prefixIn(operand, p, head)) return YES;
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
