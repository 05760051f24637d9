// Reads a command line the way bash reads it (docs/bytecode.md §6.6) and adds what it does to the
// call's table: per simple command its PROGRAM, the paths it reads (PATH) and writes (WRITE), the
// hosts it reaches (DOMAIN, URL), and OPAQUE for whatever the reader cannot model. Words are
// expanded as bash expands them: quotes and escapes, brace lists, tildes, variables assigned
// earlier in the line, command and arithmetic substitution, field splitting and globs. What the
// reader cannot resolve is a pattern (§6.7): `**` for an unknown expansion, `*` `?` for a glob.
// Redirections are reads, writes or connections; a write, a connection, a prefix assignment, an
// executing option and a program named by a path each leave a fact no allow rule over PROGRAM
// can pass (§6.6). What programs' options do is the policy's SHELL_PROGRAMS (§3.4); only bash
// itself is known here. Shell strings (`sh -c`, `eval`, `trap`, `find -exec`) are read again as
// commands, at most maxDepth levels deep; deeper nesting fails the call with TARGETS_LIMIT.
import {
  NONE, SUBJ_PROGRAM, SUBJ_OPAQUE, SUBJ_DOMAIN, TARGET_PATTERN,
  SHO_VALUE, SHO_VALUE2, SHO_ATTACHED, SHO_OPAQUE, SHO_OUTPUT, SHO_RECURSIVE, SHO_IN_PLACE, SHO_COMMAND,
  SHO_COMMAND_UNTIL, SHO_SUPPLIES, SHO_SCRIPT, SHO_DIRECTORY, SHO_OUTPUT_DIR, SHO_EXTRACT, SHO_LIST,
  SHO_ARCHIVE, SHO_ARCHIVE_OUT, SHO_REPLACE, SHO_MEMBERS,
  SHM_TREES, SHM_WRITTEN, SHM_LAST_WRITTEN, SHM_SECOND_WRITTEN, SHM_FIRST_SCRIPT, SHM_FIRST_DATA,
  SHM_NO_FILES, SHM_SUBCOMMAND, SHM_EXTRACTS, SHM_OLD_STYLE, SHM_KEYS, SHM_LONG_SINGLE,
  SHM_OPERANDS_OPAQUE, SHM_OPAQUE, SHM_REMOTE, SHM_WRITES, SHM_REV_PATHS, SHM_RUNS, SHM_AFTER_ONE,
  SHM_AFTER_FILE, SHM_APPENDS,
} from "./format";
import { scratchAlloc } from "./mem";
import { Text, textLen, textPtr } from "./out";
import { isAsciiAlpha, isAsciiDigit, fnv1a, sameBytes, lowerAscii } from "./bytes";
import { wordValueHashed } from "./wordset";
import { setFindHashed, setBucketCount, setBucketKey, strPtr, strLen } from "./decode";
import { findUrl, urlEnd, looksLikeHost, endsUrl } from "./scan";
import { span, spanPtr, spanLen, resolvePath, homePtr, homeLen, hermesPtr, hermesLen } from "./normalize";
import { globsMeet } from "./glob";
import {
  TARGETS_OK, TARGETS_LIMIT, TARGETS_OOM, tableStatus, fail, addTargetCopy, addPathIn, addHost,
  addUrlIn, pathBase, addWrittenIn, addPathPatternIn, addTreeIn, addPatternTarget, addMemberPatterns,
  targetCount as tableCount,
} from "./targettable";

@inline function ok(): bool {
  return tableStatus() == TARGETS_OK;
}

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// ---- the settings of the call ----
let wrappers: u64 = 0;
let network: u64 = 0;
let shells: u64 = 0;
let extensions: u64 = 0;
let programs: u32 = NONE; // SHELL_PROGRAMS: program name -> its option set (§3.4), or NONE
let maxDepth: u32 = 0;
let topP: usize = 0;      // the whole command line: where variables are counted
let topLen: u32 = 0;
let unterminated = false; // the parser stopped inside a construct: the call is opaque

// ---- the word buffer ----
// Words are built in a stack of scratch chunks, each byte with a class beside it (at +half):
// where it came from, which decides what brace expansion, field splitting and globbing do to
// it. A word starts at wStart and is popped once handled. A nested command line pushes its words
// above the word that contains it; when a chunk fills, only the word being built moves to a
// bigger one (text being read again, like a `sh -c` string, stays valid where it is).
const C_LIT: u32 = 0;  // unquoted source text: braces, tildes and globs are live
const C_Q: u32 = 1;    // quoted or escaped: literal
const C_EXP: u32 = 2;  // an unquoted expansion's value: split at white space, globbed
const C_UNK: u32 = 3;  // an unquoted unknown expansion (one byte stands for `**`)
const C_UNKQ: u32 = 4; // a quoted unknown expansion: `**`, not split
const C_NUM: u32 = 5;  // an unknown number or a name without '/': `*`

// What the word being built holds, so a plain word skips the expansion passes.
const W_BRACE: u32 = 1;
const W_GLOB: u32 = 2;
const W_EXPAND: u32 = 4;
const W_UNKNOWN: u32 = 8;
const W_QUOTED: u32 = 16;
const W_TILDE: u32 = 32;
const W_SPLIT: u32 = 64;
const W_SUBST: u32 = 128; // a command or process substitution's output
const W_BRACED: u32 = 256; // a word a brace list made: no longer like an assignment, so `a=~` keeps its '~'

let buf: usize = 0;
let half: usize = 0;
let bufTop: usize = 0;
let wStart: usize = 0;
let wMask: u32 = 0;

// Bytes copied in runs: not special outside quotes (bit 0), inside double quotes (bit 1).
const ORDINARY_OUTSIDE: u32 = 1;
const ORDINARY_INSIDE: u32 = 2;
const byteClass: usize = memory.data(256);
let byteClassReady = false;

function fillByteClass(): void {
  for (let c: u32 = 0; c < 256; c++) {
    let k: u32 = 0;
    if (!isMeta(c) && c != 0x5c && c != 0x27 && c != 0x22 && c != 0x60 && c != 0x24 && c != 0x7b &&
        c != 0x7d && c != 0x2c && c != 0x2a && c != 0x3f && c != 0x5b && c != 0x7e && c != 0x21 &&
        c != 0x40 && c != 0x2b) k |= ORDINARY_OUTSIDE;
    if (c != 0x22 && c != 0x5c && c != 0x24 && c != 0x60) k |= ORDINARY_INSIDE;
    store<u8>(byteClass + c, <u8>k);
  }
  byteClassReady = true;
}

function ordinaryRun(p: usize, len: u32, i: u32, kind: u32): u32 {
  while (i < len && (<u32>load<u8>(byteClass + <usize>load<u8>(p + i)) & kind) != 0) i++;
  return i;
}

@inline function clsAt(p: usize): u32 {
  return <u32>load<u8>(p + half);
}

// Room for n more bytes at bufTop, moving the word being built when the chunk is full.
function ensure(n: u32): bool {
  if (bufTop + <usize>n <= buf + half) return true;
  const live = bufTop - wStart;
  const size = max<usize>(half << 1, live + <usize>n + 256);
  const chunk = scratchAlloc(size << 1);
  if (chunk == 0) { fail(TARGETS_OOM); return false; }
  memory.copy(chunk, wStart, live);
  memory.copy(chunk + size, wStart + half, live);
  buf = chunk;
  half = size;
  wStart = chunk;
  bufTop = chunk + live;
  return true;
}

function noteClass(c: u32, k: u32): void {
  if (k == C_LIT) {
    if (c == 0x7b) wMask |= W_BRACE;
    else if (c == 0x2a || c == 0x3f || c == 0x5b) wMask |= W_GLOB;
    else if (c == 0x7e) wMask |= W_TILDE;
  } else if (k == C_Q) {
    wMask |= W_QUOTED;
  } else if (k == C_EXP) {
    wMask |= W_EXPAND;
    if (c == 0x2a || c == 0x3f || c == 0x5b) wMask |= W_GLOB;
    else if (c == 0x20 || c == 0x09 || c == 0x0a) wMask |= W_SPLIT;
  } else if (k == C_UNK) {
    wMask |= W_EXPAND | W_UNKNOWN | W_SPLIT;
  } else if (k == C_UNKQ) {
    wMask |= W_EXPAND | W_UNKNOWN | W_QUOTED;
  } else {
    wMask |= W_EXPAND;
  }
}

function put(c: u32, k: u32): void {
  if (!ensure(1)) return;
  store<u8>(bufTop, <u8>c);
  store<u8>(bufTop + half, <u8>k);
  bufTop++;
  noteClass(c, k);
}

// Bytes of one class that hold nothing noteClass looks for (ordinary runs), or any bytes.
function putRun(p: usize, n: u32, k: u32): void {
  if (n == 0 || !ensure(n)) return;
  memory.copy(bufTop, p, n);
  memory.fill(bufTop + half, <u8>k, n);
  bufTop += n;
  if (k == C_Q) wMask |= W_QUOTED;
}

function putValue(p: usize, n: u32, k: u32): void {
  if (k == C_Q) { putRun(p, n, k); return; }
  for (let i: u32 = 0; i < n; i++) put(at(p, i), k);
}

function putUnknown(quoted: bool): void {
  put(0x2a, quoted ? C_UNKQ : C_UNK);
}

function startWord(): void {
  wStart = bufTop;
  wMask = 0;
}

function popTo(start: usize): void {
  if (start >= buf && start <= buf + half) bufTop = start;
  wStart = bufTop;
}

// Continues a word of `len` bytes that started at `start` (classes at start + oldHalf) after a
// nested read: it is at the top already, unless the nested read moved to another chunk.
function resumeWord(start: usize, len: u32, oldHalf: usize, mask: u32): void {
  wMask = mask;
  if (bufTop == start + len && start >= buf && start <= buf + half) {
    wStart = start;
    return;
  }
  wStart = bufTop;
  if (!ensure(len)) return;
  memory.copy(bufTop, start, len);
  memory.copy(bufTop + half, start + oldHalf, len);
  bufTop += len;
}

// ---- the working directories ----
// bash's working directory after `cd`: up to BASES_MAX directories it may be (a cd may fail, run
// in a subshell or not run at all), or unknown. A relative path resolves against each.
const BASES_MAX: u32 = 4;
const bases: usize = memory.data(<i32>(BASES_MAX << 3));
let baseCount: u32 = 0;
let baseUnknown = false;

@inline function baseAt(k: u32): u64 {
  return load<u64>(bases + (<usize>k << 3));
}

function basesReset(b: u64): void {
  store<u64>(bases, b);
  baseCount = 1;
  baseUnknown = false;
}

function addBase(b: u64): void {
  if (b == 0) { baseUnknown = true; return; }
  for (let k: u32 = 0; k < baseCount; k++) {
    const o = baseAt(k);
    if (spanLen(o) == spanLen(b) && sameBytes(spanPtr(o), spanPtr(b), spanLen(b))) return;
  }
  if (baseCount >= BASES_MAX) { baseUnknown = true; return; }
  store<u64>(bases + (<usize>baseCount << 3), b);
  baseCount++;
}

// A copy of the directories, to restore after a subshell.
function basesSave(): usize {
  const s = scratchAlloc(<usize>(BASES_MAX << 3) + 8);
  if (s == 0) { fail(TARGETS_OOM); return 0; }
  store<u32>(s, baseCount);
  store<u32>(s + 4, baseUnknown ? 1 : 0);
  memory.copy(s + 8, bases, <usize>(BASES_MAX << 3));
  return s;
}

function basesRestore(s: usize): void {
  if (s == 0) return;
  baseCount = load<u32>(s);
  baseUnknown = load<u32>(s + 4) != 0;
  memory.copy(bases, s + 8, <usize>(BASES_MAX << 3));
}

// The one directory bash is certainly in, or 0.
function certainBase(): u64 {
  return !baseUnknown && baseCount == 1 ? baseAt(0) : 0;
}

// ---- variables ----
// A variable is known when it was assigned exactly once, as a plain assignment at the top level of
// the line (not in a pipeline, a subshell, a loop, a condition or a function), before its use,
// and nothing else in the line can bind it: its name appears nowhere else but in `$NAME`,
// `${NAME…}` references, no other assignment, `read`, `for`, `declare -n` or the like reaches it,
// and no builtin binds a name the reader cannot see. HOME (the configured home), PWD (the one
// directory the reader is sure of) and IFS (white space) are known unless the line names them.
// A use is checked again when the line is read: a binding after it (a loop) makes the call opaque.
const VARS_MAX: u32 = 32;
const VAR_SIZE: usize = 24; // name, name length, value, value length, assignments, flags | scope << 8
const vars: usize = memory.data(<i32>(VARS_MAX * 24));
let varCount: u32 = 0;
let varScope: u32 = 0;     // 0: the shell of the line; each child shell (sh -c) one more
let varsDynamic = false;   // a builtin bound a name the reader cannot read
const V_USED: u32 = 1;
const V_COUNTED: u32 = 2;  // the line was searched for its name
const V_ELSEWHERE: u32 = 4; // the name appears in the line outside references
const V_CONFLICT: u32 = 8;  // bound again, or bound where the reader cannot follow
const VAR_HOME: u32 = 0;
const VAR_PWD: u32 = 1;
const VAR_IFS: u32 = 2;
const NAME_HOME: usize = memory.data<u8>([0x48, 0x4f, 0x4d, 0x45]);
const NAME_PWD: usize = memory.data<u8>([0x50, 0x57, 0x44]);
const NAME_IFS: usize = memory.data<u8>([0x49, 0x46, 0x53]);
const IFS_DEFAULT: usize = memory.data<u8>([0x20, 0x09, 0x0a]);

@inline function varRec(i: u32): usize {
  return vars + <usize>i * VAR_SIZE;
}

function varSet(i: u32, name: usize, nameLen: u32, value: usize, valueLen: u32, count: u32, flags: u32): void {
  const r = varRec(i);
  store<u32>(r, <u32>name);
  store<u32>(r + 4, nameLen);
  store<u32>(r + 8, <u32>value);
  store<u32>(r + 12, valueLen);
  store<u32>(r + 16, count);
  store<u32>(r + 20, flags);
}

function varsBegin(): void {
  varSet(VAR_HOME, NAME_HOME, 4, homePtr(), homeLen(), 0, 0);
  varSet(VAR_PWD, NAME_PWD, 3, 0, 0, 0, 0);
  varSet(VAR_IFS, NAME_IFS, 3, IFS_DEFAULT, 3, 0, 0);
  varCount = 3;
  varScope = 0;
  varsDynamic = false;
}

// The variable named [p, p+n) in the current scope (HOME, PWD, IFS in any), or -1.
function varFind(p: usize, n: u32): i32 {
  for (let i: u32 = varCount; i-- > 0;) {
    const r = varRec(i);
    if (load<u32>(r + 4) != n || !sameBytes(<usize>load<u32>(r), p, n)) continue;
    if (i < 3 || load<u32>(r + 20) >> 8 == varScope) return <i32>i;
  }
  return -1;
}

function isNameStart(c: u32): bool {
  return isAsciiAlpha(c) || c == 0x5f;
}

function isNameByte(c: u32): bool {
  return isNameStart(c) || isAsciiDigit(c);
}

// Whether the name [p, p+n) appears in the whole line other than as `$NAME`, `${NAME`,
// `${#NAME`, `${!NAME` (a `${NAME=…}` or `${NAME:=…}` assigns: it counts), beyond `allowed` times.
function nameElsewhere(p: usize, n: u32, allowed: u32): bool {
  let count: u32 = 0;
  const t = topP;
  let i: u32 = 0;
  while (i < topLen) {
    const c = at(t, i);
    if (!isNameStart(c) || (i > 0 && isNameByte(at(t, i - 1)))) { i++; continue; }
    let j = i + 1;
    while (j < topLen && isNameByte(at(t, j))) j++;
    if (j - i == n && sameBytes(t + i, p, n)) {
      const d1 = i >= 1 ? at(t, i - 1) : 0;
      const d2 = i >= 2 ? at(t, i - 2) : 0;
      const d3 = i >= 3 ? at(t, i - 3) : 0;
      const braced = d1 == 0x7b && d2 == 0x24;
      const reference = d1 == 0x24 || braced || ((d1 == 0x23 || d1 == 0x21) && d2 == 0x7b && d3 == 0x24);
      if (!reference) count++;
      else if (braced && j < topLen && (at(t, j) == 0x3d || (at(t, j) == 0x3a && j + 1 < topLen && at(t, j + 1) == 0x3d))) count++;
      if (count > allowed) return true;
    }
    i = j;
  }
  return false;
}

// The value of variable i, or 0 when the reader cannot know it; a known value marks it used.
function varValue(i: u32): u64 {
  const r = varRec(i);
  let flags = load<u32>(r + 20);
  if ((flags & V_COUNTED) == 0) {
    flags |= V_COUNTED;
    if (nameElsewhere(<usize>load<u32>(r), load<u32>(r + 4), i < 3 ? 0 : 1)) flags |= V_ELSEWHERE;
    store<u32>(r + 20, flags);
  }
  if ((flags & (V_ELSEWHERE | V_CONFLICT)) != 0 || varsDynamic) return 0;
  if (i >= 3 && load<u32>(r + 16) != 1) return 0;
  if (i == VAR_PWD) {
    const b = certainBase();
    if (b == 0) return 0;
    store<u32>(r + 20, flags | V_USED);
    return b;
  }
  if (i == VAR_HOME && homeLen() == 0) return 0;
  if (i == VAR_IFS && varScope > 0) return span(IFS_DEFAULT, 3); // a child shell starts with its own
  store<u32>(r + 20, flags | V_USED);
  return span(<usize>load<u32>(r + 8), load<u32>(r + 12));
}

// Something binds the name [p, p+n): an assignment anywhere, a `read`, a `for`.
function varEvent(p: usize, n: u32): void {
  const i = varFind(p, n);
  if (i < 0) return;
  const r = varRec(<u32>i);
  store<u32>(r + 16, load<u32>(r + 16) + 1);
  store<u32>(r + 20, load<u32>(r + 20) | V_CONFLICT);
}

// A plain assignment at the top level: the name is known from here on, unless bound before.
function varAssign(name: usize, nameLen: u32, value: usize, valueLen: u32, literal: bool): void {
  const i = varFind(name, nameLen);
  if (i >= 0) {
    const r = varRec(<u32>i);
    store<u32>(r + 16, load<u32>(r + 16) + 1);
    store<u32>(r + 20, load<u32>(r + 20) | V_CONFLICT);
    return;
  }
  if (varCount >= VARS_MAX) return;
  varSet(varCount, name, nameLen, value, valueLen, 1, (literal ? 0 : V_CONFLICT) | (varScope << 8));
  varCount++;
}

// Checks every use again at the end: a variable used as known and bound again is opaque.
function varsCheck(): void {
  for (let i: u32 = 0; i < varCount; i++) {
    const r = varRec(i);
    const flags = load<u32>(r + 20);
    if ((flags & V_USED) == 0) continue;
    if ((flags & V_CONFLICT) != 0 || varsDynamic || (i >= 3 && load<u32>(r + 16) != 1)) {
      opaqueWith("variable bound again", <usize>load<u32>(r), load<u32>(r + 4));
    }
  }
}

// ---- compound commands ----
// The stack of open compound commands: what is inside one runs maybe, or later, or in a subshell.
const K_BRACE: u32 = 1;
const K_PAREN: u32 = 2;
const K_IF: u32 = 3;
const K_LOOP: u32 = 4;
const K_CASE: u32 = 5;
const K_FUNC: u32 = 6;
const CS_MAX: u32 = 64;
const cstack: usize = memory.data(<i32>(CS_MAX << 3));
let cdepth: u32 = 0;
let cOverflow: u32 = 0;
let funcDepth: u32 = 0;

function cpush(kind: u32, snapshot: usize): void {
  if (cdepth >= CS_MAX) { cOverflow++; return; }
  store<u32>(cstack + (<usize>cdepth << 3), kind);
  store<u32>(cstack + (<usize>cdepth << 3) + 4, <u32>snapshot);
  cdepth++;
  if (kind == K_FUNC) funcDepth++;
}

@inline function ctop(): u32 {
  return cdepth == 0 ? 0 : load<u32>(cstack + (<usize>(cdepth - 1) << 3));
}

// Closes the innermost compound of `kind` (and a function it was the body of).
function cpop(kind: u32): void {
  if (cOverflow > 0) { cOverflow--; return; }
  if (ctop() != kind) return; // a stray closer: bash would not run the line
  cdepth--;
  if (kind == K_PAREN) basesRestore(<usize>load<u32>(cstack + (<usize>cdepth << 3) + 4));
  if (ctop() == K_FUNC) {
    cdepth--;
    funcDepth--;
  }
}

// ---- frames: the simple command being read ----
const FRAME_SIZE: usize = 200;
const MAX_FRAMES: u32 = 40;
const MAX_HEREDOCS: u32 = 6;
const frames: usize = memory.data(<i32>(FRAME_SIZE * MAX_FRAMES));
let frameTop: u32 = 0; // frames in use
let cur: usize = 0;    // the frame words go to
const F_PHASE: usize = 0;
const F_FLAGS: usize = 4;
const F_SKIP: usize = 12;       // a wrapper's operands of its own still to come (timeout's duration)
const F_REDIRECT: usize = 16;   // the pending redirection
const F_HEREDOCS: usize = 20;   // count; records (ptr, len, flags, 0) follow at 24
const F_SPEC: usize = 120;      // the program's option set, or NONE
const F_MODE: usize = 124;      // its operand flags
const F_OPTS: usize = 128;      // the option flags seen
const F_EXPECT: usize = 132;    // the flags of the option whose value comes next
const F_EXPECT_N: usize = 136;  // how many value words it still takes
const F_OPERANDS: usize = 140;  // operand records (ptr, len, flags), kept to the command's end
const F_NOPER: usize = 144;
const F_OPCAP: usize = 148;
const F_ARCHIVE: usize = 152;   // ptr, len, flags of the ARCHIVE option's value
const F_DIR: usize = 164;       // ptr, len, flags of the DIRECTORY option's value
const F_BUILTIN: usize = 176;
const F_PARENT: usize = 180;    // the frame a sub-command (find -exec) returns to
const F_NAME: usize = 184;      // ptr, len of the program's name (for "git log")
const F_NAME_LEN: usize = 188;
const F_EXPECT_Q: usize = 192;  // a second option's value still to come (tar cfC a.tar dir)
const F_MEMBERS: usize = 196;   // the last of the MEMBERS globs (rg -g) kept for the trees: a node (prev, ptr, len)

// Phases.
const AT_START: u32 = 0;
const IN_WRAPPER: u32 = 1;
const AT_ARGS: u32 = 2;
const IGNORED: u32 = 3;      // words that run nothing (a for loop's list, a case word)
const FOR_NAME: u32 = 4;     // the variable of `for` or `select`
const FUNC_NAME: u32 = 5;    // the name after `function`
const CASE_PATTERN: u32 = 6; // a case pattern, up to its ')'
const DBRACKET: u32 = 7;     // inside [[ … ]]
const CASE_WORD: u32 = 8;    // case WORD in

// Flags of the command being read.
const NETWORK: u32 = 1;
const SHELL: u32 = 2;        // a SHELL_SHELLS program: its -c string is a command
const APPENDS: u32 = 4;      // a wrapper (xargs) adds operands the reader cannot see
const UNTIL_END: u32 = 8;    // a sub-command that ends at a `;` or `+` word (find -exec)
const CD: u32 = 16;
const SU: u32 = 64;          // -c COMMAND
const OPTIONS_DONE: u32 = 256;
const EXPECT_VALUE: u32 = 512;
const VALUE_IS_COMMAND: u32 = 1024;
const COMMAND_NEXT: u32 = 2048;  // a shell saw -c: its next operand is the command line
const HAS_OPERAND: u32 = 4096;
const STDIN_READ: u32 = 8192;    // a here-document feeds this shell: its commands were read
const STDIN_OPTION: u32 = 16384; // a shell saw -s: it reads commands from standard input
const WROTE: u32 = 32768;        // the command writes or connects: the PROGRAM ">" was added
const UNCERTAIN: u32 = 65536;    // an option the program's entry does not know: operands may shift
const SUBCOMMAND_DONE: u32 = 131072;
const COPROC_NAME: u32 = 262144; // after `coproc`: the next word may be its name
const HAS_ARGS: u32 = 524288;    // a word followed the program
const PIPED_IN: u32 = 1048576;   // the command reads a pipe: it runs in a subshell
const ASSIGNS: u32 = 2097152;    // prefix assignments were seen
const PROGRAM_SEEN: u32 = 4194304;
const SCRIPT_OPERAND: u32 = 8388608; // a shell's operand is a script it reads
const OLD_DONE: u32 = 16777216;      // the old-style option cluster was read

// Pending redirections: the next word is their target.
const R_IN: u32 = 1;       // <
const R_OUT: u32 = 2;      // > >> >| &> &>> <>
const R_DUP_OUT: u32 = 3;  // >&word
const R_DUP_IN: u32 = 4;   // <&word
const R_HEREDOC: u32 = 5;
const R_HEREDOC_DASH: u32 = 6;
const R_HERESTRING: u32 = 7;

// Here-document flags.
const H_DASH: u32 = 1;
const H_QUOTED: u32 = 2;
const H_SHELL: u32 = 4; // read by a shell: its body is commands

// Operand flags.
const OP_PATTERN: u32 = 1;
const OP_SPLIT: u32 = 2;   // an unquoted unknown expansion: it may be several words
const OP_LITERAL: u32 = 4; // no expansion at all
const OP_SUBST: u32 = 8;   // holds a substitution's output

@inline function get(f: usize, field: usize): u32 {
  return load<u32>(f + field);
}

@inline function set(f: usize, field: usize, v: u32): void {
  store<u32>(f + field, v);
}

@inline function hasFlag(f: usize, flag: u32): bool {
  return (get(f, F_FLAGS) & flag) != 0;
}

@inline function setFlag(f: usize, flag: u32): void {
  set(f, F_FLAGS, get(f, F_FLAGS) | flag);
}

@inline function clearFlag(f: usize, flag: u32): void {
  set(f, F_FLAGS, get(f, F_FLAGS) & ~flag);
}

function beginCommand(f: usize): void {
  set(f, F_PHASE, AT_START);
  set(f, F_FLAGS, 0);
  set(f, F_SKIP, 0);
  set(f, F_REDIRECT, 0);
  set(f, F_SPEC, NONE);
  set(f, F_MODE, 0);
  set(f, F_OPTS, 0);
  set(f, F_EXPECT, 0);
  set(f, F_EXPECT_N, 0);
  set(f, F_NOPER, 0);
  set(f, F_ARCHIVE, 0);
  set(f, F_ARCHIVE + 4, 0);
  set(f, F_DIR, 0);
  set(f, F_DIR + 4, 0);
  set(f, F_BUILTIN, 0);
  set(f, F_NAME_LEN, 0);
  set(f, F_EXPECT_Q, 0);
  set(f, F_MEMBERS, 0);
}

// A fresh frame for a parse level or a sub-command; 0 past MAX_FRAMES.
function pushFrame(): usize {
  if (frameTop >= MAX_FRAMES) { fail(TARGETS_LIMIT); return 0; }
  const f = frames + <usize>frameTop * FRAME_SIZE;
  frameTop++;
  beginCommand(f);
  set(f, F_HEREDOCS, 0);
  set(f, F_OPCAP, 0);
  set(f, F_PARENT, 0);
  return f;
}

// ---- what the reader adds ----

// What a writing redirection or option adds besides the WRITE: the PROGRAM ">", which no program
// name equals, so an allow rule over PROGRAM holds for the command only if it lists ">" (§6.6).
const WRITES_PROGRAM: usize = memory.data<u8>([0x3e]);
// What a shell given neither a -c string nor a script runs: its standard input (§6.6).
const DEV_STDIN: usize = memory.data<u8>([0x2f, 0x64, 0x65, 0x76, 0x2f, 0x73, 0x74, 0x64, 0x69, 0x6e]);
const ANY: usize = memory.data<u8>([0x2a, 0x2a]);            // "**"
const ANY_CHILD: usize = memory.data<u8>([0x2a, 0x2a, 0x2f]); // "**/"
const DOT: usize = memory.data<u8>([0x2e]);

function writes(f: usize): void {
  if (f != 0 && hasFlag(f, WROTE)) return;
  if (f != 0) setFlag(f, WROTE);
  addTargetCopy(SUBJ_PROGRAM, WRITES_PROGRAM, 1);
}

// An OPAQUE target: `what`, a space and (up to 64 bytes of) the word it is about.
function opaqueWith(what: Text, p: usize, n: u32): void {
  const m = textLen(what);
  const k = min<u32>(n, 64);
  const t = scratchAlloc(<usize>(m + 1 + k));
  if (t == 0) { fail(TARGETS_OOM); return; }
  memory.copy(t, textPtr(what), m);
  let len = m;
  if (k > 0) {
    store<u8>(t + len, 0x20);
    memory.copy(t + len + 1, p, k);
    len += 1 + k;
  }
  addTargetCopy(SUBJ_OPAQUE, t, len);
}

@inline function opaque(what: Text): void {
  opaqueWith(what, 0, 0);
}

// How a path is used.
const USE_READ: u32 = 0;
const USE_WRITE: u32 = 1;
const USE_TREE: u32 = 2;       // read with everything below it
const USE_TREE_WRITE: u32 = 3; // written with everything below it

function pathIn(p: usize, n: u32, b: u64, pattern: bool, use: u32): void {
  if (use >= USE_TREE) addTreeIn(p, n, b, use == USE_TREE_WRITE);
  else if (pattern) addPathPatternIn(p, n, b, use == USE_WRITE);
  else if (use == USE_READ) addPathIn(p, n, b);
  else addWrittenIn(p, n, b);
}

// A path a command uses, against every directory bash may be in; against an unknown one, a
// relative path is the pattern `**/path`.
function usePath(p: usize, n: u32, pattern: bool, use: u32): void {
  if (n == 0 || (pattern && pipeFile(p, n))) return;
  // A '~' left in a word is one bash did not expand ('~/x', `-d @~/x`, `--out=~/x`): a relative
  // name to the kernel, and the home to a program that expands it itself; where the host gave no
  // home, the reader's own `~`.
  const c = at(p, 0);
  if (c == 0x2f || c == 0x7e) pathIn(p, n, span(0, 0), pattern, use);
  if (c == 0x2f || (c == 0x7e && homeLen() == 0)) return;
  if (c == 0x7e) {
    const t = scratchAlloc(<usize>n + 2);
    if (t == 0) { fail(TARGETS_OOM); return; }
    store<u8>(t, 0x2e); store<u8>(t + 1, 0x2f); // ./~x
    memory.copy(t + 2, p, n);
    p = t;
    n += 2;
  }
  for (let k: u32 = 0; k < baseCount; k++) pathIn(p, n, baseAt(k), pattern, use);
  if (baseUnknown) {
    const t = scratchAlloc(<usize>n + 3);
    if (t == 0) { fail(TARGETS_OOM); return; }
    memory.copy(t, ANY_CHILD, 3);
    memory.copy(t + 3, p, n);
    pathIn(t, n + 3, span(0, 0), true, use);
  }
}

// ---- small word tests ----

function isWord(p: usize, n: u32, s: Text): bool {
  return textLen(s) == n && startsWithLit(p, n, s);
}

function startsWithLit(p: usize, n: u32, s: Text): bool {
  const m = textLen(s), q = textPtr(s);
  if (m > n) return false;
  for (let k: u32 = 0; k < m; k++) if (at(p, k) != <u32>load<u8>(q + k)) return false;
  return true;
}

@inline function isMeta(c: u32): bool {
  return c == 0x20 || c == 0x09 || c == 0x0a || c == 0x3b || c == 0x26 || c == 0x7c ||
    c == 0x28 || c == 0x29 || c == 0x3c || c == 0x3e;
}

function allDigits(p: usize, n: u32): bool {
  if (n == 0) return false;
  for (let k: u32 = 0; k < n; k++) if (!isAsciiDigit(at(p, k))) return false;
  return true;
}

// The length of NAME in NAME=…, NAME+=…, NAME[sub]=… at the start of [p, p+n), else 0; the
// name's bytes must be unquoted source text (wordLit tells).
function assignmentName(p: usize, n: u32): u32 {
  if (n == 0 || !isNameStart(at(p, 0))) return 0;
  let k: u32 = 1;
  while (k < n && isNameByte(at(p, k))) k++;
  const name = k;
  if (k < n && at(p, k) == 0x5b) {
    while (k < n && at(p, k) != 0x5d) k++;
    k++;
  }
  if (k < n && at(p, k) == 0x2b) k++;
  return k < n && at(p, k) == 0x3d ? name : 0;
}

function hasByte(p: usize, n: u32, c: u32): bool {
  for (let k: u32 = 0; k < n; k++) if (at(p, k) == c) return true;
  return false;
}

// A word the shell would take for a path: starts with / ~ ./ ../, is . or .., or holds a '/'
// (options and URLs excepted).
function pathShaped(p: usize, n: u32): bool {
  if (n == 0) return false;
  if (pathLead(p, n)) return true;
  if (at(p, 0) == 0x2d) return false;
  return hasByte(p, n, 0x2f);
}

function pathLead(p: usize, n: u32): bool {
  if (n == 0) return false;
  const c = at(p, 0);
  if (c == 0x2f || c == 0x7e) return true;
  if (isWord(p, n, ".") || isWord(p, n, "..")) return true;
  return startsWithLit(p, n, "./") || startsWithLit(p, n, "../");
}

// What one pass over the word being handled found: its first '/' and '=' (n: none), where its
// basename starts, and whether it holds white space or "://".
let factSlash: u32 = 0;
let factEq: u32 = 0;
let factBase: u32 = 0;
let factSpace = false;
let factScheme = false;

function wordFacts(p: usize, n: u32): void {
  factSlash = n;
  factEq = n;
  factBase = 0;
  factSpace = false;
  factScheme = false;
  for (let k: u32 = 0; k < n; k++) {
    const c = at(p, k);
    if (c > 0x3d) continue;
    if (c == 0x2f) {
      if (factSlash == n) factSlash = k;
      factBase = k + 1;
    } else if (c == 0x3d) {
      if (factEq == n) factEq = k;
    } else if (c == 0x20 || c == 0x09 || c == 0x0a) {
      factSpace = true;
    } else if (c == 0x3a && k + 2 < n && at(p, k + 1) == 0x2f && at(p, k + 2) == 0x2f) {
      factScheme = true;
    }
  }
}

// The word being handled, as handleWord gives it: its text (unknown expansions `**`, globs `*`
// `?`), whether that is a pattern, and what it was made of.
let wordPattern = false;
let wordSplit = false;   // an unquoted unknown expansion: bash may make several words of it
let wordLiteral = false; // no expansion: the text is the source's
let wordSubst = false;   // it holds a command or process substitution's output
let wordQuoted = false;  // part of it was quoted

// The word as written when it is a glob and nothing else (valid while it is handled), else 0.
let rawPtr: usize = 0;
let rawLen: u32 = 0;

// URLs anywhere in a word (of a glob, also as it is written).
function wordUrls(p: usize, n: u32): bool {
  if (!factScheme) return false;
  let from: u32 = 0;
  let any = false;
  while (from < n && ok()) {
    const u = findUrl(p, n, from);
    if (u < 0) break;
    let e = urlEnd;
    if (wordPattern) { // a wildcard the trim left out stays: `https://host$x` is no URL of host
      let k = e, wild = false;
      while (k < n && !endsUrl(at(p, k))) { if (at(p, k) == 0x2a || at(p, k) == 0x3f) wild = true; k++; }
      if (wild) e = k;
    }
    addUrlIn(p + <u32>u, e - <u32>u, wordPattern);
    from = e;
    any = true;
  }
  return any;
}

// The paths a word holds by its shape: the word, an `@file`, a `name=value`'s value, an option's
// attached path (`-o/tmp/o`); URLs anywhere.
function wordTargets(p: usize, n: u32): void {
  if (n == 0) return;
  if (wordUrls(p, n)) return;
  const eq = factEq;
  const lead = pathLead(p, n);
  if (eq == n || lead) {
    if (at(p, 0) == 0x40) { if (pathShaped(p + 1, n - 1)) usePath(p + 1, n - 1, wordPattern, USE_READ); }
    else if (lead || (factSlash < n && at(p, 0) != 0x2d) || dotfile(p, n)) usePath(p, n, wordPattern, USE_READ);
  }
  if (eq < n) {
    let v = eq + 1;
    if (v < n && at(p, v) == 0x40) v++;
    if (pathShaped(p + v, n - v)) usePath(p + v, n - v, wordPattern, USE_READ);
  } else if (at(p, 0) == 0x2d) {
    const slash = factSlash;
    if (slash < n) {
      let s = slash;
      while (s > 1 && slash - s < 2 && at(p, s - 1) == 0x2e) s--;
      usePath(p + s, n - s, wordPattern, USE_READ);
    }
  }
  if (wordSplit) usePath(ANY, 2, true, USE_READ);
}

// A word shaped like a hidden file's name (.env, .npmrc, .git-credentials): a file in the
// working directory wherever it stands.
function dotfile(p: usize, n: u32): bool {
  return n > 1 && at(p, 0) == 0x2e && isAsciiAlpha(at(p, 1)) && !hasByte(p, n, 0x20);
}

// An operand that names a file (a program's argument, not an option): the paths by shape, and a
// bare word as a file in the working directory.
function operandPath(p: usize, n: u32, use: u32): void {
  if (n == 0 || isWord(p, n, "-")) return;
  if (factScheme && wordUrls(p, n)) return;
  if (use == USE_READ && !(factSlash == n && factEq == n && !pathLead(p, n) && !allDigits(p, n))) {
    wordTargets(p, n);
    return;
  }
  usePath(p, n, wordPattern, use);
  if (wordSplit) usePath(ANY, 2, true, use);
}

// The host a network program's argument names: `host`, `host:port`, `host/path`,
// `user@host`, `user@host:path`. Bare names must look like hosts (dotted, not a file name).
function hostArgument(p: usize, n: u32): void {
  if (n == 0 || at(p, 0) == 0x2d) return;
  if (wordPattern) {
    hostPattern(p, n);
    if (rawLen == 0) return;
    p = rawPtr; // a glob that matches nothing is its own text
    n = rawLen;
  }
  for (let k: u32 = 0; k + 2 < n; k++) {
    if (at(p, k) == 0x3a && at(p, k + 1) == 0x2f && at(p, k + 2) == 0x2f) return;
  }
  let s: u32 = 0;
  let user = false;
  for (let k: u32 = 0; k < n; k++) if (at(p, k) == 0x40) { s = k + 1; user = true; }
  if (user && s == 1) return; // curl's @file
  let e = s;
  while (e < n && at(p, e) != 0x3a && at(p, e) != 0x2f) e++;
  if (e <= s) return;
  if (user) {
    for (let k = s; k < e; k++) {
      const c = at(p, k);
      if (!(isNameByte(c) || c == 0x2d || c == 0x2e)) return;
    }
    if (at(p, s) == 0x2e || at(p, s) == 0x2d) return;
  } else if (!isWord(p + s, e - s, "localhost") && !looksLikeHost(p, s, e, extensions)) {
    return;
  }
  addHost(p + s, e - s);
}

// A network program's argument the reader could not resolve, like `$(…).exfil.example`: when what
// it can see ends like a host, a DOMAIN pattern.
function hostPattern(p: usize, n: u32): void {
  let e = n;
  for (let k: u32 = 0; k < n; k++) if (at(p, k) == 0x2f || at(p, k) == 0x3a) { e = k; break; }
  let w: u32 = 0; // after the last wildcard
  for (let k: u32 = 0; k < e; k++) if (at(p, k) == 0x2a || at(p, k) == 0x3f) w = k + 1;
  if (w == 0 || w >= e || at(p, w) != 0x2e) return;
  if (!looksLikeHost(p, w + 1, e, extensions)) return;
  const t = scratchAlloc(<usize>e);
  if (t == 0) { fail(TARGETS_OOM); return; }
  for (let k: u32 = 0; k < e; k++) {
    const c = at(p, k);
    store<u8>(t + k, <u8>(c >= 0x41 && c <= 0x5a ? c | 0x20 : c));
  }
  addPatternTarget(SUBJ_DOMAIN, t, e);
}

// `[user@]host:path` (scp, rsync): a remote file; its host is a DOMAIN.
function remoteOperand(p: usize, n: u32): bool {
  let colon: u32 = n;
  for (let k: u32 = 0; k < n; k++) {
    const c = at(p, k);
    if (c == 0x2f) return false; // a '/' before any ':' is a local path
    if (c == 0x3a) { colon = k; break; }
  }
  if (colon == 0 || colon == n) return false;
  let s: u32 = 0;
  for (let k: u32 = 0; k < colon; k++) if (at(p, k) == 0x40) s = k + 1;
  if (s < colon && !wordPattern) addHost(p + s, colon - s);
  else if (wordPattern) opaqueWith("remote host", p, n);
  return true;
}

// `REV:PATH` (git show HEAD~3:.env): PATH in the repository, whose root is the working directory
// or one above it: the pattern `**/PATH`.
function revPath(p: usize, n: u32): bool {
  let colon: u32 = n;
  for (let k: u32 = 0; k < n; k++) {
    const c = at(p, k);
    if (c == 0x2f) return false;
    if (c == 0x3a) { colon = k; break; }
  }
  if (colon == n) return false;
  // :PATH and :N:PATH name the index's copy.
  if (colon == 0 && n > 2 && isAsciiDigit(at(p, 1)) && at(p, 2) == 0x3a) colon = 2;
  let s = colon + 1;
  if (s < n && at(p, s) == 0x2f) s++;
  if (s >= n) return true;
  const t = scratchAlloc(<usize>(n - s + 4));
  if (t == 0) { fail(TARGETS_OOM); return true; }
  store<u8>(t, 0x2f);
  memory.copy(t + 1, ANY_CHILD, 3);
  memory.copy(t + 4, p + s, n - s);
  pathIn(t, n - s + 4, span(0, 0), true, USE_READ);
  return true;
}

// ---- program knowledge (§3.4) ----

const key2: usize = memory.data(2); // "-x" for a short option

// The flags of option key [p, p+n) in option set `spec`, or -1.
function specFlags(spec: u32, p: usize, n: u32): i64 {
  if (spec == NONE || n == 0) return -1;
  return setFindHashed(spec, p, n, fnv1a(p, n));
}

function shortFlags(spec: u32, prefix: u32, c: u32): i64 {
  store<u8>(key2, <u8>prefix);
  store<u8>(key2 + 1, <u8>c);
  return specFlags(spec, key2, 2);
}

const MODE_KEY: usize = memory.data<u8>([0x40]); // "@"

function specMode(spec: u32): u32 {
  const v = specFlags(spec, MODE_KEY, 1);
  return v < 0 ? 0 : <u32>v;
}

// The option set of program [p, p+n), or NONE.
function programSpec(p: usize, n: u32, h: u32): u32 {
  if (programs == NONE) return NONE;
  const v = setFindHashed(programs, p, n, h);
  return v < 0 ? NONE : <u32>v;
}

// Whether the script [p, p+n) holds one of the program's opaque tokens ("%TOKEN" keys).
function scriptIsOpaque(spec: u32, p: usize, n: u32): bool {
  if (spec == NONE) return false;
  const buckets = setBucketCount(spec);
  for (let b: u32 = 0; b < buckets; b++) {
    const key = setBucketKey(spec, b);
    if (key == NONE) continue;
    const kp = strPtr(key), kn = strLen(key);
    if (kn < 2 || load<u8>(kp) != 0x25) continue;
    let tp = kp + 1, tn = kn - 1;
    // "%{TOKEN": TOKEN counts only inside braces and outside parentheses (awk's `print > file`,
    // not its `NR > 1` nor `if (a > b)`); anywhere in a script with a string, a regex or an
    // escape, which may hold braces and parentheses that are no nesting.
    let nested = tn > 1 && load<u8>(tp) == 0x7b;
    if (nested) {
      tp++; tn--;
      if (hasByte(p, n, 0x22) || hasByte(p, n, 0x27) || hasByte(p, n, 0x2f) || hasByte(p, n, 0x5c)) nested = false;
    }
    let braces: i32 = 0, parens: i32 = 0;
    for (let i: u32 = 0; i + tn <= n; i++) {
      const c = at(p, i);
      if (nested) {
        if (c == 0x7b || c == 0x7d || c == 0x3b || c == 0x0a) { // a statement ends: no parentheses open
          parens = 0;
          if (c == 0x7b) braces++; else if (c == 0x7d) braces--;
        } else if (c == 0x28) parens++; else if (c == 0x29) parens--;
        if (braces <= 0 || parens > 0) continue;
      }
      if (c == <u32>load<u8>(tp) && sameBytes(p + i, tp, tn)) return true;
    }
  }
  return false;
}

// The paths a described program always writes (its ">PATH" keys): `~` is the home, `$HERMES_HOME`
// the Hermes home (the first configured, else ~/.hermes), a relative path is in the working
// directory, a glob a pattern; each with everything below it.
function fixedWrites(f: usize, spec: u32): void {
  const buckets = setBucketCount(spec);
  for (let b: u32 = 0; b < buckets && ok(); b++) {
    const key = setBucketKey(spec, b);
    if (key == NONE) continue;
    const kp = strPtr(key), kn = strLen(key);
    if (kn < 2 || load<u8>(kp) != 0x3e) continue;
    let p = kp + 1, n = kn - 1;
    if (n >= 12 && startsWithLit(p, n, "$HERMES_HOME")) {
      let hp = hermesPtr(), hn = hermesLen();
      let e: u32 = 0;
      while (e < hn && load<u8>(hp + e) != 0x0a) e++;
      const rest = n - 12;
      const t = scratchAlloc(<usize>(e + 8 + rest));
      if (t == 0) { fail(TARGETS_OOM); return; }
      let m: u32 = 0;
      if (e > 0) { memory.copy(t, hp, e); m = e; }
      else { store<u8>(t, 0x7e); memory.copy(t + 1, DOT_HERMES, 8); m = 9; } // ~/.hermes
      memory.copy(t + m, p + 12, rest);
      p = t;
      n = m + rest;
    }
    let pattern = false;
    for (let k: u32 = 0; k < n; k++) if (at(p, k) == 0x2a || at(p, k) == 0x3f) pattern = true;
    if (at(p, 0) == 0x7e) pathIn(p, n, span(0, 0), pattern, USE_TREE_WRITE); // ~ is the home here
    else usePath(p, n, pattern, USE_TREE_WRITE);
    writes(f);
  }
}

const DOT_HERMES: usize = memory.data<u8>([0x2f, 0x2e, 0x68, 0x65, 0x72, 0x6d, 0x65, 0x73]); // "/.hermes"

// ---- bash's builtins ----
const B_CD: u8 = 1;       // cd pushd
const B_POPD: u8 = 2;
const B_EVAL: u8 = 3;
const B_SOURCE: u8 = 4;   // source .
const B_ALIAS: u8 = 5;
const B_TRAP: u8 = 6;
const B_DECLARE: u8 = 7;  // declare typeset local export readonly
const B_UNSET: u8 = 8;
const B_READ: u8 = 9;
const B_MAPFILE: u8 = 10; // mapfile readarray
const B_PRINTF: u8 = 11;
const B_LET: u8 = 12;
const B_GETOPTS: u8 = 13;
const B_SET: u8 = 14;
const B_SHOPT: u8 = 15;
const B_HASH: u8 = 16;    // hash enable compgen complete bind fc history: options that run or load
const B_TEST: u8 = 17;    // test [
const B_WAIT: u8 = 18;
const B_ECHO: u8 = 19;    // echo: every operand is data
const B_SU: u8 = 20;      // su runuser: -c COMMAND

// The index of the word [p, p+n) in a space-separated list, or -1.
function wordIn(p: usize, n: u32, list: Text): i32 {
  const q = textPtr(list), m = textLen(list);
  let start: u32 = 0;
  let index: i32 = 0;
  for (let i: u32 = 0; i <= m; i++) {
    if (i < m && load<u8>(q + i) != 0x20) continue;
    if (i - start == n && sameBytes(q + start, p, n)) return index;
    start = i + 1;
    index++;
  }
  return -1;
}

// Bash's builtins the reader reads as bash runs them, and their kinds (in that order).
const BUILTIN_KINDS: usize = memory.data<u8>([
  B_CD, B_CD, B_POPD, B_EVAL, B_SOURCE, B_SOURCE, B_ALIAS, B_TRAP, B_DECLARE, B_DECLARE, B_DECLARE, B_DECLARE,
  B_DECLARE, B_UNSET, B_READ, B_MAPFILE, B_MAPFILE, B_PRINTF, B_LET, B_GETOPTS, B_SET, B_SHOPT, B_HASH, B_HASH,
  B_HASH, B_HASH, B_HASH, B_HASH, B_HASH, B_TEST, B_TEST, B_WAIT, B_ECHO, B_SU, B_SU,
]);

function builtinKind(p: usize, n: u32): u32 {
  const k = wordIn(p, n, "cd pushd popd eval source . alias trap declare typeset local export readonly unset read mapfile readarray printf let getopts set shopt hash enable compgen complete bind fc history test [ wait echo su runuser");
  return k < 0 ? 0 : <u32>load<u8>(BUILTIN_KINDS + <usize>k);
}

// `set` options that change nothing the reader relies on.
function setOptionSafe(p: usize, n: u32): bool {
  for (let k: u32 = 1; k < n; k++) {
    const c = at(p, k);
    // a b e f h m n t u v x C E H P T, and o (its name is checked apart)
    if (!(c == 0x61 || c == 0x62 || c == 0x65 || c == 0x66 || c == 0x68 || c == 0x6d || c == 0x6e ||
          c == 0x74 || c == 0x75 || c == 0x76 || c == 0x78 || c == 0x43 || c == 0x45 || c == 0x48 ||
          c == 0x50 || c == 0x54 || c == 0x6f)) return false;
  }
  return true;
}

const SET_WORD: usize = memory.data<u8>([0x73, 0x65, 0x74]); // "set"

function setNameSafe(p: usize, n: u32): bool {
  return wordIn(p, n, "pipefail errexit nounset xtrace noglob noclobber verbose errtrace functrace hashall noexec notify monitor physical allexport") >= 0;
}

// shopt names that change nothing the reader relies on (its patterns already cover them).
function shoptNameSafe(p: usize, n: u32): bool {
  return wordIn(p, n, "extglob dotglob nullglob failglob globstar lastpipe expand_aliases nocasematch inherit_errexit xpg_echo checkwinsize histappend globasciiranges sourcepath") >= 0;
}

// ---- reading words ----

// A command line nested in a word (`$(…)`, `<(…)`) that starts at `from`; returns the index
// after its ')'. The word being built survives it.
function nested(p: usize, len: u32, from: u32, depth: u32): u32 {
  if (depth + 1 > maxDepth) { fail(TARGETS_LIMIT); return len; }
  const start = wStart, n = <u32>(bufTop - wStart), h = half, mask = wMask;
  const saved = basesSave();
  const end = parseList(p, len, from, depth + 1, true);
  basesRestore(saved);
  resumeWord(start, n, h, mask);
  return end;
}

// A backquoted command that starts at `from` (after the '`'); returns the index after its end.
// Inside, \` \\ \$ (and in double quotes \") stand for the character itself.
function backquoted(p: usize, len: u32, from: u32, depth: u32, inDouble: bool): u32 {
  let k = from;
  while (k < len) {
    const c = at(p, k);
    if (c == 0x5c && k + 1 < len) { k += 2; continue; }
    if (c == 0x60) break;
    k++;
  }
  if (k >= len) unterminated = true;
  const next = k < len ? k + 1 : len;
  if (depth + 1 > maxDepth) { fail(TARGETS_LIMIT); return next; }
  const start = wStart, n = <u32>(bufTop - wStart), h = half, mask = wMask;
  startWord();
  for (let i = from; i < k; i++) {
    const c = at(p, i);
    if (c == 0x5c && i + 1 < k) {
      const d = at(p, i + 1);
      if (d == 0x60 || d == 0x5c || d == 0x24 || (inDouble && d == 0x22)) { put(d, C_Q); i++; continue; }
    }
    put(c, C_Q);
  }
  const text = wStart;
  const saved = basesSave();
  parseList(text, <u32>(bufTop - text), 0, depth + 1, false);
  basesRestore(saved);
  popTo(text);
  resumeWord(start, n, h, mask);
  return next;
}

// Arithmetic from `from` up to its closing "))" (or ']' for `$[…]`, `close` 0x5d): returns the
// index after it, -1 when "((" turns out to open a subshell, -2 when the text ends first.
// Substitutions inside run; a name makes it opaque (bash evaluates a name's value, and a
// subscript in it, as arithmetic again, which can run commands).
let arithName = false;

function arithmetic(p: usize, len: u32, from: u32, depth: u32, bracket: bool): i64 {
  let d: u32 = bracket ? 1 : 2;
  let k = from;
  arithName = false;
  while (k < len && ok()) {
    const c = at(p, k);
    if (bracket) {
      if (c == 0x5b) { d++; k++; continue; }
      if (c == 0x5d) { d--; if (d == 0) return <i64>(k + 1); k++; continue; }
    } else {
      if (c == 0x28) { d++; k++; continue; }
      if (c == 0x29) {
        d--;
        if (d == 1) return k + 1 < len && at(p, k + 1) == 0x29 ? <i64>(k + 2) : -1;
        k++;
        continue;
      }
    }
    if (c == 0x24 && k + 1 < len && at(p, k + 1) == 0x28 && !(k + 2 < len && at(p, k + 2) == 0x28)) {
      k = nested(p, len, k + 2, depth);
      continue;
    }
    if (c == 0x60) { k = backquoted(p, len, k + 1, depth, false); continue; }
    if (isAsciiDigit(c)) { // a number, in any base: 0x1f, 16#ff, 2#101
      k++;
      while (k < len && (isNameByte(at(p, k)) || at(p, k) == 0x23 || at(p, k) == 0x40)) k++;
      continue;
    }
    if (isNameStart(c) || c == 0x24 || c == 0x5b) arithName = true;
    k++;
  }
  return -2;
}

// `${…}` that starts at `from` (after "${"); returns the index after its '}'. Substitutions
// inside run (a default value's `$(…)` is read whether it is used or not).
function braced(p: usize, len: u32, from: u32, depth: u32): u32 {
  let d: u32 = 1;
  let k = from;
  while (k < len && ok()) {
    const c = at(p, k);
    if (c == 0x5c) { k += 2; continue; }
    if (c == 0x27) {
      k++;
      while (k < len && at(p, k) != 0x27) k++;
      k++;
      continue;
    }
    if (c == 0x24 && k + 1 < len && at(p, k + 1) == 0x28) {
      if (k + 2 < len && at(p, k + 2) == 0x28) {
        const end = arithmetic(p, len, k + 3, depth, false);
        if (end >= 0) {
          if (arithName) opaqueWith("arithmetic", p + k, <u32>end - k);
          k = <u32>end;
          continue;
        }
      }
      k = nested(p, len, k + 2, depth);
      continue;
    }
    if (c == 0x24 && k + 1 < len && at(p, k + 1) == 0x7b) { d++; k += 2; continue; }
    if (c == 0x60) { k = backquoted(p, len, k + 1, depth, false); continue; }
    if (c == 0x7d) {
      d--;
      if (d == 0) return k + 1;
    }
    k++;
  }
  unterminated = true;
  return min(k, len);
}

function hexValue(c: u32): i32 {
  if (isAsciiDigit(c)) return <i32>(c - 0x30);
  const l = c | 0x20;
  return l - 0x61 < 6 ? <i32>(l - 0x61 + 10) : -1;
}

function putCodePoint(cp: u32): void {
  if (cp < 0x80) { put(cp, C_Q); return; }
  if (cp < 0x800) { put(0xc0 | (cp >> 6), C_Q); put(0x80 | (cp & 0x3f), C_Q); return; }
  if (cp < 0x10000) {
    put(0xe0 | (cp >> 12), C_Q);
    put(0x80 | ((cp >> 6) & 0x3f), C_Q);
    put(0x80 | (cp & 0x3f), C_Q);
    return;
  }
  put(0xf0 | ((cp >> 18) & 7), C_Q);
  put(0x80 | ((cp >> 12) & 0x3f), C_Q);
  put(0x80 | ((cp >> 6) & 0x3f), C_Q);
  put(0x80 | (cp & 0x3f), C_Q);
}

// `$'…'` from `from` (after "$'"): bash's escapes decoded. Returns the index after the '.
function ansiQuoted(p: usize, len: u32, from: u32): u32 {
  wMask |= W_QUOTED;
  let k = from;
  while (k < len) {
    const c = at(p, k);
    if (c == 0x27) return k + 1;
    if (c != 0x5c || k + 1 >= len) { put(c, C_Q); k++; continue; }
    const e = at(p, k + 1);
    k += 2;
    if (e == 0x78 || e == 0x75 || e == 0x55) { // \xHH \uHHHH \UHHHHHHHH
      const most: u32 = e == 0x78 ? 2 : e == 0x75 ? 4 : 8;
      let v: u32 = 0;
      let digits: u32 = 0;
      while (digits < most && k < len && hexValue(at(p, k)) >= 0) { v = (v << 4) | <u32>hexValue(at(p, k)); k++; digits++; }
      if (digits == 0) { put(0x5c, C_Q); put(e, C_Q); continue; }
      if (e == 0x78) put(v & 0xff, C_Q);
      else putCodePoint(min<u32>(v, 0x10ffff));
      continue;
    }
    if (e >= 0x30 && e <= 0x37) { // \NNN octal
      let v = e - 0x30;
      let digits: u32 = 1;
      while (digits < 3 && k < len && at(p, k) >= 0x30 && at(p, k) <= 0x37) { v = (v << 3) | (at(p, k) - 0x30); k++; digits++; }
      put(v & 0xff, C_Q);
      continue;
    }
    if (e == 0x63 && k < len) { put(at(p, k) & 0x1f, C_Q); k++; continue; } // \cX
    let b = e; // \\ \' \" \?
    if (e == 0x61) b = 7;
    else if (e == 0x62) b = 8;
    else if (e == 0x65 || e == 0x45) b = 27;
    else if (e == 0x66) b = 12;
    else if (e == 0x6e) b = 10;
    else if (e == 0x72) b = 13;
    else if (e == 0x74) b = 9;
    else if (e == 0x76) b = 11;
    else if (e != 0x5c && e != 0x27 && e != 0x22 && e != 0x3f) put(0x5c, C_Q);
    put(b, C_Q);
  }
  unterminated = true;
  return len;
}

// A variable's value where it is expanded: its bytes (quoted: literal; unquoted: split and
// globbed), or unknown. An unquoted value under an IFS the reader does not know is unknown.
function putVariable(i: i32, inDouble: bool): void {
  if (i < 0) { putUnknown(inDouble); return; }
  const v = varValue(<u32>i);
  if (v == 0) { putUnknown(inDouble); return; }
  if (!inDouble && i != VAR_IFS && varValue(VAR_IFS) == 0) { putUnknown(false); return; }
  if (i == VAR_HOME || i == VAR_PWD) { putRun(spanPtr(v), spanLen(v), inDouble ? C_Q : C_EXP); return; }
  putValue(spanPtr(v), spanLen(v), inDouble ? C_Q : C_EXP);
}

// The text of `${…}` [s, e) (between the braces): its value, as far as the reader can know it.
function parameter(p: usize, s: u32, e: u32, inDouble: bool): void {
  if (s >= e) { putUnknown(inDouble); return; }
  const c = at(p, s);
  if (c == 0x23) { put(0x2a, C_NUM); return; } // ${#…}: a length
  if (c == 0x21) { // ${!…}: indirect, unless it lists names (${!prefix*}, ${!a[@]})
    const last = at(p, e - 1);
    if (last == 0x2a || last == 0x40 || last == 0x5d) { putUnknown(inDouble); return; }
    opaqueWith("indirect expansion", p + s, e - s);
    putUnknown(inDouble);
    return;
  }
  if (!isNameStart(c)) { putUnknown(inDouble); return; } // ${1}, ${@}, ${*}, ${?}
  let k = s + 1;
  while (k < e && isNameByte(at(p, k))) k++;
  const name = s, nameLen = k - s;
  if (k < e && at(p, k) == 0x5b) { // a subscript: arithmetic unless @ * or a number
    let j = k + 1;
    while (j < e && at(p, j) != 0x5d) j++;
    const sub = p + k + 1, subLen = j - k - 1;
    if (!(subLen == 1 && (at(sub, 0) == 0x40 || at(sub, 0) == 0x2a)) && !allDigits(sub, subLen)) {
      opaqueWith("arithmetic subscript", p + s, e - s);
    }
    putUnknown(inDouble);
    return;
  }
  const i = varFind(p + name, nameLen);
  if (i < 0) environmentRead(p + name, nameLen);
  if (k == e) { putVariable(i, inDouble); return; }
  const op = at(p, k);
  const op2 = k + 1 < e ? at(p, k + 1) : 0;
  if (op == 0x40) { // ${x@P} expands a prompt: its substitutions run
    if (op2 == 0x50) opaqueWith("prompt expansion", p + s, e - s);
    putUnknown(inDouble);
    return;
  }
  if (op == 0x3a && (op2 == 0x2d || op2 == 0x3d || op2 == 0x3f || op2 == 0x2b)) {
    if (op2 == 0x3d) varEvent(p + name, nameLen);
    if (op2 != 0x2b && i >= 0) { const v = varValue(<u32>i); if (v != 0 && spanLen(v) > 0) { putVariable(i, inDouble); return; } }
    putUnknown(inDouble);
    return;
  }
  if (op == 0x2d || op == 0x3d || op == 0x3f || op == 0x2b) {
    if (op == 0x3d) varEvent(p + name, nameLen);
    if (op != 0x2b && i >= 0 && varValue(<u32>i) != 0) { putVariable(i, inDouble); return; }
    putUnknown(inDouble);
    return;
  }
  if (op == 0x3a) { // ${x:offset[:length]}: arithmetic
    for (let j = k + 1; j < e; j++) if (isNameStart(at(p, j)) || at(p, j) == 0x24) { opaqueWith("arithmetic", p + s, e - s); break; }
    putUnknown(inDouble);
    return;
  }
  if ((op == 0x23 || op == 0x25) && i >= 0) { // ${x#word} ${x%word}: a literal word is cut off
    const v = varValue(<u32>i);
    let w = k + 1;
    if (w < e && at(p, w) == op) w++;
    let plain = v != 0;
    for (let j = w; j < e && plain; j++) {
      const d = at(p, j);
      if (d == 0x2a || d == 0x3f || d == 0x5b || d == 0x24 || d == 0x5c || d == 0x27 || d == 0x22 || d == 0x60 || d == 0x7e) plain = false;
    }
    if (plain) {
      const vp = spanPtr(v), vn = spanLen(v), wp = p + w, wn = e - w;
      let from: u32 = 0, to = vn;
      if (wn <= vn) {
        if (op == 0x23 && sameBytes(vp, wp, wn)) from = wn;
        else if (op == 0x25 && sameBytes(vp + vn - wn, wp, wn)) to = vn - wn;
      }
      if (!inDouble && varValue(VAR_IFS) == 0) { putUnknown(false); return; }
      putValue(vp + from, to - from, inDouble ? C_Q : C_EXP);
      return;
    }
  }
  putUnknown(inDouble);
}

// A '$' at i; returns the index after what it starts.
function dollar(p: usize, len: u32, i: u32, depth: u32, inDouble: bool): u32 {
  if (i + 1 >= len) { put(0x24, inDouble ? C_Q : C_LIT); return i + 1; }
  const c = at(p, i + 1);
  if (!inDouble && c == 0x27) return ansiQuoted(p, len, i + 2);
  if (!inDouble && c == 0x22) return doubleQuoted(p, len, i + 2, depth);
  if (c == 0x28) {
    if (i + 2 < len && at(p, i + 2) == 0x28) {
      const end = arithmetic(p, len, i + 3, depth, false);
      if (end >= 0) {
        if (arithName) opaqueWith("arithmetic", p + i, <u32>end - i);
        put(0x2a, C_NUM);
        return <u32>end;
      }
      if (end == -2) { unterminated = true; return len; }
    }
    const end = nested(p, len, i + 2, depth);
    putUnknown(inDouble);
    wMask |= W_SUBST;
    return end;
  }
  if (c == 0x5b) { // $[…]: old arithmetic
    const end = arithmetic(p, len, i + 2, depth, true);
    if (end < 0) { unterminated = true; return len; }
    if (arithName) opaqueWith("arithmetic", p + i, <u32>end - i);
    put(0x2a, C_NUM);
    return <u32>end;
  }
  if (c == 0x7b) {
    const end = braced(p, len, i + 2, depth);
    parameter(p, i + 2, end > i + 2 && at(p, end - 1) == 0x7d ? end - 1 : end, inDouble);
    return end;
  }
  if (isNameStart(c)) {
    let k = i + 2;
    while (k < len && isNameByte(at(p, k))) k++;
    const v = varFind(p + i + 1, k - i - 1);
    if (v < 0) environmentRead(p + i + 1, k - i - 1);
    putVariable(v, inDouble);
    return k;
  }
  if (isAsciiDigit(c) || c == 0x40 || c == 0x2a || c == 0x5f || c == 0x2d) { putUnknown(inDouble); return i + 2; }
  if (c == 0x23 || c == 0x3f || c == 0x24 || c == 0x21) { put(0x2a, C_NUM); return i + 2; }
  put(0x24, inDouble ? C_Q : C_LIT);
  return i + 1;
}

// "…" from `from` (after the quote); returns the index after the closing quote.
function doubleQuoted(p: usize, len: u32, from: u32, depth: u32): u32 {
  let k = from;
  wMask |= W_QUOTED;
  while (k < len && ok()) {
    const c = at(p, k);
    if (c == 0x22) return k + 1;
    if (c == 0x5c) {
      const d = k + 1 < len ? at(p, k + 1) : 0;
      if (d == 0x0a) { k += 2; continue; }
      if (d == 0x24 || d == 0x60 || d == 0x22 || d == 0x5c) { put(d, C_Q); k += 2; continue; }
      put(c, C_Q);
      k++;
      continue;
    }
    if (c == 0x24) { k = dollar(p, len, k, depth, true); continue; }
    if (c == 0x60) { k = backquoted(p, len, k + 1, depth, true); putUnknown(true); wMask |= W_SUBST; continue; }
    const run = ordinaryRun(p, len, k, ORDINARY_INSIDE);
    putRun(p + k, run - k, C_Q);
    k = run;
  }
  unterminated = true;
  return len;
}

// An extglob group `@(…)` (after its '('): the index after its ')'. Its text is a glob.
function extglobGroup(p: usize, len: u32, from: u32): u32 {
  let d: u32 = 1;
  let k = from;
  while (k < len) {
    const c = at(p, k);
    if (c == 0x5c) { k += 2; continue; }
    if (c == 0x28) d++;
    else if (c == 0x29) { d--; if (d == 0) return k + 1; }
    k++;
  }
  unterminated = true;
  return len;
}

// Where the word at `pos` ends and what follows it, for lookahead: the next non-blank byte.
function nextByte(p: usize, len: u32, i: u32): u32 {
  while (i < len && (at(p, i) == 0x20 || at(p, i) == 0x09)) i++;
  return i < len ? at(p, i) : 0;
}

let wordEnd: u32 = 0;    // where the last word read ended
let wordText: usize = 0; // the source text it was read from
let wordTextLen: u32 = 0;

// Reads the word (or words: a brace list, field splitting) that starts at `pos`.
function readWord(p: usize, len: u32, pos: u32, depth: u32): u32 {
  startWord();
  let i = pos;
  while (i < len && ok()) {
    const c = at(p, i);
    if ((c == 0x3c || c == 0x3e) && i + 1 < len && at(p, i + 1) == 0x28) { // <(…) >(…): /dev/fd/N
      i = nested(p, len, i + 2, depth);
      putRun(DEV_FD, 8, C_Q);
      put(0x2a, C_NUM);
      wMask |= W_SUBST;
      continue;
    }
    if (c == 0x28 && bufTop > wStart && clsAt(bufTop - 1) == C_LIT) { // extglob: @(…) !(…) *(…) +(…) ?(…)
      const g = at(bufTop - 1, 0);
      if (g == 0x40 || g == 0x21 || g == 0x2a || g == 0x2b || g == 0x3f) {
        bufTop--;
        put(0x2a, C_LIT);
        i = extglobGroup(p, len, i + 1);
        continue;
      }
    }
    if (isMeta(c)) break;
    if (c == 0x5c) {
      if (i + 1 >= len) { i++; continue; }
      const d = at(p, i + 1);
      if (d != 0x0a) put(d, C_Q);
      i += 2;
      continue;
    }
    if (c == 0x27) {
      wMask |= W_QUOTED;
      let k = i + 1;
      while (k < len && at(p, k) != 0x27) k++;
      if (k >= len) unterminated = true;
      putRun(p + i + 1, k - i - 1, C_Q);
      i = min(k + 1, len);
      continue;
    }
    if (c == 0x22) { i = doubleQuoted(p, len, i + 1, depth); continue; }
    if (c == 0x60) { i = backquoted(p, len, i + 1, depth, false); putUnknown(false); wMask |= W_SUBST; continue; }
    if (c == 0x24) { i = dollar(p, len, i, depth, false); continue; }
    const run = ordinaryRun(p, len, i, ORDINARY_OUTSIDE);
    if (run > i) {
      putRun(p + i, run - i, C_LIT);
      i = run;
      continue;
    }
    put(c, C_LIT);
    i++;
  }
  wordEnd = i;
  wordText = p;
  wordTextLen = len;
  if (bufTop > wStart || (wMask & W_QUOTED) != 0) finishWord(depth);
  else popTo(wStart);
  return i;
}

const DEV_FD: usize = memory.data<u8>([0x2f, 0x64, 0x65, 0x76, 0x2f, 0x66, 0x64, 0x2f]); // "/dev/fd/"

// ---- expanding a word: brace lists, tildes, field splitting, globs ----

let wordAssign: u32 = 0;   // NAME= at the start of the word (its name's length), in assignment position
let wordPlain = false;     // unquoted source text only: a reserved word can be one
const BRACE_MAX: u32 = 32; // words one brace expansion may make; past it the list is a pattern
let braceWords: u32 = 0;

@inline function clsIn(p: usize, h: usize, i: u32): u32 {
  return <u32>load<u8>(p + h + i);
}

// Appends [p+from, p+to) with its classes (at +h) to the word being built.
function appendRange(p: usize, h: usize, from: u32, to: u32): void {
  const n = to - from;
  if (n == 0 || !ensure(n)) return;
  memory.copy(bufTop, p + from, n);
  memory.copy(bufTop + half, p + h + from, n);
  bufTop += n;
}

// Hands the finished word on (a brace list as its words, each split into fields), then pops it.
function finishWord(depth: u32): void {
  const p = wStart, n = <u32>(bufTop - wStart), h = half;
  const mask = wMask;
  let assign: u32 = 0;
  if (cur != 0 && get(cur, F_PHASE) == AT_START && get(cur, F_REDIRECT) == 0) {
    const name = assignmentName(p, n);
    let plain = name > 0;
    for (let k: u32 = 0; k <= name && plain; k++) if (clsIn(p, h, k) != C_LIT) plain = false;
    if (plain) assign = name;
  }
  if ((mask & (W_BRACE | W_TILDE | W_SPLIT | W_GLOB | W_EXPAND)) == 0) {
    setWordFacts(mask, assign, false, false);
    handleWord(depth, p, n);
  } else if ((mask & W_BRACE) != 0 && assign == 0) {
    braceWords = 0;
    braceExpand(p, n, h, 0, depth, mask);
  } else {
    afterBrace(p, n, h, depth, mask, assign);
  }
  popTo(p);
}

function setWordFacts(mask: u32, assign: u32, pattern: bool, split: bool): void {
  wordSubst = (mask & W_SUBST) != 0;
  wordLiteral = (mask & W_EXPAND) == 0;
  wordPlain = (mask & (W_EXPAND | W_QUOTED)) == 0;
  wordQuoted = (mask & W_QUOTED) != 0;
  wordAssign = assign;
  wordPattern = pattern;
  wordSplit = split;
}

// The brace group that starts at `open` (a live '{'): the index of its '}', or -1; commas
// counts its top-level commas, and sequence tells a `{a..b}` group.
let braceCommas: u32 = 0;
let braceSequence = false;

function braceGroup(p: usize, h: usize, n: u32, open: u32): i32 {
  let d: u32 = 0;
  braceCommas = 0;
  braceSequence = false;
  for (let k = open; k < n; k++) {
    if (clsIn(p, h, k) != C_LIT) continue;
    const c = at(p, k);
    if (c == 0x7b) d++;
    else if (c == 0x7d) {
      d--;
      if (d == 0) {
        if (braceCommas == 0 && k > open + 3) { // {a..b} {1..9..2}
          for (let j = open + 1; j + 1 < k; j++) if (at(p, j) == 0x2e && at(p, j + 1) == 0x2e) braceSequence = true;
        }
        return <i32>k;
      }
    } else if (c == 0x2c && d == 1) braceCommas++;
  }
  return -1;
}

// How many words the brace lists of a word may make (their alternatives multiplied, nested ones
// too), up to BRACE_MAX + 1.
function braceCount(p: usize, n: u32, h: usize): u32 {
  let total: u32 = 1;
  for (let i: u32 = 0; i < n && total <= BRACE_MAX; i++) {
    if (clsIn(p, h, i) != C_LIT || at(p, i) != 0x7b) continue;
    if (braceGroup(p, h, n, i) >= 0) total *= braceCommas + 1;
  }
  return min<u32>(total, BRACE_MAX + 1);
}

function braceExpand(p: usize, n: u32, h: usize, level: u32, depth: u32, mask: u32): void {
  const many = level == 0 && braceCount(p, n, h) > BRACE_MAX;
  for (let i: u32 = 0; i < n && ok(); i++) {
    if (clsIn(p, h, i) != C_LIT || at(p, i) != 0x7b) continue;
    if (i > 0 && at(p, i - 1) == 0x24 && clsIn(p, h, i - 1) == C_LIT) continue; // a lone "${"
    const close = braceGroup(p, h, n, i);
    if (close < 0) { afterBrace(p, n, h, depth, level > 0 ? mask | W_BRACED : mask, 0); return; }
    const e = <u32>close;
    if (braceCommas == 0 && !braceSequence) continue; // {x} and {} are literal
    if (braceSequence || many || level >= 8 || braceWords + braceCommas + 1 > BRACE_MAX) {
      // A sequence (a run of numbers or letters) or too many words: the group is a pattern, and
      // past the bound every group after it too.
      const all = !braceSequence;
      startWord();
      appendRange(p, h, 0, i);
      let from = i;
      let k = i;
      while (k < n) {
        if (clsIn(p, h, k) != C_LIT || at(p, k) != 0x7b || (k > 0 && at(p, k - 1) == 0x24 && clsIn(p, h, k - 1) == C_LIT)) { k++; continue; }
        const c = braceGroup(p, h, n, k);
        if (c < 0 || (braceCommas == 0 && !braceSequence)) { k++; continue; }
        appendRange(p, h, from, k);
        let slash = false;
        for (let j = k; j < <u32>c; j++) if (at(p, j) == 0x2f) slash = true;
        put(0x2a, slash ? C_UNKQ : C_NUM);
        from = <u32>c + 1;
        k = from;
        if (!all) break;
      }
      appendRange(p, h, from, n);
      const q = wStart, m = <u32>(bufTop - wStart), qh = half;
      if (all) afterBrace(q, m, qh, depth, mask | W_BRACED, 0);
      else braceExpand(q, m, qh, level + 1, depth, mask);
      popTo(q);
      return;
    }
    // Each alternative between top-level commas.
    let s = i + 1;
    let d: u32 = 0;
    for (let k = i + 1; k <= e && ok(); k++) {
      const live = clsIn(p, h, k) == C_LIT;
      const c = at(p, k);
      if (live && c == 0x7b) d++;
      else if (live && c == 0x7d && d > 0) { d--; continue; }
      if (k == e || (live && c == 0x2c && d == 0)) {
        startWord();
        appendRange(p, h, 0, i);
        appendRange(p, h, s, k);
        appendRange(p, h, e + 1, n);
        const q = wStart, m = <u32>(bufTop - wStart), qh = half;
        braceExpand(q, m, qh, level + 1, depth, mask);
        popTo(q);
        s = k + 1;
      }
    }
    return;
  }
  braceWords++;
  afterBrace(p, n, h, depth, level > 0 ? mask | W_BRACED : mask, 0);
}

// The value a tilde prefix [s, e) of the word stands for (after the '~'): HOME, PWD for `~+`;
// 0 for the others (`~user`, `~-`, `~+2`), which are unknown.
function tildeValue(p: usize, s: u32, e: u32): u64 {
  if (s == e) return varValue(VAR_HOME);
  if (e == s + 1 && at(p, s) == 0x2b) return varValue(VAR_PWD);
  return 0;
}

// Where a tilde prefix that starts at `i` (a live '~') ends, or -1 when part of it is quoted.
function tildeEnd(p: usize, h: usize, n: u32, i: u32, assignment: bool): i32 {
  let k = i + 1;
  while (k < n) {
    const c = at(p, k);
    if (c == 0x2f || (assignment && c == 0x3a)) break;
    if (clsIn(p, h, k) != C_LIT) return -1;
    k++;
  }
  return <i32>k;
}

// Tildes expanded: at the start, and in an assignment (or a word like one) after its '=' and
// after each ':' that follows.
function afterBrace(p: usize, n: u32, h: usize, depth: u32, mask: u32, assign: u32): void {
  if ((mask & W_TILDE) == 0) { splitFields(p, n, h, depth, mask, assign); return; }
  // bash expands a tilde after '=' in a word like an assignment, but not in one a brace list made
  // (the new word loses the flag).
  const name = (mask & W_BRACED) != 0 ? 0 : assignmentName(p, n);
  let eq = n; // the assignment's '='
  if (name > 0) { eq = name; while (eq < n && at(p, eq) != 0x3d) eq++; }
  let any = false;
  for (let i: u32 = 0; i < n && !any; i++) any = tildeAt(p, h, i, eq);
  if (!any) { splitFields(p, n, h, depth, mask, assign); return; }
  startWord();
  let from: u32 = 0;
  for (let i: u32 = 0; i < n; i++) {
    if (!tildeAt(p, h, i, eq)) continue;
    const e = tildeEnd(p, h, n, i, eq < n);
    if (e < 0) continue;
    appendRange(p, h, from, i);
    const v = tildeValue(p, i + 1, <u32>e);
    if (v != 0) putRun(spanPtr(v), spanLen(v), C_Q);
    else if (homeLen() == 0 && <u32>e == i + 1) put(0x7e, C_LIT); // no home: the "~" form of the policy's constants
    else put(0x2a, C_UNKQ);
    from = <u32>e;
    i = <u32>e - 1;
  }
  appendRange(p, h, from, n);
  const q = wStart, m = <u32>(bufTop - wStart), qh = half;
  splitFields(q, m, qh, depth, mask, assign);
  popTo(q);
}

// Whether a live '~' at i starts a tilde prefix: at the word's start, or after the assignment's
// '=' (at eq) or a later ':'.
function tildeAt(p: usize, h: usize, i: u32, eq: u32): bool {
  if (at(p, i) != 0x7e || clsIn(p, h, i) != C_LIT) return false;
  if (i == 0) return true;
  if (eq >= i || clsIn(p, h, i - 1) != C_LIT) return false;
  return i - 1 == eq || at(p, i - 1) == 0x3a;
}

@inline function isIfsSpace(c: u32): bool {
  return c == 0x20 || c == 0x09 || c == 0x0a;
}

// Field splitting at white space an unquoted expansion brought (not in assignment position).
function splitFields(p: usize, n: u32, h: usize, depth: u32, mask: u32, assign: u32): void {
  if ((mask & W_SPLIT) == 0 || assign > 0) { render(p, 0, n, h, depth, mask, assign); return; }
  let s: u32 = 0;
  let quoted = false;
  for (let i: u32 = 0; i <= n && ok(); i++) {
    if (i < n) {
      const k = clsIn(p, h, i);
      if (!(k == C_EXP && isIfsSpace(at(p, i)))) {
        if (k != C_LIT && k != C_EXP && k != C_UNK) quoted = true;
        continue;
      }
    }
    if (i > s || quoted) render(p, s, i, h, depth, mask, assign);
    s = i + 1;
    quoted = false;
  }
}

// Writes field [s, e) in its final form (unknown parts `**`, globs `*` `?`) and handles it.
function render(p: usize, s: u32, e: u32, h: usize, depth: u32, mask: u32, assign: u32): void {
  let pattern = false;
  let split = false;
  let unknown = false;
  const globs = assign == 0;
  bracketFail = 0;
  for (let i = s; i < e; i++) {
    const k = clsIn(p, h, i);
    if (k == C_UNK) { pattern = true; split = true; unknown = true; }
    else if (k == C_UNKQ || k == C_NUM) { pattern = true; unknown = true; }
    else if (globs && (k == C_LIT || k == C_EXP)) {
      const c = at(p, i);
      if (c == 0x2a || c == 0x3f) pattern = true;
      else if (c == 0x5b && bracketEnd(p, h, i, e) > 0) pattern = true;
    }
  }
  setWordFacts(mask, assign, pattern, split);
  if (!pattern) { handleWord(depth, p + s, e - s); return; }
  // A glob that matches no file stays as it is written: its URLs and hosts are literal too.
  rawPtr = 0;
  rawLen = 0;
  if (!unknown) { rawPtr = p + s; rawLen = e - s; }
  startWord();
  for (let i = s; i < e; i++) {
    const k = clsIn(p, h, i);
    const c = at(p, i);
    if (k == C_UNK || k == C_UNKQ) { put(0x2a, C_Q); put(0x2a, C_Q); continue; }
    if (k == C_NUM) { put(0x2a, C_Q); continue; }
    if (globs && (k == C_LIT || k == C_EXP)) {
      if (c == 0x2a || c == 0x3f) { put(c, C_Q); continue; }
      if (c == 0x5b) { // [abc]: one byte when it matches a file, itself when it matches none
        const b = bracketEnd(p, h, i, e);
        if (b > 0) { put(0x2a, C_Q); i = <u32>b; continue; }
      }
    }
    put(c == 0x2a || c == 0x3f ? 0x3f : c, C_Q); // a literal * or ? in a pattern: one byte
  }
  const q = wStart, m = <u32>(bufTop - wStart);
  setWordFacts(mask, assign, pattern, split);
  handleWord(depth, q, m);
  rawPtr = 0;
  rawLen = 0;
  popTo(q);
}

// The ']' that closes a bracket expression opening at i, or 0 (no '/' inside). A '[' before
// where the last one failed fails too: a word of many '[' is read once, not once each.
let bracketFail: usize = 0;

function bracketEnd(p: usize, h: usize, i: u32, e: u32): i32 {
  if (p + i < bracketFail) return 0;
  const r = bracketScan(p, h, i, e);
  if (r == 0) bracketFail = p + bracketStop;
  return r;
}

let bracketStop: u32 = 0; // where the last scan that failed stopped: a '/', or the field's end

function bracketScan(p: usize, h: usize, i: u32, e: u32): i32 {
  let k = i + 1;
  if (k < e && (at(p, k) == 0x21 || at(p, k) == 0x5e)) k++;
  if (k < e && at(p, k) == 0x5d) k++;
  while (k < e) {
    const c = at(p, k);
    if (c == 0x2f) { bracketStop = k; return 0; }
    if (c == 0x5b && k + 1 < e && at(p, k + 1) == 0x3a) { // [:class:]
      let j = k + 2;
      while (j + 1 < e && !(at(p, j) == 0x3a && at(p, j + 1) == 0x5d)) j++;
      k = j + 2;
      continue;
    }
    if (c == 0x5d && (clsIn(p, h, k) == C_LIT || clsIn(p, h, k) == C_EXP)) return <i32>k;
    k++;
  }
  bracketStop = e;
  return 0;
}
// ---- command lines read again ----

// Reads [p, p+n) as a command line one level deeper: in a child shell (`sh -c`, a here-document
// a shell reads) with its own variables and working directory, or in this one (`eval`, `trap`).
function readAgain(p: usize, n: u32, depth: u32, child: bool): void {
  if (depth + 1 > maxDepth) { fail(TARGETS_LIMIT); return; }
  if (!child) { parseList(p, n, 0, depth + 1, false); return; }
  const saved = basesSave();
  const count = varCount;
  varScope++;
  parseList(p, n, 0, depth + 1, false);
  varScope--;
  varCount = count;
  basesRestore(saved);
}

// A command line a program hands to a shell ($SHELL or sh: flock -c, su -c, watch): read as one,
// and the shell that runs it a program the reader cannot name.
const STAR: usize = memory.data<u8>([0x2a]);

function shellString(p: usize, n: u32, depth: u32): void {
  addPatternTarget(SUBJ_PROGRAM, STAR, 1);
  readAgain(p, n, depth, true);
}

// xargs' replace string (-I {}): a word of the command it runs that holds it is what xargs reads
// from its input, which the reader cannot see.
const BRACES: usize = memory.data<u8>([0x7b, 0x7d]);
let replacePtr: usize = 0;
let replaceLen: u32 = 0;

function keepReplace(p: usize, n: u32): void {
  if (n == 0) return;
  const copy = scratchAlloc(<usize>n);
  if (copy == 0) { fail(TARGETS_OOM); return; }
  memory.copy(copy, p, n);
  replacePtr = copy;
  replaceLen = n;
}

function holdsReplace(p: usize, n: u32): bool {
  if (replaceLen == 0) return false;
  for (let k: u32 = 0; k + replaceLen <= n; k++) if (sameBytes(p + k, replacePtr, replaceLen)) return true;
  return false;
}

// ---- the command state machine ----

// The words of the command at its end, kept in scratch: (ptr, len, OP_ flags) each.
function keepOperand(f: usize, p: usize, n: u32, flags: u32): void {
  const count = get(f, F_NOPER);
  if (count == get(f, F_OPCAP)) {
    const more = max<u32>(8, count << 1);
    const grown = scratchAlloc(<usize>more * 12);
    if (grown == 0) { fail(TARGETS_OOM); return; }
    if (count > 0) memory.copy(grown, <usize>get(f, F_OPERANDS), <usize>count * 12);
    set(f, F_OPERANDS, <u32>grown);
    set(f, F_OPCAP, more);
  }
  const copy = scratchAlloc(max<usize>(<usize>n, 1));
  if (copy == 0) { fail(TARGETS_OOM); return; }
  memory.copy(copy, p, n);
  const r = <usize>get(f, F_OPERANDS) + <usize>count * 12;
  store<u32>(r, <u32>copy);
  store<u32>(r + 4, n);
  store<u32>(r + 8, flags);
  set(f, F_NOPER, count + 1);
}

function wordOpFlags(): u32 {
  return (wordPattern ? OP_PATTERN : 0) | (wordSplit ? OP_SPLIT : 0) | (wordLiteral ? OP_LITERAL : 0) |
    (wordSubst ? OP_SUBST : 0);
}

@inline function operandPtr(f: usize, k: u32): usize {
  return <usize>load<u32>(<usize>get(f, F_OPERANDS) + <usize>k * 12);
}

@inline function operandLen(f: usize, k: u32): u32 {
  return load<u32>(<usize>get(f, F_OPERANDS) + <usize>k * 12 + 4);
}

@inline function operandFlags(f: usize, k: u32): u32 {
  return load<u32>(<usize>get(f, F_OPERANDS) + <usize>k * 12 + 8);
}

// Makes operand k the word being handled again (its facts and shape).
function recall(f: usize, k: u32): void {
  const flags = operandFlags(f, k);
  wordPattern = (flags & OP_PATTERN) != 0;
  wordSplit = (flags & OP_SPLIT) != 0;
  wordLiteral = (flags & OP_LITERAL) != 0;
  wordSubst = (flags & OP_SUBST) != 0;
  wordFacts(operandPtr(f, k), operandLen(f, k));
}

// A prefix assignment (NAME=value before a program, or alone): kept to the command's end.
function assignment(f: usize, p: usize, n: u32): void {
  setFlag(f, ASSIGNS);
  wordTargets(p, n); // PATH=/x: its value's paths
  keepOperand(f, p, n, wordOpFlags() | (wordAssign << 8));
}

// The program named by a path, as the absolute path(s) it is (and its basename, added apart).
function programPath(p: usize, n: u32): void {
  if (wordPattern) return;
  const c = at(p, 0);
  if (c == 0x2f || c == 0x7e) {
    const s = resolvePath(p, n, 0, 0);
    if (s != 0) addTargetCopy(SUBJ_PROGRAM, spanPtr(s), spanLen(s));
    return;
  }
  for (let k: u32 = 0; k < baseCount; k++) {
    const b = baseAt(k);
    const s = resolvePath(p, n, spanPtr(b), spanLen(b));
    if (s != 0) addTargetCopy(SUBJ_PROGRAM, spanPtr(s), spanLen(s));
  }
  if (baseUnknown) addPatternTarget(SUBJ_PROGRAM, ANY, 2);
}

function startProgram(f: usize, p: usize, n: u32, depth: u32): void {
  if (wordAssign > 0) { assignment(f, p, n); return; }
  if (hasFlag(f, COPROC_NAME)) {
    clearFlag(f, COPROC_NAME);
    const next = nextByte(wordText, wordTextLen, wordEnd);
    if (wordPlain && assignmentName(p, n) == 0 && (next == 0x7b || next == 0x28)) return; // coproc NAME { … }
  }
  if (wordPlain && n <= 8) {
    if (isWord(p, n, "!") || isWord(p, n, "then") || isWord(p, n, "else") || isWord(p, n, "elif") ||
        isWord(p, n, "do") || isWord(p, n, "]]")) return;
    if (isWord(p, n, "{")) { cpush(K_BRACE, 0); return; }
    if (isWord(p, n, "}")) { cpop(K_BRACE); return; }
    if (isWord(p, n, "if")) { cpush(K_IF, 0); return; }
    if (isWord(p, n, "while") || isWord(p, n, "until")) { cpush(K_LOOP, 0); return; }
    if (isWord(p, n, "fi")) { cpop(K_IF); return; }
    if (isWord(p, n, "done")) { cpop(K_LOOP); return; }
    if (isWord(p, n, "esac")) { cpop(K_CASE); return; }
    if (isWord(p, n, "for") || isWord(p, n, "select")) { cpush(K_LOOP, 0); set(f, F_PHASE, FOR_NAME); return; }
    if (isWord(p, n, "case")) { cpush(K_CASE, 0); set(f, F_PHASE, CASE_WORD); return; }
    if (isWord(p, n, "function")) { set(f, F_PHASE, FUNC_NAME); return; }
    if (isWord(p, n, "coproc")) { setFlag(f, COPROC_NAME); return; }
    if (isWord(p, n, "[[")) { set(f, F_PHASE, DBRACKET); return; }
  }
  if (n == 0) return;
  // The prefix assignments change what runs: LD_PRELOAD, PATH, GIT_*, PAGER, BASH_ENV, ….
  const kept = get(f, F_NOPER);
  for (let k: u32 = 0; k < kept; k++) {
    const name = operandFlags(f, k) >> 8;
    opaqueWith("assignment", operandPtr(f, k), name);
    varEvent(operandPtr(f, k), name);
  }
  set(f, F_NOPER, 0);
  setFlag(f, PROGRAM_SEEN);
  set(f, F_PHASE, AT_ARGS);
  if (wordPattern) {
    addPatternTarget(SUBJ_PROGRAM, p + factBase, n - factBase);
    opaqueWith("program", p, n);
    return;
  }
  if (factSpace) { // a program name with spaces is a command line passed as one word (`watch "curl x"`)
    shellString(p, n, depth);
    return;
  }
  if (n == 1 && at(p, 0) == 0x3e) opaqueWith("program", p, n);
  const name = p + factBase;
  const len = n - factBase;
  if (factBase > 0) {
    wordTargets(p, n);
    programPath(p, n);
  }
  addTargetCopy(SUBJ_PROGRAM, name, len);
  const h = fnv1a(name, len);
  const keep = get(f, F_FLAGS) & (UNTIL_END | PIPED_IN | APPENDS | PROGRAM_SEEN | ASSIGNS);
  const spec = programSpec(name, len, h);
  const mode = specMode(spec);
  if ((mode & SHM_RUNS) != 0 || wordValueHashed(wrappers, name, len, h) >= 0 || isWord(name, len, "busybox")) {
    // A wrapper: its options (as its entry describes them), its own operands, then the program.
    set(f, F_PHASE, IN_WRAPPER);
    set(f, F_SPEC, spec);
    set(f, F_MODE, mode);
    set(f, F_SKIP, (mode & SHM_AFTER_ONE) != 0 ? 1 : 0);
    set(f, F_FLAGS, keep | ((mode & SHM_APPENDS) != 0 ? APPENDS : 0));
    if ((mode & SHM_WRITES) != 0) fixedWrites(f, spec);
    if ((mode & SHM_OPAQUE) != 0) opaqueWith("program", name, len);
    if (factBase > 0) opaqueWith("program named by a path", p, n);
    return;
  }
  let flags = keep;
  if (wordValueHashed(network, name, len, h) >= 0) flags |= NETWORK;
  if (wordValueHashed(shells, name, len, h) >= 0) flags |= SHELL;
  const builtin = factBase == 0 ? builtinKind(name, len) : 0;
  if (builtin == B_CD) flags |= CD;
  if (builtin == B_SU) flags |= SU;
  set(f, F_FLAGS, flags);
  set(f, F_BUILTIN, builtin);
  set(f, F_SPEC, spec);
  set(f, F_MODE, mode);
  if ((mode & SHM_SUBCOMMAND) != 0 || builtin == B_HASH) { // its name outlives the word: "git log", fc
    const copy = scratchAlloc(<usize>len);
    if (copy == 0) { fail(TARGETS_OOM); return; }
    memory.copy(copy, name, len);
    set(f, F_NAME, <u32>copy);
    set(f, F_NAME_LEN, len);
  }
  if ((mode & SHM_OPAQUE) != 0) opaqueWith("program", name, len);
  if ((mode & SHM_WRITES) != 0) fixedWrites(f, spec);
  // A program named by a path is whatever that file is, not the program its name suggests.
  if (factBase > 0) opaqueWith("program named by a path", p, n);
}

function wrapperWord(f: usize, p: usize, n: u32, depth: u32): void {
  const expect = get(f, F_EXPECT_N);
  if (expect > 0) { // an option's value
    set(f, F_EXPECT_N, expect - 1);
    optionValue(f, get(f, F_EXPECT), p, n, depth);
    return;
  }
  if (!hasFlag(f, OPTIONS_DONE) && n == 1 && at(p, 0) == 0x2d && !wordPattern) {
    addTargetCopy(SUBJ_PROGRAM, p, 1); // `env -` is env -i; to another wrapper "-" may be the program
    return;
  }
  if (!hasFlag(f, OPTIONS_DONE) && n > 1 && at(p, 0) == 0x2d && !wordPattern) {
    if (isWord(p, n, "--")) { setFlag(f, OPTIONS_DONE); return; }
    clearFlag(f, UNCERTAIN);
    if (get(f, F_SPEC) != NONE) knownOption(f, p, n, depth);
    else { setFlag(f, UNCERTAIN); wordTargets(p, n); } // a wrapper nobody described
    // An option the entry does not know may take the next word, or not: where the program starts
    // is unknown (nice's -5, a value after '=' are no such option).
    if (hasFlag(f, UNCERTAIN) && !hasByte(p, n, 0x3d) && !allDigits(p + 1, n - 1)) opaqueWith("wrapper option", p, n);
    clearFlag(f, UNCERTAIN);
    return;
  }
  const skip = get(f, F_SKIP);
  if (skip > 0) { // its own operand: timeout's duration, chroot's directory, flock's lock file
    set(f, F_SKIP, skip - 1);
    if ((get(f, F_MODE) & SHM_AFTER_FILE) != 0) { usePath(p, n, wordPattern, USE_WRITE); writes(f); }
    else wordTargets(p, n);
    return;
  }
  // The program it runs: an assignment (`env X=1 cmd`) before it is one of its environment.
  set(f, F_PHASE, AT_START);
  set(f, F_SPEC, NONE);
  set(f, F_MODE, 0);
  set(f, F_OPTS, 0);
  set(f, F_FLAGS, get(f, F_FLAGS) & (UNTIL_END | PIPED_IN | APPENDS | ASSIGNS));
  if (assignmentName(p, n) > 0 && wordLiteral) { wordAssign = assignmentName(p, n); assignment(f, p, n); return; }
  startProgram(f, p, n, depth);
}

// Arguments of a shell (-c, options with values), `su` (-c), and a shell's script operand.
function shellArgument(f: usize, p: usize, n: u32, depth: u32): void {
  if (hasFlag(f, EXPECT_VALUE)) {
    const command = hasFlag(f, VALUE_IS_COMMAND);
    clearFlag(f, EXPECT_VALUE | VALUE_IS_COMMAND);
    if (command) shellString(p, n, depth);
    return;
  }
  const isOption = n > 0 && (at(p, 0) == 0x2d || at(p, 0) == 0x2b) && !hasFlag(f, OPTIONS_DONE);
  if (isOption) {
    if (isWord(p, n, "--") || (isWord(p, n, "-") && !hasFlag(f, SU))) { setFlag(f, OPTIONS_DONE); return; }
    if (hasFlag(f, SU)) {
      if (isWord(p, n, "-c") || isWord(p, n, "--command")) setFlag(f, EXPECT_VALUE | VALUE_IS_COMMAND);
      else if (startsWithLit(p, n, "--command=")) shellString(p + 10, n - 10, depth);
      else if (isWord(p, n, "-s") || isWord(p, n, "--shell") || isWord(p, n, "-g") || isWord(p, n, "-G") ||
               isWord(p, n, "-u") || isWord(p, n, "--group") || isWord(p, n, "--supp-group")) setFlag(f, EXPECT_VALUE);
      return;
    }
    if (isWord(p, n, "-o") || isWord(p, n, "+o") || isWord(p, n, "-O") || isWord(p, n, "+O") ||
        isWord(p, n, "--rcfile") || isWord(p, n, "--init-file")) { setFlag(f, EXPECT_VALUE); return; }
    if (at(p, 0) == 0x2d && at(p, 1) != 0x2d) {
      for (let k: u32 = 1; k < n; k++) {
        if (at(p, k) == 0x63) setFlag(f, COMMAND_NEXT);
        else if (at(p, k) == 0x73) setFlag(f, STDIN_OPTION);
      }
    }
    return;
  }
  if (!hasFlag(f, SHELL)) { wordTargets(p, n); return; }
  // The first operand is the -c command line, or a script whose arguments follow.
  if (!hasFlag(f, HAS_OPERAND)) {
    if (hasFlag(f, COMMAND_NEXT)) {
      if (!wordPattern) readAgain(p, n, depth, true);
      else if (wordSubst) addTargetCopy(SUBJ_PROGRAM, DEV_STDIN, 10); // sh -c "$(curl …)": output run as code
      else opaqueWith("shell string", p, n);
    } else {
      setFlag(f, SCRIPT_OPERAND);
      if (wordSubst) addTargetCopy(SUBJ_PROGRAM, DEV_STDIN, 10); // bash <(curl …)
      else opaqueWith("script", p, n); // a script the reader does not read
      operandPath(p, n, USE_READ);
    }
  } else {
    wordTargets(p, n);
  }
  setFlag(f, HAS_OPERAND | OPTIONS_DONE);
}

// ---- arguments of programs the policy describes (§3.4) ----

// A value an option takes, by the option's flags.
function optionValue(f: usize, flags: u32, p: usize, n: u32, depth: u32): void {
  wordFacts(p, n);
  if ((flags & SHO_OUTPUT) != 0) outputPath(f, p, n);
  else if ((flags & SHO_OUTPUT_DIR) != 0) {
    usePath(p, n, wordPattern, USE_TREE_WRITE);
    writes(f);
  } else if ((flags & SHO_DIRECTORY) != 0) keepValue(f, F_DIR, p, n);
  else if ((flags & SHO_ARCHIVE) != 0) keepValue(f, F_ARCHIVE, p, n);
  else if ((flags & SHO_REPLACE) != 0) keepReplace(p, n);
  else if ((flags & SHO_MEMBERS) != 0) keepMember(f, p, n);
  else if ((flags & SHO_COMMAND) != 0) {
    if (!wordPattern) shellString(p, n, depth);
    else opaqueWith("command", p, n);
  } else wordTargets(p, n);
  if ((flags & SHO_SCRIPT) != 0 && scriptIsOpaque(get(f, F_SPEC), p, n)) opaqueWith("script", p, n);
}

// A glob of the files below the trees a command reads (rg -g, grep --include), kept until its
// operands are read (§3.4 MEMBERS). A glob bash left unresolved may be any: `*`.
function keepMember(f: usize, p: usize, n: u32): void {
  if (wordPattern) { p = STAR; n = 1; }
  const node = scratchAlloc(12 + <usize>n);
  if (node == 0) { fail(TARGETS_OOM); return; }
  memory.copy(node + 12, p, n);
  store<u32>(node, get(f, F_MEMBERS));
  store<u32>(node + 4, <u32>(node + 12));
  store<u32>(node + 8, n);
  set(f, F_MEMBERS, <u32>node);
}

// The URLs echo or printf prints into a pipe: the next program may reach them (| xargs curl).
function printedUrls(f: usize): void {
  const count = get(f, F_NOPER);
  for (let k: u32 = 0; k < count && ok(); k++) {
    recall(f, k);
    wordUrls(operandPtr(f, k), operandLen(f, k));
  }
}

// Whether a program's entry has an option that singles out files (MEMBERS).
function specHasMembers(spec: u32): bool {
  if (spec == NONE) return false;
  const buckets = setBucketCount(spec);
  for (let b: u32 = 0; b < buckets; b++) {
    const key = setBucketKey(spec, b);
    if (key == NONE) continue;
    const v = specFlags(spec, strPtr(key), strLen(key));
    if (v > 0 && (<u32>v & SHO_MEMBERS) != 0 && load<u8>(strPtr(key)) == 0x2d) return true;
  }
  return false;
}

// The files the kept globs single out below each tree the command added since entry `from` of
// the table: DIR/**/GLOB.
function memberTrees(f: usize, from: u32): void {
  for (let node = <usize>get(f, F_MEMBERS); node != 0 && ok(); node = <usize>load<u32>(node)) {
    addMemberPatterns(from, <usize>load<u32>(node + 4), load<u32>(node + 8));
  }
}

function keepValue(f: usize, field: usize, p: usize, n: u32): void {
  const copy = scratchAlloc(max<usize>(<usize>n, 1));
  if (copy == 0) { fail(TARGETS_OOM); return; }
  memory.copy(copy, p, n);
  set(f, field, <u32>copy);
  set(f, field + 4, n);
  set(f, field + 8, wordOpFlags());
}

// Special files bash opens itself, or that write nowhere: no WRITE, no PATH.
function quietFile(p: usize, n: u32): bool {
  if (pipeFile(p, n)) return true;
  if (wordPattern) return false;
  return isWord(p, n, "/dev/null") || isWord(p, n, "/dev/stdout") || isWord(p, n, "/dev/stderr") ||
    isWord(p, n, "/dev/stdin") || isWord(p, n, "/dev/tty") || isWord(p, n, "-") ||
    (startsWithLit(p, n, "/dev/fd/") && allDigits(p + 8, n - 8));
}

// /dev/fd/N, or a process substitution `<(…)` (/dev/fd/*): a pipe, not a file.
function pipeFile(p: usize, n: u32): bool {
  return n == 9 && startsWithLit(p, n, "/dev/fd/") && at(p, 8) == 0x2a && wordPattern;
}

// A file an option names as the command's output.
function outputPath(f: usize, p: usize, n: u32): void {
  if (quietFile(p, n)) return;
  usePath(p, n, wordPattern, USE_WRITE);
  if (wordSplit) usePath(ANY, 2, true, USE_WRITE);
  writes(f);
}

// Applies an option's flags; returns how many words of value it takes (0, 1 or 2).
function applyOption(f: usize, flags: u32, p: usize, n: u32): void {
  set(f, F_OPTS, get(f, F_OPTS) | flags);
  if ((flags & SHO_OPAQUE) != 0) opaqueWith("option", p, n);
  if ((flags & SHO_COMMAND_UNTIL) != 0) startSub(f);
}

function expectValues(f: usize, flags: u32): void {
  if ((flags & SHO_VALUE2) != 0) { set(f, F_EXPECT, flags); set(f, F_EXPECT_N, 2); }
  else if ((flags & SHO_VALUE) != 0) { set(f, F_EXPECT, flags); set(f, F_EXPECT_N, 1); }
}

// An option word: --name[=value], a cluster -abc (a letter with a value takes the rest of the
// word or the next word), or one single-dash option (find -name).
function knownOption(f: usize, p: usize, n: u32, depth: u32): void {
  const spec = get(f, F_SPEC);
  const long = n > 2 && at(p, 1) == 0x2d;
  if (long || (get(f, F_MODE) & SHM_LONG_SINGLE) != 0 || at(p, 0) == 0x2b) {
    let eq: u32 = 1;
    while (eq < n && at(p, eq) != 0x3d) eq++;
    const plus = at(p, 0) == 0x2b;
    let flags = plus ? specFlags(spec, p, 1) : specFlags(spec, p, eq);
    if (flags < 0 && long) flags = abbreviated(spec, p, eq);
    if (flags < 0) { set(f, F_FLAGS, get(f, F_FLAGS) | UNCERTAIN); wordTargets(p, n); return; }
    const fl = <u32>flags;
    applyOption(f, fl, p, n);
    if (plus) { if (n > 1) optionValue(f, fl, p + 1, n - 1, depth); return; }
    if (eq < n) optionValue(f, fl, p + eq + 1, n - eq - 1, depth);
    else if ((fl & (SHO_VALUE | SHO_VALUE2)) != 0) expectValues(f, fl);
    else if ((fl & SHO_REPLACE) != 0) keepReplace(BRACES, 2); // xargs --replace: {}
    return;
  }
  let unknown = false;
  for (let k: u32 = 1; k < n && ok(); k++) {
    const flags = shortFlags(spec, at(p, 0), at(p, k));
    if (flags < 0) { unknown = true; continue; }
    const fl = <u32>flags;
    applyOption(f, fl, p, n);
    if ((fl & (SHO_VALUE | SHO_VALUE2 | SHO_ATTACHED)) != 0) {
      if (k + 1 < n) {
        optionValue(f, fl, p + k + 1, n - k - 1, depth);
        if ((fl & SHO_VALUE2) != 0) { set(f, F_EXPECT, fl); set(f, F_EXPECT_N, 1); }
      } else if ((fl & (SHO_VALUE | SHO_VALUE2)) != 0) expectValues(f, fl);
      else if ((fl & SHO_REPLACE) != 0) keepReplace(BRACES, 2); // xargs -i: {}
      break;
    }
  }
  if (unknown) {
    set(f, F_FLAGS, get(f, F_FLAGS) | UNCERTAIN);
    wordFacts(p, n);
    wordTargets(p, n);
  }
}

// A long option abbreviated (getopt_long and git take any prefix: `sort --out=FILE`): the flags
// of every option of the set it can stand for, or -1.
function abbreviated(spec: u32, p: usize, n: u32): i64 {
  let flags: i64 = -1;
  const buckets = setBucketCount(spec);
  for (let b: u32 = 0; b < buckets; b++) {
    const key = setBucketKey(spec, b);
    if (key == NONE) continue;
    const kp = strPtr(key), kn = strLen(key);
    if (kn <= n || !sameBytes(kp, p, n)) continue;
    const v = specFlags(spec, kp, kn);
    flags = flags < 0 ? v : flags | v;
  }
  return flags;
}

// The subcommand of a program whose entry says so (git log): PROGRAM "git log", and its entry.
function subcommand(f: usize, p: usize, n: u32): void {
  setFlag(f, SUBCOMMAND_DONE);
  if (wordPattern || hasByte(p, n, 0x20)) { opaqueWith("subcommand", p, n); set(f, F_SPEC, NONE); set(f, F_MODE, 0); return; }
  const name = <usize>get(f, F_NAME), len = get(f, F_NAME_LEN);
  const t = scratchAlloc(<usize>(len + 1 + n));
  if (t == 0) { fail(TARGETS_OOM); return; }
  memory.copy(t, name, len);
  store<u8>(t + len, 0x20);
  memory.copy(t + len + 1, p, n);
  addTargetCopy(SUBJ_PROGRAM, t, len + 1 + n);
  const spec = programSpec(t, len + 1 + n, fnv1a(t, len + 1 + n));
  set(f, F_SPEC, spec);
  set(f, F_MODE, specMode(spec));
  clearFlag(f, OPTIONS_DONE | UNCERTAIN);
  if ((specMode(spec) & SHM_OPAQUE) != 0) opaqueWith("program", t, len + 1 + n);
  if ((specMode(spec) & SHM_WRITES) != 0) fixedWrites(f, spec);
}

function knownArgument(f: usize, p: usize, n: u32, depth: u32): void {
  const expect = get(f, F_EXPECT_N);
  if (expect > 0) {
    const flags = get(f, F_EXPECT);
    set(f, F_EXPECT_N, expect - 1);
    if (expect == 1 && get(f, F_EXPECT_Q) != 0) { // the next letter's value of an old-style cluster
      set(f, F_EXPECT, get(f, F_EXPECT_Q));
      set(f, F_EXPECT_N, 1);
      set(f, F_EXPECT_Q, 0);
    }
    // Of two values the flags are the first's when it is an output (find -fprintf FILE FORMAT),
    // else the second's (jq --rawfile NAME FILE); the other is read by its shape.
    const output = (flags & SHO_OUTPUT) != 0;
    if ((flags & SHO_VALUE2) != 0 && (expect == 2) != output) wordTargets(p, n);
    else optionValue(f, flags, p, n, depth);
    return;
  }
  const mode = get(f, F_MODE);
  if (!hasFlag(f, OPTIONS_DONE) && n > 1) {
    if (isWord(p, n, "--")) { setFlag(f, OPTIONS_DONE); return; }
    const c = at(p, 0);
    if (c == 0x2d || (c == 0x2b && specFlags(get(f, F_SPEC), p, 1) >= 0)) {
      if (wordPattern) { setFlag(f, UNCERTAIN); wordTargets(p, n); return; }
      knownOption(f, p, n, depth);
      return;
    }
  }
  if ((mode & SHM_OLD_STYLE) != 0 && !hasFlag(f, OLD_DONE) && get(f, F_NOPER) == 0 && get(f, F_OPTS) == 0 &&
      !wordPattern && n > 0 && at(p, 0) != 0x2d) {
    // tar czf x.tgz: the letters are options, their values the next words in order.
    setFlag(f, OLD_DONE);
    const spec = get(f, F_SPEC);
    for (let k: u32 = 0; k < n; k++) {
      const flags = shortFlags(spec, 0x2d, at(p, k));
      if (flags < 0) { setFlag(f, UNCERTAIN); continue; }
      const fl = <u32>flags;
      applyOption(f, fl, p, n);
      if ((fl & SHO_VALUE) == 0) continue;
      if (get(f, F_EXPECT_N) == 0) { set(f, F_EXPECT, fl); set(f, F_EXPECT_N, 1); }
      else if (get(f, F_EXPECT_Q) == 0) set(f, F_EXPECT_Q, fl);
    }
    return;
  }
  if ((mode & SHM_SUBCOMMAND) != 0 && !hasFlag(f, SUBCOMMAND_DONE)) { subcommand(f, p, n); return; }
  if ((mode & SHM_KEYS) != 0 && factEq < n) {
    const flags = specFlags(get(f, F_SPEC), p, factEq + 1);
    if (flags >= 0) optionValue(f, <u32>flags, p + factEq + 1, n - factEq - 1, depth);
    else wordTargets(p, n);
    return;
  }
  if (hasFlag(f, NETWORK)) hostArgument(p, n);
  keepOperand(f, p, n, wordOpFlags());
}

// The operands of a described program, at its end: scripts, data, files read, trees, files
// written, the directory it extracts into and its archive.
function knownOperands(f: usize): void {
  const mode = get(f, F_MODE), opts = get(f, F_OPTS);
  const count = get(f, F_NOPER);
  const uncertain = hasFlag(f, UNCERTAIN);
  let first: u32 = 0;
  if ((mode & (SHM_FIRST_SCRIPT | SHM_FIRST_DATA)) != 0 && (opts & SHO_SUPPLIES) == 0 && count > 0) {
    recall(f, 0);
    const p = operandPtr(f, 0), n = operandLen(f, 0);
    if ((mode & SHM_FIRST_SCRIPT) != 0 && scriptIsOpaque(get(f, F_SPEC), p, n)) opaqueWith("script", p, n);
    wordUrls(p, n);
    if (!uncertain) first = 1;
  }
  const trees = (mode & SHM_TREES) != 0 || (opts & SHO_RECURSIVE) != 0;
  const tableFrom = tableCount();
  const all = (mode & SHM_WRITTEN) != 0 || (opts & SHO_IN_PLACE) != 0;
  const last = (mode & SHM_LAST_WRITTEN) != 0 && (opts & SHO_OUTPUT_DIR) == 0;
  const second = (mode & SHM_SECOND_WRITTEN) != 0;
  const files = count - first;
  for (let k = first; k < count && ok(); k++) {
    recall(f, k);
    const p = operandPtr(f, k), n = operandLen(f, k);
    if ((mode & SHM_NO_FILES) != 0) continue; // printed text: a URL in it is reached by nothing
    if ((mode & SHM_OPERANDS_OPAQUE) != 0) opaqueWith("operand", p, n);
    if ((mode & SHM_REMOTE) != 0 && !wordPattern && remoteOperand(p, n)) continue;
    if ((mode & SHM_REV_PATHS) != 0 && revPath(p, n)) continue;
    const written = all || (last && files >= 2 && (k == count - 1 || uncertain)) ||
      (second && (k == first + 1 || (uncertain && k > first)));
    if (written) {
      if (quietFile(p, n)) continue;
      if (wordUrls(p, n)) continue;
      usePath(p, n, wordPattern, trees ? USE_TREE_WRITE : USE_WRITE);
      if (wordSplit) usePath(ANY, 2, true, USE_WRITE);
      writes(f);
    } else {
      operandPath(p, n, trees ? USE_TREE : USE_READ);
    }
  }
  // One operand of a program that writes its last: a new name in the working directory (ln -s x).
  if (last && files == 1 && (opts & SHO_OUTPUT_DIR) == 0) {
    const star = memory.data<u8>([0x2a]);
    usePath(star, 1, true, trees ? USE_TREE_WRITE : USE_WRITE);
    writes(f);
  }
  const extracting = ((mode & SHM_EXTRACTS) != 0 && (opts & SHO_LIST) == 0) || (opts & SHO_EXTRACT) != 0;
  // A recursive reader given no file and no archive searches the working directory (grep -r, rg).
  if (trees && files == 0 && !extracting && get(f, F_ARCHIVE + 4) == 0 && (mode & SHM_NO_FILES) == 0 && !hasFlag(f, APPENDS)) {
    operandPath(DOT, 1, USE_TREE);
  }
  // An option word the reader could not read may have been a glob that singles files out: any.
  if (trees && uncertain && specHasMembers(get(f, F_SPEC))) keepMember(f, STAR, 1);
  if (trees) memberTrees(f, tableFrom);
  if (extracting) {
    if (get(f, F_DIR + 4) > 0) {
      const fl = get(f, F_DIR + 8);
      wordPattern = (fl & OP_PATTERN) != 0;
      usePath(<usize>get(f, F_DIR), get(f, F_DIR + 4), wordPattern, USE_TREE_WRITE);
    } else {
      usePath(DOT, 1, false, USE_TREE_WRITE);
    }
    writes(f);
  } else if (get(f, F_DIR + 4) > 0) {
    const fl = get(f, F_DIR + 8);
    wordPattern = (fl & OP_PATTERN) != 0;
    wordSplit = false;
    wordFacts(<usize>get(f, F_DIR), get(f, F_DIR + 4));
    wordTargets(<usize>get(f, F_DIR), get(f, F_DIR + 4));
  }
  if (get(f, F_ARCHIVE + 4) > 0) {
    const ap = <usize>get(f, F_ARCHIVE), an = get(f, F_ARCHIVE + 4), fl = get(f, F_ARCHIVE + 8);
    wordPattern = (fl & OP_PATTERN) != 0;
    wordSplit = (fl & OP_SPLIT) != 0;
    wordFacts(ap, an);
    if ((opts & SHO_ARCHIVE_OUT) != 0) outputPath(f, ap, an);
    else operandPath(ap, an, USE_READ);
  }
  if (hasFlag(f, APPENDS)) { // xargs, find -exec {}: operands the reader cannot see
    const writesAny = all || last || second;
    usePath(ANY, 2, true, writesAny ? USE_WRITE : trees ? USE_TREE : USE_READ);
    if (writesAny) writes(f);
  }
}

// ---- arguments of bash's builtins and of programs nobody described ----

// A name a builtin binds (read NAME, printf -v NAME, export NAME): a subscript in it is
// arithmetic (opaque), a name the reader cannot read may be any variable.
function boundName(p: usize, n: u32): void {
  if (wordPattern || !wordLiteral) { varsDynamic = true; opaqueWith("name", p, n); return; }
  let k: u32 = 0;
  while (k < n && isNameByte(at(p, k))) k++;
  if (k < n && at(p, k) == 0x5b) opaqueWith("arithmetic subscript", p, n);
  // A name of the environment (PATH, HOME, LD_PRELOAD, http_proxy) bound by `for`, `read`,
  // `printf -v`, `local` changes what later programs run and read, as an assignment does.
  if (environmentName(p, k)) opaqueWith("assignment", p, k);
  varEvent(p, k);
}

// A name programs may read from the environment: by convention, one with no lower-case letter
// (POSIX leaves lower-case names to applications), and the proxies curl and others read in
// lower case.
function environmentName(p: usize, n: u32): bool {
  if (n == 0) return false;
  if (n >= 6 && at(p, n - 6) == 0x5f && lowerAscii(at(p, n - 5)) == 0x70 && lowerAscii(at(p, n - 4)) == 0x72 &&
      lowerAscii(at(p, n - 3)) == 0x6f && lowerAscii(at(p, n - 2)) == 0x78 && lowerAscii(at(p, n - 1)) == 0x79) return true; // *_proxy
  for (let k: u32 = 0; k < n; k++) if (at(p, k) - 0x61 < 26) return false;
  return true;
}

// An expansion of a variable the line never set reads the process's environment, where Hermes
// passes the user's tokens (AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, DATABASE_URL): opaque, unless
// bash or the login sets it and it holds no secret.
function environmentRead(p: usize, n: u32): void {
  if (!environmentName(p, n) || (n > 3 && at(p, 0) == 0x4c && at(p, 1) == 0x43 && at(p, 2) == 0x5f)) return; // LC_*
  if (wordIn(p, n, "PATH USER LOGNAME SHELL TERM LANG LANGUAGE TMPDIR TMP TEMP HOSTNAME HOSTTYPE OSTYPE MACHTYPE UID EUID PPID BASHPID SHLVL RANDOM SRANDOM LINENO SECONDS EPOCHSECONDS EPOCHREALTIME COLUMNS LINES OLDPWD REPLY OPTARG OPTIND EDITOR VISUAL PAGER CI") >= 0 ||
      wordIn(p, n, "BASH BASH_VERSION BASH_VERSINFO BASH_SOURCE BASH_LINENO BASH_SUBSHELL BASH_REMATCH FUNCNAME PIPESTATUS GROUPS DIRSTACK DISPLAY WAYLAND_DISPLAY") >= 0 ||
      wordIn(p, n, "XDG_RUNTIME_DIR XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME XDG_STATE_HOME XDG_SESSION_TYPE VIRTUAL_ENV CONDA_PREFIX CONDA_DEFAULT_ENV JAVA_HOME GOPATH GOROOT CARGO_HOME RUSTUP_HOME NVM_DIR PYENV_ROOT") >= 0) return;
  opaqueWith("environment variable", p, n);
}

// The letters of an option word of a builtin include one of `letters`.
function optionHas(p: usize, n: u32, letters: Text): bool {
  if (n < 2 || at(p, 0) != 0x2d) return false;
  for (let k: u32 = 1; k < n; k++) {
    const q = textPtr(letters);
    for (let j: u32 = 0; j < textLen(letters); j++) if (at(p, k) == <u32>load<u8>(q + j)) return true;
  }
  return false;
}

const EXPECT_NAME: u32 = 1;  // the next word is a name the builtin binds
const EXPECT_SKIP: u32 = 2;  // the next word is an option's value
const EXPECT_SET: u32 = 3;   // set -o NAME
const EXPECT_TEST: u32 = 4;  // test -v NAME

function builtinArgument(f: usize, kind: u32, p: usize, n: u32, depth: u32): void {
  const expect = get(f, F_EXPECT);
  set(f, F_EXPECT, 0);
  if (expect == EXPECT_NAME) { boundName(p, n); return; }
  if (expect == EXPECT_SKIP) { wordTargets(p, n); return; }
  if (expect == EXPECT_SET) { if (!setNameSafe(p, n)) opaqueWith("set -o", p, n); return; }
  if (expect == EXPECT_TEST) { if (hasByte(p, n, 0x5b)) opaqueWith("arithmetic subscript", p, n); return; }
  const option = n > 1 && at(p, 0) == 0x2d && !hasFlag(f, OPTIONS_DONE) && !wordPattern;
  if (option && isWord(p, n, "--")) { setFlag(f, OPTIONS_DONE); return; }
  const name = <usize>get(f, F_NAME), len = get(f, F_NAME_LEN);
  switch (kind) {
    case B_CD: {
      if (option) return;
      wordTargets(p, n);
      if (!hasFlag(f, HAS_OPERAND)) { setFlag(f, HAS_OPERAND); keepOperand(f, p, n, wordOpFlags()); }
      return;
    }
    case B_POPD: return;
    case B_EVAL: case B_TRAP: {
      if (kind == B_TRAP && (option || hasFlag(f, HAS_OPERAND))) return; // trap -p; the signals
      if (kind == B_TRAP) setFlag(f, HAS_OPERAND);
      keepOperand(f, p, n, wordOpFlags());
      return;
    }
    case B_SOURCE: {
      if (hasFlag(f, HAS_OPERAND)) { wordTargets(p, n); return; }
      setFlag(f, HAS_OPERAND);
      if (wordSubst) addTargetCopy(SUBJ_PROGRAM, DEV_STDIN, 10); // . <(curl …): a command's output as code
      else opaqueWith("source", p, n);
      operandPath(p, n, USE_READ);
      return;
    }
    case B_ALIAS: {
      // An alias changes what a later word runs: opaque. Its text is read as commands too, so
      // what it would do is seen.
      if (factEq >= n) return;
      opaqueWith("alias", p, n);
      if (!wordPattern) readAgain(p + factEq + 1, n - factEq - 1, depth, false);
      return;
    }
    case B_DECLARE: {
      if (n > 0 && (at(p, 0) == 0x2d || at(p, 0) == 0x2b) && !wordPattern) {
        if (optionHas(p, n, "n")) { varsDynamic = true; opaqueWith("nameref", p, n); }
        return;
      }
      const a = assignmentName(p, n);
      if (a > 0) {
        opaqueWith("assignment", p, a);
        boundName(p, a);
        wordFacts(p, n);
        wordTargets(p, n);
        return;
      }
      boundName(p, n);
      return;
    }
    case B_UNSET: {
      if (option) return;
      boundName(p, n);
      return;
    }
    case B_READ: case B_MAPFILE: case B_WAIT: case B_GETOPTS: {
      if (option) {
        if (kind == B_MAPFILE && optionHas(p, n, "C")) opaqueWith("callback", p, n);
        // A cluster's name-taking letter with more after it: the rest is the name (read -raPATH,
        // wait -pPATH); a value-taking one: the rest is its value.
        for (let k: u32 = 1; k + 1 < n; k++) {
          const c = at(p, k);
          if ((kind == B_READ && c == 0x61) || (kind == B_WAIT && c == 0x70)) { boundName(p + k + 1, n - k - 1); return; }
          if ((kind == B_READ && (c == 0x64 || c == 0x69 || c == 0x6e || c == 0x4e || c == 0x70 || c == 0x74 || c == 0x75)) ||
              (kind == B_MAPFILE && (c == 0x43 || c == 0x63 || c == 0x64 || c == 0x6e || c == 0x4f || c == 0x73 || c == 0x75))) return;
        }
        const last = at(p, n - 1);
        if (kind == B_READ && last == 0x61) set(f, F_EXPECT, EXPECT_NAME);            // -a NAME
        else if (kind == B_WAIT && last == 0x70) set(f, F_EXPECT, EXPECT_NAME);       // -p NAME
        else if ((kind == B_READ && (last == 0x64 || last == 0x69 || last == 0x6e || last == 0x4e || last == 0x70 ||
                  last == 0x74 || last == 0x75)) ||
                 (kind == B_MAPFILE && (last == 0x43 || last == 0x63 || last == 0x64 || last == 0x6e ||
                  last == 0x4f || last == 0x73 || last == 0x75))) set(f, F_EXPECT, EXPECT_SKIP);
        return;
      }
      if (kind == B_GETOPTS && !hasFlag(f, HAS_OPERAND)) { setFlag(f, HAS_OPERAND); return; } // its option string
      if (kind != B_WAIT) boundName(p, n);
      return;
    }
    case B_PRINTF: {
      if (option && isWord(p, n, "-v")) { set(f, F_EXPECT, EXPECT_NAME); return; }
      if (option && n > 2 && at(p, 1) == 0x76) { boundName(p + 2, n - 2); return; } // printf -vNAME
      keepOperand(f, p, n, wordOpFlags()); // printed: read at the end if piped
      return;
    }
    case B_LET: {
      for (let k: u32 = 0; k < n; k++) if (isNameStart(at(p, k)) || at(p, k) == 0x24) { opaqueWith("arithmetic", p, n); return; }
      return;
    }
    case B_SET: {
      setFlag(f, HAS_OPERAND);
      if (n > 1 && (at(p, 0) == 0x2d || at(p, 0) == 0x2b) && !hasFlag(f, OPTIONS_DONE)) {
        if (isWord(p, n, "-o") || isWord(p, n, "+o")) { set(f, F_EXPECT, EXPECT_SET); return; }
        if (!setOptionSafe(p, n)) opaqueWith("set", p, n);
        if (at(p, n - 1) == 0x6f) set(f, F_EXPECT, EXPECT_SET);
        return;
      }
      setFlag(f, OPTIONS_DONE); // the positional parameters
      return;
    }
    case B_SHOPT: {
      if (option) {
        if (optionHas(p, n, "su")) set(f, F_OPTS, 1);
        return;
      }
      if (get(f, F_OPTS) != 0 && !shoptNameSafe(p, n)) opaqueWith("shopt", p, n);
      return;
    }
    case B_HASH: {
      // hash -p, enable -f, compgen/complete -C -F, bind -x, history -w -a -n -r, fc (but -l).
      const c = at(name, 0);
      if (c == 0x66 && len == 2) { // fc runs commands again, unless it only lists them
        if (!hasFlag(f, HAS_OPERAND) && !optionHas(p, n, "l")) opaqueWith("fc", p, n);
        setFlag(f, HAS_OPERAND);
        return;
      }
      if (!option) return;
      if ((c == 0x68 && len == 4 && optionHas(p, n, "p")) || (c == 0x65 && optionHas(p, n, "f")) ||
          (c == 0x63 && optionHas(p, n, "CF")) || (c == 0x62 && optionHas(p, n, "x")) ||
          (c == 0x68 && len == 7 && optionHas(p, n, "wanr"))) opaqueWith("option", p, n);
      return;
    }
    case B_TEST: {
      if (isWord(p, n, "-v")) set(f, F_EXPECT, EXPECT_TEST);
      return;
    }
    case B_ECHO: keepOperand(f, p, n, wordOpFlags()); return; // printed: read at the end if piped
  }
}

// An argument of a program nobody described: its paths by shape, a bare word as a file in the
// working directory, a network program's host.
function unknownArgument(f: usize, p: usize, n: u32): void {
  wordTargets(p, n);
  if (hasFlag(f, NETWORK)) hostArgument(p, n);
  const operand = n > 0 && (at(p, 0) != 0x2d || n == 1);
  if (operand && factSlash == n && factEq == n && !factScheme && !pathLead(p, n) && !allDigits(p, n)) {
    usePath(p, n, wordPattern, USE_READ);
  }
}

function argumentWord(f: usize, p: usize, n: u32, depth: u32): void {
  setFlag(f, HAS_ARGS);
  const builtin = get(f, F_BUILTIN);
  if (hasFlag(f, SHELL | SU)) { shellArgument(f, p, n, depth); return; }
  if (builtin != 0 && builtin != B_SU) { builtinArgument(f, builtin, p, n, depth); return; }
  if (get(f, F_SPEC) != NONE) { knownArgument(f, p, n, depth); return; }
  unknownArgument(f, p, n);
}

// ---- sub-commands: find -exec … ; ----

function startSub(f: usize): void {
  const g = pushFrame();
  if (g == 0) return;
  set(g, F_PARENT, <u32>f);
  set(g, F_FLAGS, UNTIL_END | PIPED_IN);
  cur = g;
}

// Ends the sub-command being read and goes back to the command it is part of.
function endSub(depth: u32): void {
  const g = cur;
  endCommand(g, T_END, depth);
  cur = <usize>get(g, F_PARENT);
  frameTop--;
}

// Ends every sub-command left open above frame f (a find -exec without its ';').
function closeSubs(f: usize, depth: u32): void {
  while (cur != f && cur != 0 && get(cur, F_PARENT) != 0) endSub(depth);
}

// ---- the end of a simple command ----
const T_END: u32 = 0;   // ; newline ) or the end
const T_PIPE: u32 = 1;  // | |&
const T_BG: u32 = 2;    // &
const T_ANDOR: u32 = 3; // && ||
let afterAndOr = false; // the command follows && or || in its list

function endCommand(f: usize, term: u32, depth: u32): void {
  if (f == 0) return;
  const phase = get(f, F_PHASE);
  const kind = get(f, F_BUILTIN);
  if (phase == AT_START && get(f, F_NOPER) > 0 && !hasFlag(f, PROGRAM_SEEN)) {
    // Assignments alone: they change the shell's variables (and, exported, every later program's
    // environment). Known from here on when plain, at the top level, certainly run.
    const certain = depth == 0 && cdepth == 0 && cOverflow == 0 && varScope == 0 && !afterAndOr &&
      !hasFlag(f, PIPED_IN | UNTIL_END) && term != T_PIPE && term != T_BG;
    const count = get(f, F_NOPER);
    for (let k: u32 = 0; k < count; k++) {
      const p = operandPtr(f, k), name = operandFlags(f, k) >> 8, fl = operandFlags(f, k) & 0xff;
      opaqueWith("assignment", p, name);
      let v = name;
      while (v < operandLen(f, k) && at(p, v) != 0x3d) v++;
      v++;
      const plain = (fl & OP_PATTERN) == 0 && at(p, name) == 0x3d; // NAME=…, not NAME+= or NAME[i]=
      if (certain && plain && v <= operandLen(f, k)) varAssign(p, name, p + v, operandLen(f, k) - v, true);
      else if (certain) varAssign(p, name, 0, 0, false);
      else varEvent(p, name);
    }
  } else if (phase == AT_ARGS || phase == IN_WRAPPER) {
    if (kind == B_EVAL || kind == B_TRAP) evalEnd(f, kind, depth);
    else if ((kind == B_ECHO || kind == B_PRINTF) && term == T_PIPE) printedUrls(f);
    else if (kind == B_SET && !hasFlag(f, HAS_OPERAND)) opaqueWith("every variable printed by", SET_WORD, 3);
    else if (kind == B_CD) cdEnd(f);
    else if (kind == B_POPD) baseUnknown = true;
    else if (get(f, F_SPEC) != NONE) knownOperands(f);
    else if (hasFlag(f, APPENDS)) usePath(ANY, 2, true, USE_READ);
    // `… | sh`, `sh < file`, `sh -s`: commands from a pipe or a file, which no rule can read.
    if (phase == AT_ARGS && hasFlag(f, SHELL) && !hasFlag(f, COMMAND_NEXT | STDIN_READ) &&
        (hasFlag(f, STDIN_OPTION) || !hasFlag(f, HAS_OPERAND))) {
      addTargetCopy(SUBJ_PROGRAM, DEV_STDIN, 10);
    }
  }
  const caseNext = phase == CASE_PATTERN;
  beginCommand(f);
  if (caseNext) set(f, F_PHASE, CASE_PATTERN);
}

// eval's words, joined by spaces, are one command line of this shell; a trap's is its action.
function evalEnd(f: usize, kind: u32, depth: u32): void {
  const count = get(f, F_NOPER);
  if (count == 0) return;
  let total: u32 = 0;
  let subst = false;
  let pattern = false;
  for (let k: u32 = 0; k < count; k++) {
    total += operandLen(f, k) + 1;
    const fl = operandFlags(f, k);
    if ((fl & OP_PATTERN) != 0) pattern = true;
    if ((fl & OP_SUBST) != 0) subst = true;
  }
  if (pattern) {
    // A command's output run as code (eval "$(curl …)") is code the reader cannot see, as
    // `| sh` is; any other text it cannot read is opaque.
    if (subst) addTargetCopy(SUBJ_PROGRAM, DEV_STDIN, 10);
    else opaqueWith(kind == B_EVAL ? "eval" : "trap", operandPtr(f, 0), operandLen(f, 0));
    return;
  }
  const t = scratchAlloc(<usize>total);
  if (t == 0) { fail(TARGETS_OOM); return; }
  let n: u32 = 0;
  for (let k: u32 = 0; k < count; k++) {
    if (k > 0) { store<u8>(t + n, 0x20); n++; }
    memory.copy(t + n, operandPtr(f, k), operandLen(f, k));
    n += operandLen(f, k);
  }
  set(f, F_NOPER, 0);
  readAgain(t, n, depth, false);
}

// cd DIR: bash may be in DIR from here on, or (when cd fails, or runs in a subshell) where it
// was; inside a function, which runs when it is called, anywhere.
function cdEnd(f: usize): void {
  if (funcDepth > 0 || cOverflow > 0) { baseUnknown = true; return; }
  if (get(f, F_NOPER) == 0) {
    if (homeLen() > 0) addBase(span(homePtr(), homeLen()));
    else baseUnknown = true;
    return;
  }
  recall(f, 0);
  const p = operandPtr(f, 0), n = operandLen(f, 0);
  if (wordPattern || isWord(p, n, "-")) { baseUnknown = true; return; }
  const count = baseCount;
  if (at(p, 0) == 0x2f) { addBase(resolvePath(p, n, 0, 0)); return; }
  for (let k: u32 = 0; k < count; k++) {
    const b = baseAt(k);
    addBase(resolvePath(p, n, spanPtr(b), spanLen(b)));
  }
}

// ---- redirections ----

// The target of a redirection: a file read, a file written, a connection (/dev/tcp/HOST/PORT),
// a descriptor, or a here-document's delimiter.
function redirectTarget(f: usize, r: u32, p: usize, n: u32): void {
  const kind = r & 0xff;
  if (kind == R_HERESTRING) { wordUrls(p, n); return; }
  if (kind == R_HEREDOC || kind == R_HEREDOC_DASH) { pushHeredoc(f, p, n, kind == R_HEREDOC_DASH); return; }
  if ((kind == R_DUP_OUT || kind == R_DUP_IN) && !wordPattern && (allDigits(p, n) || isWord(p, n, "-"))) return;
  if (quietFile(p, n)) return;
  if (startsWithLit(p, n, "/dev/tcp/") || startsWithLit(p, n, "/dev/udp/")) {
    // bash connects itself: egress to HOST, whichever way the redirection points.
    let e: u32 = 9;
    while (e < n && at(p, e) != 0x2f) e++;
    let wild = false;
    for (let k: u32 = 9; k < e; k++) if (at(p, k) == 0x2a || at(p, k) == 0x3f) wild = true;
    if (wordPattern && wild) opaqueWith("connection", p, n);
    else addHost(p + 9, e - 9);
    writes(f);
    return;
  }
  if (wordPattern && (globsMeet(p, n, DEV_TCP_ANY, 12) || globsMeet(p, n, DEV_UDP_ANY, 12))) {
    opaqueWith("connection", p, n); // an expansion may name /dev/tcp/…
  }
  if (kind == R_IN || kind == R_DUP_IN) { usePath(p, n, wordPattern, USE_READ); return; }
  usePath(p, n, wordPattern, USE_WRITE);
  writes(f);
}

const DEV_TCP_ANY: usize = memory.data<u8>([0x2f, 0x64, 0x65, 0x76, 0x2f, 0x74, 0x63, 0x70, 0x2f, 0x2a, 0x2f, 0x2a]); // /dev/tcp/*/*
const DEV_UDP_ANY: usize = memory.data<u8>([0x2f, 0x64, 0x65, 0x76, 0x2f, 0x75, 0x64, 0x70, 0x2f, 0x2a, 0x2f, 0x2a]); // /dev/udp/*/*

// A redirection operator at i; returns the index after it. Its target is the next word.
function redirection(p: usize, len: u32, i: u32, f: usize, fd: u32): u32 {
  const c = at(p, i);
  const d = i + 1 < len ? at(p, i + 1) : 0;
  let kind = R_OUT;
  if (c == 0x26) { // &> &>>
    i += 2;
    if (i < len && at(p, i) == 0x3e) i++;
  } else if (c == 0x3c) {
    kind = R_IN;
    if (d == 0x3c) {
      if (i + 2 < len && at(p, i + 2) == 0x3c) { kind = R_HERESTRING; i += 3; }
      else if (i + 2 < len && at(p, i + 2) == 0x2d) { kind = R_HEREDOC_DASH; i += 3; }
      else { kind = R_HEREDOC; i += 2; }
    } else if (d == 0x26) { kind = R_DUP_IN; i += 2; }
    else if (d == 0x3e) { kind = R_OUT; i += 2; } // <> opens (and creates) the file to write
    else i++;
  } else {
    if (d == 0x3e || d == 0x7c) i += 2;
    else if (d == 0x26) { kind = R_DUP_OUT; i += 2; }
    else i++;
  }
  set(f, F_REDIRECT, kind | (fd << 8));
  return i;
}

// ---- here-documents ----

function pushHeredoc(f: usize, p: usize, n: u32, dash: bool): void {
  const count = get(f, F_HEREDOCS);
  if (count >= MAX_HEREDOCS) { unterminated = true; return; }
  const copy = scratchAlloc(max<usize>(<usize>n, 1));
  if (copy == 0) { fail(TARGETS_OOM); return; }
  memory.copy(copy, p, n);
  let flags: u32 = dash ? H_DASH : 0;
  if (wordQuoted) flags |= H_QUOTED;
  if (get(f, F_PHASE) == AT_ARGS && hasFlag(f, SHELL)) {
    flags |= H_SHELL;
    setFlag(f, STDIN_READ);
  }
  const rec = f + 24 + (<usize>count << 4);
  store<u32>(rec, <u32>copy);
  store<u32>(rec + 4, n);
  store<u32>(rec + 8, flags);
  set(f, F_HEREDOCS, count + 1);
}

// URLs in text that a program reads as data.
function textUrls(p: usize, n: u32): void {
  let from: u32 = 0;
  while (from < n && ok()) {
    const u = findUrl(p, n, from);
    if (u < 0) return;
    addUrlIn(p + <u32>u, urlEnd - <u32>u, false);
    from = urlEnd;
  }
}

// Reads the bodies of the pending here-documents, which start at `pos` (after a newline).
function heredocBodies(f: usize, p: usize, len: u32, pos: u32, depth: u32): u32 {
  const count = get(f, F_HEREDOCS);
  set(f, F_HEREDOCS, 0);
  let i = pos;
  for (let h: u32 = 0; h < count && ok(); h++) {
    const rec = f + 24 + (<usize>h << 4);
    const delim = <usize>load<u32>(rec);
    const delimLen = load<u32>(rec + 4);
    const flags = load<u32>(rec + 8);
    const bodyStart = i;
    let bodyEnd = len;
    let closed = false;
    while (i < len) {
      let e = i;
      while (e < len && at(p, e) != 0x0a) e++;
      let s = i;
      if ((flags & H_DASH) != 0) while (s < e && at(p, s) == 0x09) s++;
      const next = e < len ? e + 1 : len;
      if (e - s == delimLen && sameBytes(p + s, delim, delimLen)) {
        bodyEnd = i;
        i = next;
        closed = true;
        break;
      }
      i = next;
    }
    if (!closed) unterminated = true;
    if (bodyEnd > bodyStart) heredocBody(p + bodyStart, bodyEnd - bodyStart, flags, depth);
  }
  return i;
}

function heredocBody(p: usize, n: u32, flags: u32, depth: u32): void {
  if ((flags & H_SHELL) != 0) {
    readAgain(p, n, depth, true);
    return;
  }
  textUrls(p, n);
  if ((flags & H_QUOTED) == 0) substitutionsIn(p, n, depth);
}

// Runs the command substitutions of text that is otherwise data (an unquoted here-document, an
// array's values).
function substitutionsIn(p: usize, n: u32, depth: u32): void {
  let k: u32 = 0;
  while (k < n && ok()) {
    const c = at(p, k);
    if (c == 0x5c) { k += 2; continue; }
    if (c == 0x24 && k + 1 < n && at(p, k + 1) == 0x28) {
      if (k + 2 < n && at(p, k + 2) == 0x28) {
        const end = arithmetic(p, n, k + 3, depth, false);
        if (end >= 0) {
          if (arithName) opaqueWith("arithmetic", p + k, <u32>end - k);
          k = <u32>end;
          continue;
        }
      }
      k = nested(p, n, k + 2, depth);
      continue;
    }
    if (c == 0x24 && k + 1 < n && at(p, k + 1) == 0x7b) {
      const end = braced(p, n, k + 2, depth);
      const s = k + 2, e = end > s && at(p, end - 1) == 0x7d ? end - 1 : end;
      if (e > s && (at(p, s) == 0x21 || hasByte(p + s, e - s, 0x40) || hasByte(p + s, e - s, 0x5b))) {
        const start = wStart, m = <u32>(bufTop - wStart), h = half, mask = wMask;
        startWord();
        parameter(p, s, e, true); // ${!x}, ${x@P}, subscripts: opaque as in a word
        popTo(wStart);
        resumeWord(start, m, h, mask);
      }
      k = end;
      continue;
    }
    if (c == 0x60) { k = backquoted(p, n, k + 1, depth, false); continue; }
    k++;
  }
}

// ---- words to the command they belong to ----

function handleWord(depth: u32, p: usize, n: u32): void {
  const f = cur;
  if (f == 0 || !ok()) return;
  if (rawLen > 0) { // a glob that matches no file is its own text: its URLs as written
    wordFacts(rawPtr, rawLen);
    if (factScheme) textUrls(rawPtr, rawLen);
  }
  wordFacts(p, n);
  const redirect = get(f, F_REDIRECT);
  if (redirect != 0) {
    set(f, F_REDIRECT, 0);
    redirectTarget(f, redirect, p, n);
    return;
  }
  if (hasFlag(f, UNTIL_END) && !wordPattern && (isWord(p, n, ";") || isWord(p, n, "+"))) { endSub(depth); return; }
  if (hasFlag(f, APPENDS) && replaceLen > 0 && get(f, F_PHASE) != IN_WRAPPER && holdsReplace(p, n)) {
    // xargs -I {}: what its input puts there, any text: `**` in the word's place of it.
    const t = scratchAlloc(<usize>n * 2);
    if (t == 0) { fail(TARGETS_OOM); return; }
    let m: u32 = 0;
    for (let k: u32 = 0; k < n;) {
      if (k + replaceLen <= n && sameBytes(p + k, replacePtr, replaceLen)) {
        store<u8>(t + m, 0x2a); store<u8>(t + m + 1, 0x2a);
        m += 2; k += replaceLen;
      } else { store<u8>(t + m, at(p, k)); m++; k++; }
    }
    wordPattern = true;
    p = t;
    n = m;
    wordFacts(p, n);
  }
  if (hasFlag(f, UNTIL_END) && !wordPattern && isWord(p, n, "{}")) { // the files find passes
    wordPattern = true;
    wordSplit = false;
    p = ANY;
    n = 2;
    wordFacts(p, n);
  }
  const phase = get(f, F_PHASE);
  if (phase == AT_START) startProgram(f, p, n, depth);
  else if (phase == AT_ARGS) argumentWord(f, p, n, depth);
  else if (phase == IN_WRAPPER) wrapperWord(f, p, n, depth);
  else if (phase == FOR_NAME) {
    boundName(p, n);
    set(f, F_PHASE, IGNORED);
  } else if (phase == FUNC_NAME) {
    cpush(K_FUNC, 0);
    set(f, F_PHASE, AT_START);
  } else if (phase == CASE_WORD) {
    if (wordPlain && isWord(p, n, "in")) set(f, F_PHASE, CASE_PATTERN);
  } else if (phase == CASE_PATTERN) {
    if (wordPlain && isWord(p, n, "esac")) { cpop(K_CASE); set(f, F_PHASE, AT_START); }
  } else if (phase == DBRACKET) {
    if (wordPlain && isWord(p, n, "]]")) { set(f, F_PHASE, IGNORED); return; }
    const expect = get(f, F_EXPECT);
    set(f, F_EXPECT, 0);
    if (expect == EXPECT_TEST && hasByte(p, n, 0x5b)) opaqueWith("arithmetic subscript", p, n);
    if (expect == EXPECT_NAME && !allDigits(p, n) && !(n > 1 && at(p, 0) == 0x2d && allDigits(p + 1, n - 1))) {
      opaqueWith("arithmetic", p, n); // [[ X -eq Y ]]: both sides are arithmetic
    }
    if (wordPlain && isWord(p, n, "-v")) set(f, F_EXPECT, EXPECT_TEST);
    else if (wordPlain && (isWord(p, n, "-eq") || isWord(p, n, "-ne") || isWord(p, n, "-lt") ||
             isWord(p, n, "-le") || isWord(p, n, "-gt") || isWord(p, n, "-ge"))) {
      set(f, F_EXPECT, EXPECT_NAME);
      if (get(f, F_NOPER) > 0 && hasFlag(f, HAS_OPERAND)) opaque("arithmetic");
    } else {
      // The left side of a comparison, in case an arithmetic operator follows: numbers only.
      if (allDigits(p, n)) clearFlag(f, HAS_OPERAND); else setFlag(f, HAS_OPERAND);
      set(f, F_NOPER, 1);
    }
  }
}

// Whether the text at i opens `{NAME}` right before a redirection (exec {fd}>file): the index
// after the '}', else 0.
function varnameRedirect(p: usize, len: u32, i: u32): u32 {
  let k = i + 1;
  if (k >= len || !isNameStart(at(p, k))) return 0;
  while (k < len && isNameByte(at(p, k))) k++;
  if (k + 1 >= len || at(p, k) != 0x7d) return 0;
  const c = at(p, k + 1);
  return c == 0x3c || c == 0x3e ? k + 1 : 0;
}

// An array's values `NAME=(…)` from `from` (after the '('): the index after its ')'. The
// values' substitutions run; the array itself is not known.
function arrayValues(p: usize, len: u32, from: u32, depth: u32): u32 {
  let d: u32 = 1;
  let k = from;
  while (k < len) {
    const c = at(p, k);
    if (c == 0x5c) { k += 2; continue; }
    if (c == 0x27) { k++; while (k < len && at(p, k) != 0x27) k++; k++; continue; }
    if (c == 0x22) { k++; while (k < len && at(p, k) != 0x22) { if (at(p, k) == 0x5c) k++; k++; } k++; continue; }
    if (c == 0x28) d++;
    else if (c == 0x29) { d--; if (d == 0) break; }
    k++;
  }
  if (k >= len) { unterminated = true; k = len; }
  substitutionsIn(p + from, k - from, depth);
  return min(k + 1, len);
}

// Reads a list of commands from `pos`: to the end, or (inside `$(…)`) to its closing ')',
// whose index + 1 it returns.
function parseList(p: usize, len: u32, pos: u32, depth: u32, inSubstitution: bool): u32 {
  const saved = cur;
  const f = pushFrame();
  if (f == 0) return len;
  const level = frameTop - 1;
  const savedAndOr = afterAndOr;
  const savedDepth = cdepth;
  afterAndOr = false;
  cur = f;
  let parens: u32 = 0;
  let arithmeticPossible = true;
  let i = pos;
  let closed = !inSubstitution;
  while (i < len && ok()) {
    const c = at(p, i);
    const d = i + 1 < len ? at(p, i + 1) : 0;
    if (c == 0x20 || c == 0x09) { i++; continue; }
    if (c == 0x5c && d == 0x0a) { i += 2; continue; }
    const phase = get(cur, F_PHASE);
    if (phase == DBRACKET && (c == 0x3c || c == 0x3e || c == 0x28 || c == 0x29 || c == 0x21 ||
        ((c == 0x26 || c == 0x7c) && d == c))) { // operators of [[ … ]]
      i += (c == 0x26 || c == 0x7c) ? 2 : 1;
      continue;
    }
    if (c == 0x0a) {
      closeSubs(f, depth);
      endCommand(cur, T_END, depth);
      afterAndOr = false;
      i = heredocBodies(cur, p, len, i + 1, depth);
      continue;
    }
    if (c == 0x23) { // a comment, to the end of the line
      while (i < len && at(p, i) != 0x0a) i++;
      continue;
    }
    if (c == 0x3b || c == 0x7c || (c == 0x26 && d != 0x3e)) {
      closeSubs(f, depth);
      let term = T_END;
      if (c == 0x7c) term = d == 0x7c ? T_ANDOR : T_PIPE;
      else if (c == 0x26) term = d == 0x26 ? T_ANDOR : T_BG;
      endCommand(cur, term, depth);
      const caseEnd = c == 0x3b && d == 0x3b;
      i++;
      if (d == c || (c == 0x7c && d == 0x26) || (c == 0x3b && d == 0x26)) i++;
      if (caseEnd && i < len && at(p, i) == 0x26) i++; // ;;&
      if (term == T_ANDOR) afterAndOr = true;
      else if (term != T_PIPE) afterAndOr = false;
      if (term == T_PIPE) setFlag(cur, PIPED_IN);
      if ((caseEnd || (c == 0x3b && d == 0x26)) && ctop() == K_CASE) set(cur, F_PHASE, CASE_PATTERN);
      continue;
    }
    if (c == 0x28) {
      const ph = get(cur, F_PHASE);
      if (ph == CASE_PATTERN) { i++; continue; } // case x in (a) …
      if (d == 0x28 && (ph == AT_START || ph == FOR_NAME) && arithmeticPossible) { // ((…)), for ((…))
        const end = arithmetic(p, len, i + 2, depth, false);
        if (end >= 0) {
          if (arithName) opaqueWith("arithmetic", p + i, <u32>end - i);
          if (ph == FOR_NAME) set(cur, F_PHASE, IGNORED);
          i = <u32>end;
          continue;
        }
        if (end == -2) arithmeticPossible = false;
      }
      // NAME ( ): a function definition. Its body, read as any commands, runs when it is called.
      if (ph == AT_ARGS && hasFlag(cur, PROGRAM_SEEN) && !hasFlag(cur, HAS_ARGS) && nextByte(p, len, i + 1) == 0x29) {
        let k = i + 1;
        while (at(p, k) != 0x29) k++;
        beginCommand(cur);
        cpush(K_FUNC, 0);
        i = k + 1;
        continue;
      }
      if (ph == AT_START && nextByte(p, len, i + 1) == 0x29 && funcDepth > 0 && ctop() == K_FUNC) { // function f ()
        let k = i + 1;
        while (at(p, k) != 0x29) k++;
        i = k + 1;
        continue;
      }
      closeSubs(f, depth);
      endCommand(cur, T_END, depth);
      parens++;
      cpush(K_PAREN, basesSave());
      i++;
      continue;
    }
    if (c == 0x29) {
      if (get(cur, F_PHASE) == CASE_PATTERN) { set(cur, F_PHASE, AT_START); i++; continue; }
      closeSubs(f, depth);
      endCommand(cur, T_END, depth);
      if (inSubstitution && parens == 0) { closed = true; i++; break; }
      if (parens > 0) { parens--; cpop(K_PAREN); }
      i++;
      continue;
    }
    if (c == 0x7b) {
      const v = varnameRedirect(p, len, i);
      if (v != 0) { varEvent(p + i + 1, v - i - 2); i = v; continue; }
    }
    if ((c == 0x3c || c == 0x3e) && d != 0x28) { i = redirection(p, len, i, cur, 0); continue; }
    if (c == 0x26) { i = redirection(p, len, i, cur, 0); continue; }
    if (isAsciiDigit(c)) { // an fd number before a redirection: 2>file
      let k = i;
      while (k < len && isAsciiDigit(at(p, k))) k++;
      if (k < len && (at(p, k) == 0x3c || at(p, k) == 0x3e) && !(k + 1 < len && at(p, k + 1) == 0x28)) {
        i = redirection(p, len, k, cur, min<u32>(k - i, 3));
        continue;
      }
    }
    i = readWord(p, len, i, depth);
    // NAME=(…): an array assignment.
    if (i < len && at(p, i) == 0x28 && get(cur, F_PHASE) == AT_START && get(cur, F_NOPER) > 0 && i > 0 && at(p, i - 1) == 0x3d) {
      i = arrayValues(p, len, i + 1, depth);
      const k = get(cur, F_NOPER) - 1;
      const r = <usize>get(cur, F_OPERANDS) + <usize>k * 12;
      store<u32>(r + 8, load<u32>(r + 8) | OP_PATTERN);
    }
  }
  closeSubs(f, depth);
  endCommand(cur, T_END, depth);
  if (!closed) unterminated = true;
  if (inSubstitution || depth > 0) {
    // A compound left open inside a substitution or a string read again is not the line's.
    if (cdepth > savedDepth) unterminated = true;
    while (cdepth > savedDepth) { cdepth--; if (load<u32>(cstack + (<usize>cdepth << 3)) == K_FUNC) funcDepth--; }
  }
  frameTop = level;
  cur = saved;
  afterAndOr = savedAndOr;
  return i;
}

// Adds the targets of command line [p, p+len). Sets are word sets (wordset.ts); programSet is
// SHELL_PROGRAMS (NONE: no program is described); maxShellDepth bounds the nesting of shell
// strings and substitutions read (at most 16).
export function shellTargets(p: usize, len: u32, wrapperSet: u64, networkSet: u64, shellSet: u64,
                             extensionSet: u64, programSet: u32, maxShellDepth: u32): void {
  wrappers = wrapperSet;
  network = networkSet;
  shells = shellSet;
  extensions = extensionSet;
  programs = programSet;
  maxDepth = min<u32>(maxShellDepth, 16);
  basesReset(pathBase());
  varsBegin();
  cdepth = 0;
  cOverflow = 0;
  funcDepth = 0;
  frameTop = 0;
  cur = 0;
  afterAndOr = false;
  unterminated = false;
  replaceLen = 0;
  topP = p;
  topLen = len;
  if (!byteClassReady) fillByteClass();
  const size = <usize>len + 256;
  buf = scratchAlloc(size << 1);
  if (buf == 0) { fail(TARGETS_OOM); return; }
  half = size;
  bufTop = buf;
  wStart = buf;
  parseList(p, len, 0, 0, false);
  if (cdepth > 0 || cOverflow > 0) unterminated = true; // an `if`, a loop, a `{` never closed
  if (unterminated) opaque("unterminated");
  varsCheck();
}
