// The shell reader's state for one command line (shell.ts reads it): the settings of the call,
// the word buffer (each byte with the class that decides what expansion does to it), bash's
// possible working directories, the variables the line assigns, the stack of compound
// commands, and the frames of the simple commands being read.
import { NONE } from "../../../bytecode/format";
import { scratchAlloc } from "../../abi/mem";
import { isAsciiAlpha, isAsciiDigit, sameBytes } from "../../abi/bytes";
import { span, spanPtr, spanLen, homePtr, homeLen } from "../normalize";
import { TARGETS_OK, TARGETS_LIMIT, TARGETS_OOM, tableStatus, fail } from "../targettable";
import { opaqueWith, isMeta } from "./facts";
import { braced } from "./read";

@inline export function ok(): bool {
  return tableStatus() == TARGETS_OK;
}

@inline export function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// ---- the settings of the call ----
export let wrappers: u64 = 0;
export let network: u64 = 0;
export let shells: u64 = 0;
export let extensions: u64 = 0;
export let programs: u32 = NONE; // SHELL_PROGRAMS: program name -> its option set (§3.4), or NONE
export let maxDepth: u32 = 0;
export let topP: usize = 0;      // the whole command line: where variables are counted
export let topLen: u32 = 0;
export let unterminated = false; // the parser stopped inside a construct: the call is opaque

// ---- the word buffer ----
// Words are built in a stack of scratch chunks, each byte with a class beside it (at +half):
// where it came from, which decides what brace expansion, field splitting and globbing do to
// it. A word starts at wStart and is popped once handled. A nested command line pushes its words
// above the word that contains it; when a chunk fills, only the word being built moves to a
// bigger one (text being read again, like a `sh -c` string, stays valid where it is).
export const C_LIT: u32 = 0;  // unquoted source text: braces, tildes and globs are live
export const C_Q: u32 = 1;    // quoted or escaped: literal
export const C_EXP: u32 = 2;  // an unquoted expansion's value: split at white space, globbed
export const C_UNK: u32 = 3;  // an unquoted unknown expansion (one byte stands for `**`)
export const C_UNKQ: u32 = 4; // a quoted unknown expansion: `**`, not split
export const C_NUM: u32 = 5;  // an unknown number or a name without '/': `*`

// What the word being built holds, so a plain word skips the expansion passes.
export const W_BRACE: u32 = 1;
export const W_GLOB: u32 = 2;
export const W_EXPAND: u32 = 4;
const W_UNKNOWN: u32 = 8;
export const W_QUOTED: u32 = 16;
export const W_TILDE: u32 = 32;
export const W_SPLIT: u32 = 64;
export const W_SUBST: u32 = 128; // a command or process substitution's output
export const W_BRACED: u32 = 256; // a word a brace list made: no longer like an assignment, so `a=~` keeps its '~'

export let buf: usize = 0;
export let half: usize = 0;
export let bufTop: usize = 0;
export let wStart: usize = 0;
export let wMask: u32 = 0;

// Bytes copied in runs: not special outside quotes (bit 0), inside double quotes (bit 1).
export const ORDINARY_OUTSIDE: u32 = 1;
export const ORDINARY_INSIDE: u32 = 2;
const byteClass: usize = memory.data(256);
export let byteClassReady = false;

export function fillByteClass(): void {
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

export function ordinaryRun(p: usize, len: u32, i: u32, kind: u32): u32 {
  while (i < len && (<u32>load<u8>(byteClass + <usize>load<u8>(p + i)) & kind) != 0) i++;
  return i;
}

@inline export function clsAt(p: usize): u32 {
  return <u32>load<u8>(p + half);
}

// Room for n more bytes at bufTop, moving the word being built when the chunk is full.
export function ensure(n: u32): bool {
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

export function put(c: u32, k: u32): void {
  if (!ensure(1)) return;
  store<u8>(bufTop, <u8>c);
  store<u8>(bufTop + half, <u8>k);
  bufTop++;
  noteClass(c, k);
}

// Bytes of one class that hold nothing noteClass looks for (ordinary runs), or any bytes.
export function putRun(p: usize, n: u32, k: u32): void {
  if (n == 0 || !ensure(n)) return;
  memory.copy(bufTop, p, n);
  memory.fill(bufTop + half, <u8>k, n);
  bufTop += n;
  if (k == C_Q) wMask |= W_QUOTED;
}

export function putValue(p: usize, n: u32, k: u32): void {
  if (k == C_Q) { putRun(p, n, k); return; }
  for (let i: u32 = 0; i < n; i++) put(at(p, i), k);
}

export function putUnknown(quoted: bool): void {
  put(0x2a, quoted ? C_UNKQ : C_UNK);
}

export function startWord(): void {
  wStart = bufTop;
  wMask = 0;
}

export function popTo(start: usize): void {
  if (start >= buf && start <= buf + half) bufTop = start;
  wStart = bufTop;
}

// Continues a word of `len` bytes that started at `start` (classes at start + oldHalf) after a
// nested read: it is at the top already, unless the nested read moved to another chunk.
export function resumeWord(start: usize, len: u32, oldHalf: usize, mask: u32): void {
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
export let baseCount: u32 = 0;
export let baseUnknown = false;

@inline export function baseAt(k: u32): u64 {
  return load<u64>(bases + (<usize>k << 3));
}

// Where the line starts: b, or unknown when b is empty (the host does not know the directory).
export function basesReset(b: u64): void {
  store<u64>(bases, b);
  baseCount = spanLen(b) != 0 ? 1 : 0;
  baseUnknown = spanLen(b) == 0;
}

// Whether bash may end the line in a directory other than the one it started in (the first).
export function basesMoved(): bool {
  return baseUnknown || baseCount > 1;
}

export function addBase(b: u64): void {
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
export function basesSave(): usize {
  const s = scratchAlloc(<usize>(BASES_MAX << 3) + 8);
  if (s == 0) { fail(TARGETS_OOM); return 0; }
  store<u32>(s, baseCount);
  store<u32>(s + 4, baseUnknown ? 1 : 0);
  memory.copy(s + 8, bases, <usize>(BASES_MAX << 3));
  return s;
}

export function basesRestore(s: usize): void {
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
export let varCount: u32 = 0;
export let varScope: u32 = 0;     // 0: the shell of the line; each child shell (sh -c) one more
export let varsDynamic = false;   // a builtin bound a name the reader cannot read
const V_USED: u32 = 1;
const V_COUNTED: u32 = 2;  // the line was searched for its name
const V_ELSEWHERE: u32 = 4; // the name appears in the line outside references
const V_CONFLICT: u32 = 8;  // bound again, or bound where the reader cannot follow
export const VAR_HOME: u32 = 0;
export const VAR_PWD: u32 = 1;
export const VAR_IFS: u32 = 2;
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

export function varsBegin(): void {
  varSet(VAR_HOME, NAME_HOME, 4, homePtr(), homeLen(), 0, 0);
  varSet(VAR_PWD, NAME_PWD, 3, 0, 0, 0, 0);
  varSet(VAR_IFS, NAME_IFS, 3, IFS_DEFAULT, 3, 0, 0);
  varCount = 3;
  varScope = 0;
  varsDynamic = false;
}

// The variable named [p, p+n) in the current scope (HOME, PWD, IFS in any), or -1.
export function varFind(p: usize, n: u32): i32 {
  for (let i: u32 = varCount; i-- > 0;) {
    const r = varRec(i);
    if (load<u32>(r + 4) != n || !sameBytes(<usize>load<u32>(r), p, n)) continue;
    if (i < 3 || load<u32>(r + 20) >> 8 == varScope) return <i32>i;
  }
  return -1;
}

export function isNameStart(c: u32): bool {
  return isAsciiAlpha(c) || c == 0x5f;
}

export function isNameByte(c: u32): bool {
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
export function varValue(i: u32): u64 {
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
export function varEvent(p: usize, n: u32): void {
  const i = varFind(p, n);
  if (i < 0) return;
  const r = varRec(<u32>i);
  store<u32>(r + 16, load<u32>(r + 16) + 1);
  store<u32>(r + 20, load<u32>(r + 20) | V_CONFLICT);
}

// A plain assignment at the top level: the name is known from here on, unless bound before.
export function varAssign(name: usize, nameLen: u32, value: usize, valueLen: u32, literal: bool): void {
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
export function varsCheck(): void {
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
export const K_BRACE: u32 = 1;
export const K_PAREN: u32 = 2;
export const K_IF: u32 = 3;
export const K_LOOP: u32 = 4;
export const K_CASE: u32 = 5;
export const K_FUNC: u32 = 6;
const CS_MAX: u32 = 64;
export const cstack: usize = memory.data(<i32>(CS_MAX << 3));
export let cdepth: u32 = 0;
export let cOverflow: u32 = 0;
export let funcDepth: u32 = 0;

export function cpush(kind: u32, snapshot: usize): void {
  if (cdepth >= CS_MAX) { cOverflow++; return; }
  store<u32>(cstack + (<usize>cdepth << 3), kind);
  store<u32>(cstack + (<usize>cdepth << 3) + 4, <u32>snapshot);
  cdepth++;
  if (kind == K_FUNC) funcDepth++;
}

@inline export function ctop(): u32 {
  return cdepth == 0 ? 0 : load<u32>(cstack + (<usize>(cdepth - 1) << 3));
}

// Closes the innermost compound of `kind` (and a function it was the body of).
export function cpop(kind: u32): void {
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
export const MAX_HEREDOCS: u32 = 6;
const frames: usize = memory.data(<i32>(FRAME_SIZE * MAX_FRAMES));
export let frameTop: u32 = 0; // frames in use
export let cur: usize = 0;    // the frame words go to
export const F_PHASE: usize = 0;
export const F_FLAGS: usize = 4;
export const F_SKIP: usize = 12;       // a wrapper's operands of its own still to come (timeout's duration)
export const F_REDIRECT: usize = 16;   // the pending redirection
export const F_HEREDOCS: usize = 20;   // count; records (ptr, len, flags, 0) follow at 24
export const F_SPEC: usize = 120;      // the program's option set, or NONE
export const F_MODE: usize = 124;      // its operand flags
export const F_OPTS: usize = 128;      // the option flags seen
export const F_EXPECT: usize = 132;    // the flags of the option whose value comes next
export const F_EXPECT_N: usize = 136;  // how many value words it still takes
export const F_OPERANDS: usize = 140;  // operand records (ptr, len, flags), kept to the command's end
export const F_NOPER: usize = 144;
export const F_OPCAP: usize = 148;
export const F_ARCHIVE: usize = 152;   // ptr, len, flags of the ARCHIVE option's value
export const F_DIR: usize = 164;       // ptr, len, flags of the DIRECTORY option's value
export const F_BUILTIN: usize = 176;
export const F_PARENT: usize = 180;    // the frame a sub-command (find -exec) returns to
export const F_NAME: usize = 184;      // ptr, len of the program's name (for "git log")
export const F_NAME_LEN: usize = 188;
export const F_EXPECT_Q: usize = 192;  // a second option's value still to come (tar cfC a.tar dir)
export const F_MEMBERS: usize = 196;   // the last of the MEMBERS globs (rg -g) kept for the trees: a node (prev, ptr, len)

// Phases.
export const AT_START: u32 = 0;
export const IN_WRAPPER: u32 = 1;
export const AT_ARGS: u32 = 2;
export const IGNORED: u32 = 3;      // words that run nothing (a for loop's list, a case word)
export const FOR_NAME: u32 = 4;     // the variable of `for` or `select`
export const FUNC_NAME: u32 = 5;    // the name after `function`
export const CASE_PATTERN: u32 = 6; // a case pattern, up to its ')'
export const DBRACKET: u32 = 7;     // inside [[ … ]]
export const CASE_WORD: u32 = 8;    // case WORD in

// Flags of the command being read.
export const NETWORK: u32 = 1;
export const SHELL: u32 = 2;        // a SHELL_SHELLS program: its -c string is a command
export const APPENDS: u32 = 4;      // a wrapper (xargs) adds operands the reader cannot see
export const UNTIL_END: u32 = 8;    // a sub-command that ends at a `;` or `+` word (find -exec)
export const CD: u32 = 16;
export const SU: u32 = 64;          // -c COMMAND
export const OPTIONS_DONE: u32 = 256;
export const EXPECT_VALUE: u32 = 512;
export const VALUE_IS_COMMAND: u32 = 1024;
export const COMMAND_NEXT: u32 = 2048;  // a shell saw -c: its next operand is the command line
export const HAS_OPERAND: u32 = 4096;
export const STDIN_READ: u32 = 8192;    // a here-document feeds this shell: its commands were read
export const STDIN_OPTION: u32 = 16384; // a shell saw -s: it reads commands from standard input
export const WROTE: u32 = 32768;        // the command writes or connects: the PROGRAM ">" was added
export const UNCERTAIN: u32 = 65536;    // an option the program's entry does not know: operands may shift
export const SUBCOMMAND_DONE: u32 = 131072;
export const COPROC_NAME: u32 = 262144; // after `coproc`: the next word may be its name
export const HAS_ARGS: u32 = 524288;    // a word followed the program
export const PIPED_IN: u32 = 1048576;   // the command reads a pipe: it runs in a subshell
export const ASSIGNS: u32 = 2097152;    // prefix assignments were seen
export const PROGRAM_SEEN: u32 = 4194304;
export const SCRIPT_OPERAND: u32 = 8388608; // a shell's operand is a script it reads
export const OLD_DONE: u32 = 16777216;      // the old-style option cluster was read

// Pending redirections: the next word is their target.
export const R_IN: u32 = 1;       // <
export const R_OUT: u32 = 2;      // > >> >| &> &>> <>
export const R_DUP_OUT: u32 = 3;  // >&word
export const R_DUP_IN: u32 = 4;   // <&word
export const R_HEREDOC: u32 = 5;
export const R_HEREDOC_DASH: u32 = 6;
export const R_HERESTRING: u32 = 7;

// Here-document flags.
export const H_DASH: u32 = 1;
export const H_QUOTED: u32 = 2;
export const H_SHELL: u32 = 4; // read by a shell: its body is commands

// Operand flags.
export const OP_PATTERN: u32 = 1;
export const OP_SPLIT: u32 = 2;   // an unquoted unknown expansion: it may be several words
export const OP_LITERAL: u32 = 4; // no expansion at all
export const OP_SUBST: u32 = 8;   // holds a substitution's output

@inline export function get(f: usize, field: usize): u32 {
  return load<u32>(f + field);
}

@inline export function set(f: usize, field: usize, v: u32): void {
  store<u32>(f + field, v);
}

@inline export function hasFlag(f: usize, flag: u32): bool {
  return (get(f, F_FLAGS) & flag) != 0;
}

@inline export function setFlag(f: usize, flag: u32): void {
  set(f, F_FLAGS, get(f, F_FLAGS) | flag);
}

@inline export function clearFlag(f: usize, flag: u32): void {
  set(f, F_FLAGS, get(f, F_FLAGS) & ~flag);
}

export function beginCommand(f: usize): void {
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
export function pushFrame(): usize {
  if (frameTop >= MAX_FRAMES) { fail(TARGETS_LIMIT); return 0; }
  const f = frames + <usize>frameTop * FRAME_SIZE;
  frameTop++;
  beginCommand(f);
  set(f, F_HEREDOCS, 0);
  set(f, F_OPCAP, 0);
  set(f, F_PARENT, 0);
  return f;
}
