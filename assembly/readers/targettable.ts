// The targets of one call (docs/bytecode.md §5.2): kind (a target subject, with TARGET_PATTERN
// when the value is a pattern, §6.7) and normalized value, each distinct pair once, at most
// maxTargets of them. Values live in the
// scratch arena; a failure sticks until the next tableBegin, so producers need not check
// every add.
import { SUBJ_DOMAIN, SUBJ_PATH, SUBJ_URL, SUBJ_WRITE, TARGET_PATTERN, TARGET_TREE } from "../../bytecode/format";
import { scratchAlloc } from "../abi/mem";
import { fnv1a, sameBytes } from "../abi/bytes";
import {
  span, spanPtr, spanLen, resolvePath, resolvePattern, normalizeUrl, urlHost, normalizeHost, fileUrlPath,
  cwdPtr, cwdLen, takeOutOfMemory, isRelativePath,
} from "./normalize";

export const TARGETS_OK: i32 = 0;
export const TARGETS_LIMIT: i32 = 2; // more than maxTargets (or commands nested too deep)
export const TARGETS_OOM: i32 = 3;

// Record: kind, ptr, len, hash. The index maps (kind, value) to record number + 1.
const RECORD: usize = 16;
let records: usize = 0;
let count: u32 = 0;
let capacity: u32 = 0;
let limit: u32 = 0;
let slots: usize = 0;
let slotCount: u32 = 0;
let status: i32 = TARGETS_OK;

// The call's working directory (the WORKDIR role), in normal form; empty: the configured one.
let workdir: usize = 0;
let workdirLen: u32 = 0;
// The call may leave the terminal elsewhere (§8.1 DECISION_MOVES): a working directory argument,
// or a `cd` the command line's own shell runs (set by the shell reader).
export let movesDirectory = false;

export function tableBegin(maxTargets: u32): void {
  uncontained = false;
  records = 0;
  count = 0;
  capacity = 0;
  limit = maxTargets;
  slots = 0;
  slotCount = 0;
  status = TARGETS_OK;
  workdir = 0;
  workdirLen = 0;
  movesDirectory = false;
}

export function tableStatus(): i32 { return status; }

@inline export function fail(code: i32): void {
  if (status == TARGETS_OK) status = code;
}

@inline export function targetCount(): u32 { return count; }

// The subject of target i, and whether its value is a pattern (§6.7).
@inline export function targetKind(i: u32): u32 {
  return load<u32>(records + <usize>i * RECORD) & ~(TARGET_PATTERN | TARGET_TREE);
}

@inline export function targetIsPattern(i: u32): bool {
  return (load<u32>(records + <usize>i * RECORD) & TARGET_PATTERN) != 0;
}

@inline export function targetIsTree(i: u32): bool {
  return (load<u32>(records + <usize>i * RECORD) & TARGET_TREE) != 0;
}

// The subject byte of target i's record entry (§8.1): its kind with the pattern bit.
@inline export function targetEntryKind(i: u32): u32 { return load<u32>(records + <usize>i * RECORD); }

// Whether the call has a target of subject `kind`.
export function hasTargetOf(kind: u32): bool {
  for (let i: u32 = 0; i < count; i++) if (targetKind(i) == kind) return true;
  return false;
}

@inline export function targetPtr(i: u32): usize { return <usize>load<u32>(records + <usize>i * RECORD + 4); }

@inline export function targetLen(i: u32): u32 { return load<u32>(records + <usize>i * RECORD + 8); }

function hashOf(kind: u32, p: usize, len: u32): u32 {
  return (fnv1a(p, len) ^ kind) * 0x01000193;
}

// The record index of (kind, value), or -1.
function find(kind: u32, p: usize, len: u32, h: u32): i32 {
  if (slotCount == 0) return -1;
  const mask = slotCount - 1;
  let s = h & mask;
  while (true) {
    const entry = load<u32>(slots + ((<usize>s) << 2));
    if (entry == 0) return -1;
    const r = records + <usize>(entry - 1) * RECORD;
    if (load<u32>(r + 12) == h && load<u32>(r) == kind && load<u32>(r + 8) == len &&
        sameBytes(<usize>load<u32>(r + 4), p, len)) return <i32>(entry - 1);
    s = (s + 1) & mask;
  }
  return -1;
}

function place(index: u32, h: u32): void {
  const mask = slotCount - 1;
  let s = h & mask;
  while (load<u32>(slots + ((<usize>s) << 2)) != 0) s = (s + 1) & mask;
  store<u32>(slots + ((<usize>s) << 2), index + 1);
}

// Room for one more record, and an index at most half full.
function grow(): bool {
  if (count == capacity) {
    const more = capacity == 0 ? 16 : capacity << 1;
    const table = scratchAlloc(<usize>more * RECORD);
    if (table == 0) return false;
    if (count > 0) memory.copy(table, records, <usize>count * RECORD);
    records = table;
    capacity = more;
  }
  if ((count + 1) << 1 > slotCount) {
    const more = slotCount == 0 ? 32 : slotCount << 1;
    const index = scratchAlloc((<usize>more) << 2);
    if (index == 0) return false;
    memory.fill(index, 0, (<usize>more) << 2);
    slots = index;
    slotCount = more;
    for (let i: u32 = 0; i < count; i++) place(i, load<u32>(records + <usize>i * RECORD + 12));
  }
  return true;
}

// The call reads what a path held from somewhere no sandbox hides it: a repository's copy of it
// (`git show HEAD:.env`). A rule about that path which holds only maybe is then the fence's to
// decide, not the sandbox's (§8.3).
export let uncontained = false;
export function markUncontained(): void {
  uncontained = true;
}

// For a call the task's sandbox can hold (§8.3), the loopback is the sandbox's own: a loopback
// host names no one outside it, so it is no DOMAIN target (the call runs confined).
let ownLoopback = false;
export function setOwnLoopback(on: bool): void {
  ownLoopback = on;
}

const LOCALHOST: usize = memory.data<u8>([0x6c, 0x6f, 0x63, 0x61, 0x6c, 0x68, 0x6f, 0x73, 0x74]); // "localhost"
const IPV6_LOOPBACK: usize = memory.data<u8>([0x5b, 0x3a, 0x3a, 0x31, 0x5d]); // "[::1]"
const ANY_ADDRESS: usize = memory.data<u8>([0x30, 0x2e, 0x30, 0x2e, 0x30, 0x2e, 0x30]); // "0.0.0.0"

// localhost and its subdomains, 127.0.0.0/8, ::1 and 0.0.0.0, in the normal form of hosts.
function isLoopback(p: usize, len: u32): bool {
  if (len >= 9 && sameBytes(p + len - 9, LOCALHOST, 9) && (len == 9 || load<u8>(p + len - 10) == 0x2e)) return true;
  if (len == 5 && sameBytes(p, IPV6_LOOPBACK, 5)) return true;
  if (len == 3 && load<u8>(p) == 0x3a && load<u8>(p + 1) == 0x3a && load<u8>(p + 2) == 0x31) return true;
  if (len == 7 && sameBytes(p, ANY_ADDRESS, 7)) return true;
  if (len < 7 || load<u8>(p) != 0x31 || load<u8>(p + 1) != 0x32 || load<u8>(p + 2) != 0x37 || load<u8>(p + 3) != 0x2e) return false;
  let dots: u32 = 0;
  for (let i: u32 = 3; i < len; i++) {
    const c = load<u8>(p + i);
    if (c == 0x2e) dots++;
    else if (c < 0x30 || c > 0x39) return false;
  }
  return dots == 3;
}

// Adds (kind, [p, p+len)); the bytes must stay valid for the call. Empty values are dropped.
export function addTarget(kind: u32, p: usize, len: u32): void {
  if (status != TARGETS_OK || len == 0) return;
  if (ownLoopback && kind == SUBJ_DOMAIN && isLoopback(p, len)) return;
  const h = hashOf(kind, p, len);
  if (find(kind, p, len, h) >= 0) return;
  addNew(kind, p, len, h);
  const subject = kind & ~(TARGET_PATTERN | TARGET_TREE);
  if ((subject == SUBJ_PATH || subject == SUBJ_WRITE) && len >= 5 && sameBytes(p, PROC, 5)) procAliases(kind, p, len);
}

// /proc names other paths (§6.2): /proc/PID/root/REST is /REST, /proc/PID/cwd/REST is REST in a
// directory the fence may not know (`/**/REST`), /proc/PID/fd/N any open file; a tree at /proc
// or /proc/PID holds all of them, so it is the tree /. Each alias is a target beside the path.
const PROC: usize = memory.data<u8>([0x2f, 0x70, 0x72, 0x6f, 0x63]); // "/proc"
const ROOT: usize = memory.data<u8>([0x2f]);
const ANYWHERE: usize = memory.data<u8>([0x2f, 0x2a, 0x2a]); // "/**"
function procAliases(kind: u32, p: usize, len: u32): void {
  if (len > 5 && load<u8>(p + 5) != 0x2f) return; // "/procx"
  // The segments after /proc: the process, then what of it.
  let i: u32 = 6, j: u32 = 6;
  while (j < len && load<u8>(p + j) != 0x2f) j++;
  if (j >= len) { // /proc or /proc/PID
    if ((kind & TARGET_TREE) != 0) addTarget(kind & ~TARGET_PATTERN, ROOT, 1);
    return;
  }
  i = j + 1;
  j = i;
  while (j < len && load<u8>(p + j) != 0x2f) j++;
  const what = p + i, whatLen = j - i;
  const rest = p + j, restLen = len - j; // "" or "/REST"
  const wild = isPatternText(what, whatLen);
  if (wild || (whatLen == 4 && sameBytes(what, ROOT_WORD, 4))) aliasAt(kind, 0, 0, rest, restLen);
  if (wild || (whatLen == 3 && sameBytes(what, CWD_WORD, 3))) aliasAt(kind | TARGET_PATTERN, ANYWHERE, 3, rest, restLen);
  if (wild || (whatLen == 2 && sameBytes(what, FD_WORD, 2)) || (whatLen == 9 && sameBytes(what, MAP_FILES_WORD, 9))) {
    addTarget(kind | TARGET_PATTERN, ANYWHERE, 3);
  }
}
const ROOT_WORD: usize = memory.data<u8>([0x72, 0x6f, 0x6f, 0x74]);
const CWD_WORD: usize = memory.data<u8>([0x63, 0x77, 0x64]);
const FD_WORD: usize = memory.data<u8>([0x66, 0x64]);
const MAP_FILES_WORD: usize = memory.data<u8>([0x6d, 0x61, 0x70, 0x5f, 0x66, 0x69, 0x6c, 0x65, 0x73]);

// PREFIX followed by REST ("/REST" or ""), as a target of `kind` (a pattern when REST holds one).
function aliasAt(kind: u32, prefix: usize, prefixLen: u32, rest: usize, restLen: u32): void {
  if (prefixLen == 0 && restLen == 0) { addTarget(kind, ROOT, 1); return; }
  const t = scratchAlloc(<usize>(prefixLen + restLen));
  if (t == 0) { fail(TARGETS_OOM); return; }
  memory.copy(t, prefix, prefixLen);
  memory.copy(t + prefixLen, rest, restLen);
  addTarget(kind | (isPatternText(rest, restLen) ? TARGET_PATTERN : 0), t, prefixLen + restLen);
}

function addNew(kind: u32, p: usize, len: u32, h: u32): void {
  if (count >= limit) { fail(TARGETS_LIMIT); return; }
  if (!grow()) { fail(TARGETS_OOM); return; }
  const r = records + <usize>count * RECORD;
  store<u32>(r, kind);
  store<u32>(r + 4, <u32>p);
  store<u32>(r + 8, len);
  store<u32>(r + 12, h);
  place(count, h);
  count++;
}

// Adds a value that lives in transient memory: copied to scratch unless already present.
export function addTargetCopy(kind: u32, p: usize, len: u32): void {
  if (status != TARGETS_OK || len == 0) return;
  const h = hashOf(kind, p, len);
  if (find(kind, p, len, h) >= 0) return;
  const copy = scratchAlloc(<usize>len);
  if (copy == 0) { fail(TARGETS_OOM); return; }
  memory.copy(copy, p, len);
  addNew(kind, copy, len, h);
}

// Adds a normalized value (0: normalization found nothing, or ran out of memory).
function addSpan(kind: u32, s: u64): void {
  if (takeOutOfMemory()) fail(TARGETS_OOM);
  else if (s != 0) addTarget(kind, spanPtr(s), spanLen(s));
}

// Whether [p, p+len) holds a wildcard of §6.4.
function isPatternText(p: usize, len: u32): bool {
  for (let i: u32 = 0; i < len; i++) {
    const c = load<u8>(p + i);
    if (c == 0x2a || c == 0x3f) return true;
  }
  return false;
}

// ---- the call's working directory ----

export function directoryMoved(): void {
  movesDirectory = true;
}

// A new call: it has moved nothing yet (tableBegin comes later, when its targets are made).
export function movesClear(): void {
  movesDirectory = false;
}

export function setWorkdir(p: usize, len: u32): void {
  movesDirectory = true; // Hermes runs the command after `cd WORKDIR`, and keeps it as the terminal's directory
  if (cwdLen() == 0 && isRelativePath(p, len)) return; // below an unknown directory: still unknown
  const s = resolvePath(p, len, cwdPtr(), cwdLen());
  if (s == 0) return;
  workdir = spanPtr(s);
  workdirLen = spanLen(s);
}

// The directory relative paths of this call resolve against.
export function pathBase(): u64 {
  return workdirLen != 0 ? span(workdir, workdirLen) : span(cwdPtr(), cwdLen());
}

// ---- adding values of a kind ----

// A relative path against an unknown directory (an empty base: configure gave no working
// directory, §8) may be below any directory: the pattern `/**/PATH`, a tree when `tree`.
const ANY_CHILD: usize = memory.data<u8>([0x2a, 0x2a, 0x2f]); // "**/"
function belowUnknown(p: usize, len: u32, base: u64, written: bool, tree: bool): bool {
  if (spanLen(base) != 0 || !isRelativePath(p, len)) return false;
  const t = scratchAlloc(<usize>len + 3);
  if (t == 0) { fail(TARGETS_OOM); return true; }
  memory.copy(t, ANY_CHILD, 3);
  memory.copy(t + 3, p, len);
  if (tree) addTree(t, len + 3, span(0, 0), written);
  else addPathPattern(t, len + 3, span(0, 0), written);
  return true;
}

export function addPathIn(p: usize, len: u32, base: u64): void {
  if (status != TARGETS_OK || belowUnknown(p, len, base, false, false)) return;
  addSpan(SUBJ_PATH, resolvePath(p, len, spanPtr(base), spanLen(base)));
}

@inline export function addPath(p: usize, len: u32): void {
  addPathIn(p, len, pathBase());
}

// A path the call writes: both a PATH and a WRITE target.
export function addWrittenIn(p: usize, len: u32, base: u64): void {
  if (status != TARGETS_OK || belowUnknown(p, len, base, true, false)) return;
  const s = resolvePath(p, len, spanPtr(base), spanLen(base));
  addSpan(SUBJ_PATH, s);
  addSpan(SUBJ_WRITE, s);
}

// A path a reader could not resolve to one literal (§6.7): `*` `?` stand for what bash's
// globbing may match, `**` for an unknown expansion. Its normal form is a pattern target
// (unless normalizing left no wildcard), also a WRITE target when `written`.
export function addPathPatternIn(p: usize, len: u32, base: u64, written: bool): void {
  if (status != TARGETS_OK || belowUnknown(p, len, base, written, false)) return;
  addPathPattern(p, len, base, written);
}

function addPathPattern(p: usize, len: u32, base: u64, written: bool): void {
  const s = resolvePattern(p, len, spanPtr(base), spanLen(base));
  if (takeOutOfMemory()) { fail(TARGETS_OOM); return; }
  if (s == 0) return;
  const flag = isPatternText(spanPtr(s), spanLen(s)) ? TARGET_PATTERN : 0;
  addTarget(SUBJ_PATH | flag, spanPtr(s), spanLen(s));
  if (written) addTarget(SUBJ_WRITE | flag, spanPtr(s), spanLen(s));
}

// A directory a call reads (or writes) with everything below it (`grep -r x D`, a search at D,
// `rm -r D`): a tree target (§6.9), so a rule about a path inside D (a credential, the fence's
// own state) holds for the call. A pattern stays a pattern (its values are trees then too).
export function addTreeIn(p: usize, len: u32, base: u64, written: bool): void {
  if (status != TARGETS_OK || belowUnknown(p, len, base, written, true)) return;
  addTree(p, len, base, written);
}

function addTree(p: usize, len: u32, base: u64, written: bool): void {
  const s = resolvePattern(p, len, spanPtr(base), spanLen(base));
  if (takeOutOfMemory()) { fail(TARGETS_OOM); return; }
  if (s == 0) return;
  const flag = TARGET_TREE | (isPatternText(spanPtr(s), spanLen(s)) ? TARGET_PATTERN : 0);
  addTarget(SUBJ_PATH | flag, spanPtr(s), spanLen(s));
  if (written) addTarget(SUBJ_WRITE | flag, spanPtr(s), spanLen(s));
}

// A value of `kind` a reader could not resolve to one literal: a pattern target.
export function addPatternTarget(kind: u32, p: usize, len: u32): void {
  addTargetCopy(kind | (isPatternText(p, len) ? TARGET_PATTERN : 0), p, len);
}

export function addHost(p: usize, len: u32): void {
  if (status != TARGETS_OK) return;
  addSpan(SUBJ_DOMAIN, normalizeHost(p, len));
}

// A URL, its host as a DOMAIN (both readings when a '\\' makes parsers disagree about the
// host), and the path a file:// URL names.
export function addUrl(p: usize, len: u32): void {
  addUrlIn(p, len, false);
}

// addUrl for a URL a reader may not have resolved (§6.7): with `pattern`, each value that holds
// a wildcard is a pattern target.
export function addUrlIn(p: usize, len: u32, pattern: bool): void {
  if (status != TARGETS_OK) return;
  addSpanMaybe(SUBJ_URL, normalizeUrl(p, len), pattern);
  addSpanMaybe(SUBJ_DOMAIN, urlHost(p, len, false), pattern);
  addSpanMaybe(SUBJ_DOMAIN, urlHost(p, len, true), pattern);
  const file = fileUrlPath(p, len);
  if (file == 0) return;
  if (pattern) addPathPatternIn(spanPtr(file), spanLen(file), span(0, 0), false);
  else addPathIn(spanPtr(file), spanLen(file), span(0, 0));
}

function addSpanMaybe(kind: u32, s: u64, pattern: bool): void {
  if (takeOutOfMemory()) fail(TARGETS_OOM);
  else if (s != 0) addTarget(kind | (pattern && isPatternText(spanPtr(s), spanLen(s)) ? TARGET_PATTERN : 0), spanPtr(s), spanLen(s));
}

// The files a member glob (§5.2 MEMBERS: search_files' file_glob, rg -g, grep --include) singles
// out below each tree target from entry `from` on: the pattern `DIR/**/GLOB`, and its lower-case
// form (the shipped globs are lower case; a case-folding search matches them whatever case the
// call wrote). A glob with a part the pattern language lacks (a brace list, a class, an escape,
// a leading `!`, a `.` or `..` segment) stands for every file: `DIR/**`. False when there was
// no tree.
export function addMemberPatterns(from: u32, p: usize, n: u32): bool {
  while (n > 0 && (load<u8>(p) == 0x20 || load<u8>(p) == 0x2f)) { p++; n--; } // rg anchors a leading '/' at the root
  while (n > 0 && load<u8>(p + n - 1) == 0x20) n--;
  let every = n == 0 || load<u8>(p) == 0x21;
  let upper = false;
  let segment: u32 = 0;
  for (let k: u32 = 0; k <= n; k++) {
    const c: u32 = k < n ? <u32>load<u8>(p + k) : 0x2f;
    if (c == 0x7b || c == 0x5b || c == 0x5c) every = true;
    if (c - 0x41 < 26) upper = true;
    if (c != 0x2f) continue;
    const seg = k - segment;
    if ((seg == 1 || seg == 2) && load<u8>(p + segment) == 0x2e && load<u8>(p + k - 1) == 0x2e) every = true;
    segment = k + 1;
  }
  const to = count;
  let any = false;
  for (let t = from; t < to && status == TARGETS_OK; t++) {
    const kind = load<u32>(records + <usize>t * RECORD);
    if ((kind & TARGET_TREE) == 0 || (kind & ~(TARGET_TREE | TARGET_PATTERN)) != SUBJ_PATH) continue;
    any = true;
    const dp = <usize>load<u32>(records + <usize>t * RECORD + 4), dn = load<u32>(records + <usize>t * RECORD + 8);
    memberPattern(dp, dn, p, every ? 0 : n, false);
    if (upper && !every) memberPattern(dp, dn, p, n, true);
  }
  return any;
}

// DIR/** and, when n > 0, DIR/**/GLOB (lower-cased when `lower`), as a pattern target.
function memberPattern(dp: usize, dn: u32, p: usize, n: u32, lower: bool): void {
  const size = dn + 3 + (n > 0 ? n + 1 : 0);
  const t = scratchAlloc(<usize>size);
  if (t == 0) { fail(TARGETS_OOM); return; }
  memory.copy(t, dp, dn);
  store<u8>(t + dn, 0x2f); store<u8>(t + dn + 1, 0x2a); store<u8>(t + dn + 2, 0x2a);
  if (n > 0) {
    store<u8>(t + dn + 3, 0x2f);
    for (let k: u32 = 0; k < n; k++) {
      const c = <u32>load<u8>(p + k);
      store<u8>(t + dn + 4 + k, <u8>(lower && c - 0x41 < 26 ? c | 0x20 : c));
    }
  }
  addTarget(SUBJ_PATH | TARGET_PATTERN, t, size);
}
