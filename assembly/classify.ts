// Which class a tool belongs to (docs/bytecode.md §3, docs/policy.md "classify"): the policy's
// tool map (exact names, then patterns in order), else the words of the tool's name, else the
// words of the description the host gave through `describe`, else class 0 (unknown).
import {
  setFind, setMemberCount, listKey, listValue, strPtr, strLen, toolsExactSet, toolsGlobSet,
  toolClass, toolRoleStart, toolRoleCount, roleArgPath, roleKind, classifyWordSet,
  classifyEntryClass, classifyRoleSet,
} from "./decode";
import { fnv1a, bytesEqual, lowerAscii, isAsciiAlpha, isAsciiDigit, indexOfByte, equalsAsciiFold, copyLower } from "./bytes";
import { alloc, free, scratchAlloc } from "./mem";
import { globMatch } from "./glob";
import { leafPath, leafPathLen } from "./json";

// Returned by the word lookups when no scratch memory could be had.
export const WORDS_OOM: i32 = -2;

let mappedTool: i32 = -1; // the tool entry of the last classified name, -1 when none mapped it
let byPolicy = false;     // the last classified name was mapped, or classified by its own words
let lastLearned = false;  // the last classified name took a class `describe` learned

// ---- words ----
function isUpper(c: u32): bool {
  return c - 0x41 < 26;
}

function isLower(c: u32): bool {
  return c - 0x61 < 26;
}

function isWordByte(c: u32): bool {
  return c >= 0x80 || isAsciiAlpha(c) || isAsciiDigit(c);
}

// Whether a camelCase word boundary falls before byte i ("sendEmail", "HTTPRequest").
function camelBreak(p: usize, len: u32, i: u32): bool {
  const c = <u32>load<u8>(p + i);
  if (i == 0 || !isUpper(c)) return false;
  const prev = <u32>load<u8>(p + i - 1);
  if (isLower(prev) || isAsciiDigit(prev)) return true;
  return isUpper(prev) && i + 1 < len && isLower(<u32>load<u8>(p + i + 1));
}

// The lowest CLASSIFY entry any word of [p, p+len) maps to, -1 when none, WORDS_OOM.
// Words are runs of letters, digits and non-ASCII bytes, also split at camelCase, lower-cased.
export function lowestWordEntry(p: usize, len: u32): i32 {
  const lower = scratchAlloc(max<usize>(len, 1));
  if (lower == 0) return WORDS_OOM;
  for (let i: u32 = 0; i < len; i++) store<u8>(lower + i, <u8>lowerAscii(load<u8>(p + i)));
  const words = classifyWordSet();
  let best: i64 = -1;
  let i: u32 = 0;
  while (i < len) {
    if (!isWordByte(load<u8>(p + i))) { i++; continue; }
    let j = i + 1;
    while (j < len && isWordByte(load<u8>(p + j)) && !camelBreak(p, len, j)) j++;
    const entry = setFind(words, lower + i, j - i);
    if (entry >= 0 && (best < 0 || entry < best)) best = entry;
    i = j;
  }
  return <i32>best;
}

// ---- classes learned from descriptions, for this instance (bounded) ----
const DESCRIBED_MAX: u32 = 1024;
const DESCRIBED_SLOTS: u32 = 2048; // open addressing, at most half full
export const DESCRIBED_NAME_MAX: u32 = 256;
let described: usize = 0; // slots × (u32 hash, u32 name copy (0: empty), u32 name length, u32 class)
let describedCount: u32 = 0;

function describedSlot(name: usize, len: u32): usize {
  const h = fnv1a(name, len);
  let i = h & (DESCRIBED_SLOTS - 1);
  while (true) {
    const e = described + ((<usize>i) << 4);
    const copy = <usize>load<u32>(e + 4);
    if (copy == 0) return e;
    if (load<u32>(e) == h && bytesEqual(copy, load<u32>(e + 8), name, len)) return e;
    i = (i + 1) & (DESCRIBED_SLOTS - 1);
  }
}

function describedClass(name: usize, len: u32): i32 {
  if (described == 0) return -1;
  const e = describedSlot(name, len);
  return load<u32>(e + 4) == 0 ? -1 : <i32>load<u32>(e + 12);
}

// Remembers `cls` for the tool `name`: 0 ok, 1 name too long, 2 table full, 3 out of memory.
export function learnClass(name: usize, len: u32, cls: u32): u32 {
  if (len > DESCRIBED_NAME_MAX) return 1;
  if (described == 0) {
    described = alloc(<usize>DESCRIBED_SLOTS << 4);
    if (described == 0) return 3;
    memory.fill(described, 0, <usize>DESCRIBED_SLOTS << 4);
  }
  const e = describedSlot(name, len);
  if (load<u32>(e + 4) == 0) {
    if (describedCount >= DESCRIBED_MAX) return 2;
    const copy = alloc(max<usize>(len, 1));
    if (copy == 0) return 3;
    memory.copy(copy, name, len);
    store<u32>(e, fnv1a(name, len));
    store<u32>(e + 4, <u32>copy);
    store<u32>(e + 8, len);
    describedCount++;
  }
  store<u32>(e + 12, cls);
  return 0;
}

// Forgets every learned class: they are class indices of the policy being replaced.
export function forgetDescribed(): void {
  if (described == 0) return;
  for (let i: u32 = 0; i < DESCRIBED_SLOTS; i++) free(<usize>load<u32>(described + ((<usize>i) << 4) + 4));
  memory.fill(described, 0, <usize>DESCRIBED_SLOTS << 4);
  describedCount = 0;
}

// ---- classification ----
// The class of the tool `name` (WORDS_OOM when scratch memory ran out); remembers which tool
// entry mapped it, for leafRole.
export function classifyTool(name: usize, len: u32): i32 {
  mappedTool = -1;
  byPolicy = true;
  const exact = setFind(toolsExactSet(), name, len);
  if (exact >= 0) {
    mappedTool = <i32>exact;
    return <i32>toolClass(<u32>exact);
  }
  const globs = toolsGlobSet();
  const n = setMemberCount(globs);
  for (let j: u32 = 0; j < n; j++) {
    const pattern = listKey(globs, j);
    if (globMatch(strPtr(pattern), strLen(pattern), name, len)) {
      mappedTool = <i32>listValue(globs, j);
      return <i32>toolClass(<u32>mappedTool);
    }
  }
  const entry = lowestWordEntry(name, len);
  if (entry == WORDS_OOM) return WORDS_OOM;
  if (entry >= 0) return <i32>classifyEntryClass(<u32>entry);
  byPolicy = false;
  const learned = describedClass(name, len);
  lastLearned = learned >= 0;
  return learned >= 0 ? learned : 0;
}

// How the last classified name got its class: 1 the policy's tool map, 2 the words of its name
// (CLASSIFY), 3 the words of its description (`describe`), 0 nothing (class unknown).
export function classSource(): u32 {
  if (mappedTool >= 0) return 1;
  if (byPolicy) return 2;
  return lastLearned ? 3 : 0;
}

// Whether the last classified name got its class from the policy's tool map or its own words
// (a description cannot change that class).
export function classifiedByPolicy(): bool {
  return byPolicy;
}

// [path, path+len) is `at` or lies below it in the dotted argument paths, ASCII case aside: a
// tool may read a `To` as its `to`, so a key's spelling must not hide a target (§5.2).
function atOrBelow(path: usize, len: u32, at: usize, atLen: u32): bool {
  if (len < atLen || !equalsAsciiFold(path, at, atLen)) return false;
  return len == atLen || load<u8>(path + atLen) == 0x2e;
}

// The role (§5.2) of argument leaf i for the last classified tool, 0 when it has none: a mapped
// tool's own roles by argument path, else CLASSIFY's role_map by top-level argument name.
export function leafRole(i: u32): u32 {
  const path = leafPath(i), len = leafPathLen(i);
  if (mappedTool >= 0) {
    const start = toolRoleStart(<u32>mappedTool);
    const end = start + toolRoleCount(<u32>mappedTool);
    for (let r = start; r < end; r++) {
      const arg = roleArgPath(r);
      if (atOrBelow(path, len, strPtr(arg), strLen(arg))) return roleKind(r);
    }
    return 0;
  }
  const dot = indexOfByte(path, len, 0x2e, 0);
  const n: u32 = dot < 0 ? len : <u32>dot;
  // role_map keys are lower-case: look the name up lower-cased (as is, when scratch runs out).
  const lower = scratchAlloc(max<usize>(<usize>n, 1));
  if (lower != 0) copyLower(lower, path, n);
  const role = setFind(classifyRoleSet(), lower != 0 ? lower : path, n);
  return role < 0 ? 0 : <u32>role;
}
