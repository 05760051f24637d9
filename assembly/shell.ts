// Reads a command line the way a POSIX shell splits it (docs/bytecode.md §6.6) and adds its
// targets to the call's table: per simple command the PROGRAM (after assignments, keywords and
// wrappers), URLs and their hosts, the host arguments of network programs, path-shaped words
// and redirection targets. Quotes, escapes, `$'…'`, `$(…)`, backticks, `<(…)`, `${…}`,
// `$((…))`, here-documents, brace lists and `$IFS` are read as bash reads them, so a command
// cannot hide behind its spelling. Shell strings (`sh -c`, `eval`, `su -c`, `env -S`,
// `find -exec`, `trap`) are read again as commands, at most maxDepth levels deep; deeper nesting
// fails the call with TARGETS_LIMIT rather than going unread.
import { NONE, SUBJ_PROGRAM } from "./format";
import { scratchAlloc } from "./mem";
import { Text, textLen, textPtr } from "./out";
import { isAsciiAlpha, isAsciiDigit, fnv1a, sameBytes } from "./bytes";
import { wordValueHashed } from "./wordset";
import { findUrl, urlEnd, looksLikeHost } from "./scan";
import { span, spanPtr, spanLen, resolvePath, homePtr, homeLen } from "./normalize";
import {
  TARGETS_OK, TARGETS_LIMIT, TARGETS_OOM, tableStatus, fail, addTargetCopy, addPathIn, addHost,
  addUrl, pathBase,
} from "./targettable";

// Options of wrapper programs, so that option values are not taken for the wrapped program.
// Entries "name|short options with a value|long options with a value|short options whose value
// is a command line|long ones|positional words before the program" joined by ';'. Positional
// kinds: d a duration, n a number, w any word.
const WRAPPER_SYNTAX = "sudo|ugpCDrtUThR|user,group,prompt,close-from,chdir,role,type,other-user,command-timeout,host,chroot|||;doas|uC||||;env|uCS|unset,chdir,split-string|S|split-string|;timeout|sk|signal,kill-after|||d;nice|n|adjustment|||;ionice|cnp|class,classdata,pid|||;stdbuf|ioe|input,output,error|||;xargs|IELnPsda|replace,eof,max-lines,max-args,max-procs,max-chars,delimiter,arg-file,process-slot-var|||;time|fo|format,output|||;chroot||userspec,groups|||w;taskset|||||w;chrt|||||n;flock|wEc|timeout,wait,conflict-exit-code,command|c|command|w;watch|nd|interval,differences|||;exec|a||||;unbuffer|p||||";

// Per-depth state of the simple command being read.
const FRAME_SIZE: usize = 128;
const MAX_FRAMES: u32 = 17;
const MAX_HEREDOCS: u32 = 6;
const frames: usize = memory.data(<i32>(FRAME_SIZE * MAX_FRAMES));
const F_PHASE: usize = 0;
const F_FLAGS: usize = 4;
const F_WRAPPER: usize = 8;     // offset of the wrapper's syntax entry, or NONE
const F_POSITIONAL: usize = 12; // offset of its next positional kind, or NONE
const F_REDIRECT: usize = 16;
const F_HEREDOCS: usize = 20;   // count; records (ptr, len, flags, 0) follow at 24

// Phases: looking for the program, inside a wrapper's options, at the program's arguments,
// or in a clause with no program (`for`, `case`, `function`).
const AT_START: u32 = 0;
const IN_WRAPPER: u32 = 1;
const AT_ARGS: u32 = 2;
const IGNORED: u32 = 3;

// Flags of the command being read.
const NETWORK: u32 = 1;
const SHELL: u32 = 2;       // a SHELL_SHELLS program: its -c string is a command
const FIND: u32 = 4;
const FIND_EXEC: u32 = 8;   // inside find's -exec … ; command
const CD: u32 = 16;
const EVAL: u32 = 32;       // every argument is a command line
const SU: u32 = 64;         // -c COMMAND
const TRAP: u32 = 128;      // the first argument is a command line
const OPTIONS_DONE: u32 = 256;
const EXPECT_VALUE: u32 = 512;
const VALUE_IS_COMMAND: u32 = 1024;
const COMMAND_NEXT: u32 = 2048; // a shell saw -c: its next operand is the command line
const HAS_OPERAND: u32 = 4096;
const STDIN_READ: u32 = 8192;   // a here-document feeds this shell: its commands were read
const STDIN_OPTION: u32 = 16384; // a shell saw -s: it reads commands from standard input, operands or not

// Pending redirections: the next word is their target.
const R_FILE: u32 = 1;
const R_DUP: u32 = 2;
const R_HEREDOC: u32 = 3;
const R_HEREDOC_DASH: u32 = 4;
const R_HERESTRING: u32 = 5;

// Here-document flags.
const H_DASH: u32 = 1;
const H_QUOTED: u32 = 2;
const H_SHELL: u32 = 4; // read by a shell: its body is commands

// The sets and limits of the current call.
let wrappers: u64 = 0;
let network: u64 = 0;
let shells: u64 = 0;
let extensions: u64 = 0;
let maxDepth: u32 = 0;
// The directory relative paths resolve against; `cd` moves it for the commands after it.
let base: u64 = 0;

// ---- the word buffer ----
// Words are built in a stack of scratch chunks: a word starts at bufTop and is popped once
// handled. A nested command line pushes its words above the word that contains it; when a
// chunk fills, only the word being built moves to a bigger one (text being read again, like
// a `sh -c` string, stays valid where it is: scratch memory lives until the call ends).
let buf: usize = 0;
let bufTop: usize = 0;
let bufEnd: usize = 0;
let wStart: usize = 0;     // the word being built
let quotedFrom: u32 = 0;   // offset in the word of its first quoted byte (0xffffffff: none)
let braceOpen = false;     // the word started with an unquoted '{'
let braceClose = false;    // its last byte is an unquoted '}'
let braceComma = false;    // it holds an unquoted ','

const NOT_QUOTED: u32 = 0xffffffff;

// Bytes that mean nothing special outside quotes (runs of them are copied at once), and inside
// double quotes. One table, filled on first use: bit 0 outside, bit 1 inside.
const ORDINARY_OUTSIDE: u32 = 1;
const ORDINARY_INSIDE: u32 = 2;
const byteClass: usize = memory.data(256);
let byteClassReady = false;

function fillByteClass(): void {
  for (let c: u32 = 0; c < 256; c++) {
    let k: u32 = 0;
    if (!isMeta(c) && c != 0x5c && c != 0x27 && c != 0x22 && c != 0x60 && c != 0x24 && c != 0x7b &&
        c != 0x7d && c != 0x2c) k |= ORDINARY_OUTSIDE;
    if (c != 0x22 && c != 0x5c && c != 0x24 && c != 0x60) k |= ORDINARY_INSIDE;
    store<u8>(byteClass + c, <u8>k);
  }
  byteClassReady = true;
}

// The end of the run of bytes of class `kind` that starts at i.
function ordinaryRun(p: usize, len: u32, i: u32, kind: u32): u32 {
  while (i < len && (<u32>load<u8>(byteClass + <usize>load<u8>(p + i)) & kind) != 0) i++;
  return i;
}

function ok(): bool {
  return tableStatus() == TARGETS_OK;
}

// Room for n more bytes at bufTop, moving the word being built when the chunk is full.
function ensure(n: u32): bool {
  if (bufTop + <usize>n <= bufEnd) return true;
  const live = <u32>(bufTop - wStart);
  const size = max<usize>((bufEnd - buf) << 1, <usize>live + <usize>n + 256);
  const chunk = scratchAlloc(size);
  if (chunk == 0) { fail(TARGETS_OOM); return false; }
  memory.copy(chunk, wStart, live);
  buf = chunk;
  bufEnd = chunk + size;
  wStart = chunk;
  bufTop = chunk + live;
  return true;
}

function put(c: u32, quoted: bool): void {
  if (!ensure(1)) return;
  const n = <u32>(bufTop - wStart);
  if (quoted) {
    if (quotedFrom == NOT_QUOTED) quotedFrom = n;
  } else if (c == 0x7b && n == 0) {
    braceOpen = true;
  } else if (c == 0x2c) {
    braceComma = true;
  }
  braceClose = !quoted && c == 0x7d;
  store<u8>(bufTop, <u8>c);
  bufTop++;
}

function putRaw(p: usize, n: u32): void {
  if (!ensure(n)) return;
  memory.copy(bufTop, p, n);
  bufTop += n;
  braceClose = false;
}

function putPlaceholder(): void {
  put(0x24, true);
  put(0x28, true);
  put(0x29, true);
}

function startWord(): void {
  wStart = bufTop;
  quotedFrom = NOT_QUOTED;
  braceOpen = false;
  braceClose = false;
  braceComma = false;
}

// Drops the words from `start` up (unless a nested read moved on to another chunk).
function popTo(start: usize): void {
  if (start >= buf && start <= bufEnd) bufTop = start;
  wStart = bufTop;
}

// Continues a word of `len` bytes that started at `start` after a nested read: it is at the
// top already, unless the nested read moved to another chunk.
function resumeWord(start: usize, len: u32, quoted: u32, flags: u32): void {
  quotedFrom = quoted;
  braceOpen = (flags & 1) != 0;
  braceClose = (flags & 2) != 0;
  braceComma = (flags & 4) != 0;
  if (bufTop == start + len && start >= buf && start <= bufEnd) {
    wStart = start;
    return;
  }
  wStart = bufTop;
  if (!ensure(len)) return;
  memory.copy(bufTop, start, len);
  bufTop += len;
}

function wordFlags(): u32 {
  return (braceOpen ? 1 : 0) | (braceClose ? 2 : 0) | (braceComma ? 4 : 0);
}

// ---- frames ----

@inline function frame(depth: u32): usize {
  return frames + <usize>depth * FRAME_SIZE;
}

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
  set(f, F_WRAPPER, NONE);
  set(f, F_POSITIONAL, NONE);
  set(f, F_REDIRECT, 0);
}

// What a shell given neither a -c string nor a script runs: its standard input (§6.6).
const DEV_STDIN: usize = memory.data<u8>([0x2f, 0x64, 0x65, 0x76, 0x2f, 0x73, 0x74, 0x64, 0x69, 0x6e]);

function endCommand(f: usize): void {
  // A bare `cd` goes home.
  if (get(f, F_PHASE) == AT_ARGS && hasFlag(f, CD) && !hasFlag(f, HAS_OPERAND) && homeLen() > 0) {
    base = span(homePtr(), homeLen());
  }
  // `… | sh`, `sh < file`, `sh -s`: commands from a pipe or a file, which no rule can read.
  // A basename never holds '/', so this PROGRAM cannot be mistaken for a real program's.
  if (get(f, F_PHASE) == AT_ARGS && hasFlag(f, SHELL) && !hasFlag(f, COMMAND_NEXT | STDIN_READ) &&
      (hasFlag(f, STDIN_OPTION) || !hasFlag(f, HAS_OPERAND))) {
    addTargetCopy(SUBJ_PROGRAM, DEV_STDIN, 10);
  }
  beginCommand(f);
}

// ---- small word tests ----

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// Texts, not strings: a word is compared with bytes, not through charCodeAt's bounds checks.
function isWord(p: usize, n: u32, s: Text): bool {
  return textLen(s) == n && startsWithLit(p, n, s);
}

function startsWithLit(p: usize, n: u32, s: Text): bool {
  const m = textLen(s), q = textPtr(s);
  if (m > n) return false;
  for (let k: u32 = 0; k < m; k++) if (at(p, k) != <u32>load<u8>(q + k)) return false;
  return true;
}

function isNameStart(c: u32): bool {
  return isAsciiAlpha(c) || c == 0x5f;
}

function isNameByte(c: u32): bool {
  return isNameStart(c) || isAsciiDigit(c);
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

// NAME=value (or NAME+=value, NAME[i]=value) with the name unquoted.
function isAssignment(p: usize, n: u32): bool {
  if (n == 0 || !isNameStart(at(p, 0))) return false;
  let k: u32 = 1;
  while (k < n && isNameByte(at(p, k))) k++;
  if (k < n && at(p, k) == 0x5b) {
    while (k < n && at(p, k) != 0x5d) k++;
    k++;
  }
  if (k < n && at(p, k) == 0x2b) k++;
  return k < n && at(p, k) == 0x3d && k < quotedFrom;
}

// Reserved words that come before a command, and those that stand where none is.
function isPrefixKeyword(p: usize, n: u32): bool {
  return isWord(p, n, "!") || isWord(p, n, "{") || isWord(p, n, "if") || isWord(p, n, "then") ||
    isWord(p, n, "elif") || isWord(p, n, "else") || isWord(p, n, "do") || isWord(p, n, "while") ||
    isWord(p, n, "until") || isWord(p, n, "coproc") || isWord(p, n, "}") || isWord(p, n, "fi") ||
    isWord(p, n, "done") || isWord(p, n, "esac");
}

function isClauseKeyword(p: usize, n: u32): bool {
  return isWord(p, n, "for") || isWord(p, n, "select") || isWord(p, n, "case") || isWord(p, n, "function");
}

// A word the shell would take for a path: starts with / ~ ./ ../ $HOME ${HOME}, is . or ..,
// or holds a '/' (options and URLs excepted).
function pathShaped(p: usize, n: u32): bool {
  if (n == 0) return false;
  if (pathLead(p, n)) return true;
  if (at(p, 0) == 0x2d) return false;
  for (let k: u32 = 0; k < n; k++) if (at(p, k) == 0x2f) return true;
  return false;
}

// A word that starts the way only paths start.
function pathLead(p: usize, n: u32): bool {
  if (n == 0) return false;
  const c = at(p, 0);
  if (c == 0x2f || c == 0x7e) return true;
  if (isWord(p, n, ".") || isWord(p, n, "..")) return true;
  if (startsWithLit(p, n, "./") || startsWithLit(p, n, "../")) return true;
  return startsWithLit(p, n, "$HOME") || startsWithLit(p, n, "${HOME}");
}

@inline function addPathWord(p: usize, n: u32): void {
  addPathIn(p, n, base);
}

// What one pass over the word being handled found, so each test need not scan it again
// (valid until a nested command line is read): its first '/' and '=' (n: none), where its
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

// URLs anywhere in a word; else the paths it holds: the word, an `@file`, a `name=value`'s
// value, an option's attached path (`-o/tmp/x`).
function wordTargets(p: usize, n: u32): void {
  if (n == 0) return;
  if (factScheme) {
    let from: u32 = 0;
    let any = false;
    while (from < n) {
      const u = findUrl(p, n, from);
      if (u < 0) break;
      addUrl(p + <u32>u, urlEnd - <u32>u);
      from = urlEnd;
      any = true;
    }
    if (any) return;
  }
  const eq = factEq;
  const lead = pathLead(p, n);
  if (eq == n || lead) { // "PATH=/x" is no path, its value is
    if (at(p, 0) == 0x40) { if (pathShaped(p + 1, n - 1)) addPathWord(p + 1, n - 1); }
    else if (lead || (factSlash < n && at(p, 0) != 0x2d)) addPathWord(p, n);
  }
  if (eq < n) {
    let v = eq + 1;
    if (v < n && at(p, v) == 0x40) v++;
    if (pathShaped(p + v, n - v)) addPathWord(p + v, n - v);
  } else if (at(p, 0) == 0x2d) {
    const slash = factSlash;
    if (slash < n) {
      let s = slash;
      while (s > 1 && slash - s < 2 && at(p, s - 1) == 0x2e) s--;
      addPathWord(p + s, n - s);
    }
  }
}

// The host a network program's argument names: `host`, `host:port`, `host/path`,
// `user@host`, `user@host:path`. Bare names must look like hosts (dotted, not a file name).
function hostArgument(p: usize, n: u32): void {
  if (n == 0 || at(p, 0) == 0x2d) return;
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

// ---- wrapper syntax ----

@inline function syntaxAt(i: u32): u32 {
  return <u32>load<u16>(changetype<usize>(WRAPPER_SYNTAX) + ((<usize>i) << 1));
}

// The offset of the fields of wrapper `name` (after "name|"), or NONE.
function syntaxEntry(p: usize, n: u32): u32 {
  const total = <u32>WRAPPER_SYNTAX.length;
  let i: u32 = 0;
  while (i < total) {
    let k: u32 = 0;
    while (k < n && i + k < total && syntaxAt(i + k) == at(p, k)) k++;
    if (k == n && i + k < total && syntaxAt(i + k) == 0x7c) return i + k + 1;
    while (i < total && syntaxAt(i) != 0x3b) i++;
    i++;
  }
  return NONE;
}

// The offset of field `k` (0: short options with a value) of an entry.
function syntaxField(entry: u32, k: u32): u32 {
  let i = entry;
  const total = <u32>WRAPPER_SYNTAX.length;
  for (let f: u32 = 0; f < k; f++) {
    while (i < total && syntaxAt(i) != 0x7c && syntaxAt(i) != 0x3b) i++;
    i++;
  }
  return i;
}

function fieldEnd(i: u32): bool {
  return i >= <u32>WRAPPER_SYNTAX.length || syntaxAt(i) == 0x7c || syntaxAt(i) == 0x3b;
}

function fieldHasLetter(entry: u32, k: u32, c: u32): bool {
  if (entry == NONE) return false;
  for (let i = syntaxField(entry, k); !fieldEnd(i); i++) if (syntaxAt(i) == c) return true;
  return false;
}

// Whether the comma-separated names of field k include [p, p+n).
function fieldHasName(entry: u32, k: u32, p: usize, n: u32): bool {
  if (entry == NONE || n == 0) return false;
  let i = syntaxField(entry, k);
  while (!fieldEnd(i)) {
    let j: u32 = 0;
    while (j < n && !fieldEnd(i + j) && syntaxAt(i + j) == at(p, j)) j++;
    if (j == n && (fieldEnd(i + j) || syntaxAt(i + j) == 0x2c)) return true;
    while (!fieldEnd(i) && syntaxAt(i) != 0x2c) i++;
    if (!fieldEnd(i)) i++;
  }
  return false;
}

// Whether [p, p+n) is a positional word of the given kind.
function positionalFits(kind: u32, p: usize, n: u32): bool {
  if (kind == 0x77) return true; // w
  if (n == 0) return false;
  if (kind == 0x6e) { // n
    for (let k: u32 = 0; k < n; k++) if (!isAsciiDigit(at(p, k)) && at(p, k) != 0x2d) return false;
    return true;
  }
  // d: digits, an optional fraction, an optional unit
  let k: u32 = 0;
  while (k < n && (isAsciiDigit(at(p, k)) || at(p, k) == 0x2e)) k++;
  if (k == 0) return false;
  if (k + 1 == n) {
    const u = at(p, k);
    return u == 0x73 || u == 0x6d || u == 0x68 || u == 0x64;
  }
  return k == n;
}

// ---- command lines read again ----

function readAgain(p: usize, n: u32, depth: u32): void {
  if (depth + 1 > maxDepth) { fail(TARGETS_LIMIT); return; }
  parseList(p, n, 0, depth + 1, false);
}

// An option word of a wrapper: -abc (a letter with a value takes the rest of the word or the
// next word), --name=value, --name value.
function wrapperOption(f: usize, p: usize, n: u32, depth: u32): void {
  const entry = get(f, F_WRAPPER);
  if (n > 2 && at(p, 1) == 0x2d) {
    let eq: u32 = 2;
    while (eq < n && at(p, eq) != 0x3d) eq++;
    if (eq < n) {
      if (fieldHasName(entry, 3, p + 2, eq - 2)) readAgain(p + eq + 1, n - eq - 1, depth);
      return;
    }
    if (fieldHasName(entry, 1, p + 2, n - 2)) {
      setFlag(f, EXPECT_VALUE);
      if (fieldHasName(entry, 3, p + 2, n - 2)) setFlag(f, VALUE_IS_COMMAND);
    }
    return;
  }
  for (let k: u32 = 1; k < n; k++) {
    const c = at(p, k);
    if (!fieldHasLetter(entry, 0, c)) continue;
    const command = fieldHasLetter(entry, 2, c);
    if (k + 1 < n) {
      if (command) readAgain(p + k + 1, n - k - 1, depth);
    } else {
      setFlag(f, EXPECT_VALUE);
      if (command) setFlag(f, VALUE_IS_COMMAND);
    }
    return;
  }
}

// Whether a word fills the wrapper's next positional slot (and consumes it).
function takePositional(f: usize, p: usize, n: u32): bool {
  const at0 = get(f, F_POSITIONAL);
  if (at0 == NONE || fieldEnd(at0)) return false;
  if (!positionalFits(syntaxAt(at0), p, n)) return false;
  set(f, F_POSITIONAL, at0 + 1);
  return true;
}

// ---- the command state machine ----

function startProgram(f: usize, p: usize, n: u32, depth: u32): void {
  if (factEq < n && isAssignment(p, n)) return;
  if (quotedFrom == NOT_QUOTED && n <= 8) {
    if (isPrefixKeyword(p, n)) return;
    if (isClauseKeyword(p, n)) { set(f, F_PHASE, IGNORED); return; }
  }
  if (n == 0) return;
  if (factSpace) {
    // A program name with spaces is a command line passed as one word (`watch "curl x"`).
    set(f, F_PHASE, AT_ARGS);
    readAgain(p, n, depth);
    return;
  }
  const name = p + factBase;
  const len = n - factBase;
  addTargetCopy(SUBJ_PROGRAM, name, len);
  const h = fnv1a(name, len);
  if (wordValueHashed(wrappers, name, len, h) >= 0 || isWord(name, len, "busybox")) {
    set(f, F_PHASE, IN_WRAPPER);
    const entry = syntaxEntry(name, len);
    set(f, F_WRAPPER, entry);
    set(f, F_POSITIONAL, entry == NONE ? NONE : syntaxField(entry, 4));
    set(f, F_FLAGS, get(f, F_FLAGS) & FIND_EXEC);
    return;
  }
  let flags = get(f, F_FLAGS) & FIND_EXEC;
  if (wordValueHashed(network, name, len, h) >= 0) flags |= NETWORK;
  if (wordValueHashed(shells, name, len, h) >= 0) flags |= SHELL;
  if (isWord(name, len, "find")) flags |= FIND;
  if (isWord(name, len, "cd") || isWord(name, len, "pushd")) flags |= CD;
  if (isWord(name, len, "eval")) flags |= EVAL;
  if (isWord(name, len, "su") || isWord(name, len, "runuser")) flags |= SU;
  if (isWord(name, len, "trap")) flags |= TRAP;
  set(f, F_FLAGS, flags);
  set(f, F_PHASE, AT_ARGS);
}

function wrapperWord(f: usize, p: usize, n: u32, depth: u32): void {
  if (hasFlag(f, EXPECT_VALUE)) {
    const command = hasFlag(f, VALUE_IS_COMMAND);
    clearFlag(f, EXPECT_VALUE | VALUE_IS_COMMAND);
    if (command) readAgain(p, n, depth);
    return;
  }
  if (!hasFlag(f, OPTIONS_DONE) && n > 0 && at(p, 0) == 0x2d) {
    if (isWord(p, n, "--")) setFlag(f, OPTIONS_DONE);
    else wrapperOption(f, p, n, depth);
    return;
  }
  if (takePositional(f, p, n)) return;
  // The wrapped program.
  set(f, F_PHASE, AT_START);
  set(f, F_FLAGS, get(f, F_FLAGS) & FIND_EXEC);
  startProgram(f, p, n, depth);
}

// Arguments of a shell (-c, options with values), `su` (-c), and the first operand of `trap`.
function shellArgument(f: usize, p: usize, n: u32, depth: u32): void {
  const isOption = n > 0 && (at(p, 0) == 0x2d || at(p, 0) == 0x2b) && !hasFlag(f, OPTIONS_DONE);
  if (isOption) {
    if (isWord(p, n, "--") || (isWord(p, n, "-") && !hasFlag(f, SU))) { setFlag(f, OPTIONS_DONE); return; }
    if (hasFlag(f, SU)) {
      if (isWord(p, n, "-c") || isWord(p, n, "--command")) setFlag(f, EXPECT_VALUE | VALUE_IS_COMMAND);
      else if (startsWithLit(p, n, "--command=")) readAgain(p + 10, n - 10, depth);
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
  if (!hasFlag(f, SHELL)) return;
  // The first operand is the -c command line, or a script whose arguments follow.
  if (hasFlag(f, COMMAND_NEXT) && !hasFlag(f, HAS_OPERAND)) readAgain(p, n, depth);
  setFlag(f, HAS_OPERAND | OPTIONS_DONE);
}

function argumentWord(f: usize, p: usize, n: u32, depth: u32): void {
  if (hasFlag(f, EXPECT_VALUE)) {
    const command = hasFlag(f, VALUE_IS_COMMAND);
    clearFlag(f, EXPECT_VALUE | VALUE_IS_COMMAND);
    if (command) readAgain(p, n, depth);
    return;
  }
  if (hasFlag(f, FIND) && (isWord(p, n, "-exec") || isWord(p, n, "-execdir") || isWord(p, n, "-ok") || isWord(p, n, "-okdir"))) {
    set(f, F_FLAGS, FIND | FIND_EXEC);
    set(f, F_PHASE, AT_START);
    return;
  }
  if (hasFlag(f, SHELL | SU)) { shellArgument(f, p, n, depth); return; }
  if (hasFlag(f, EVAL)) { readAgain(p, n, depth); return; }
  const operand = n > 0 && (at(p, 0) != 0x2d || n == 1);
  if (hasFlag(f, TRAP) && operand && !hasFlag(f, HAS_OPERAND)) {
    setFlag(f, HAS_OPERAND);
    readAgain(p, n, depth);
    return;
  }
  if (hasFlag(f, CD) && operand && !hasFlag(f, HAS_OPERAND)) {
    setFlag(f, HAS_OPERAND);
    if (isWord(p, n, "-")) return; // the previous directory: not known here
    const moved = resolvePath(p, n, spanPtr(base), spanLen(base));
    if (moved != 0) base = moved;
    return;
  }
  if (hasFlag(f, NETWORK)) hostArgument(p, n);
  // A bare operand names a file in the current directory (`cat id_rsa` after `cd ~/.ssh`):
  // words with a '/' or a path lead were taken by wordTargets already.
  if (operand && factSlash == n && factEq == n && !factScheme && !pathLead(p, n) && !allDigits(p, n)) addPathWord(p, n);
}

// Handles one finished word of the command at `depth`.
function handleWord(depth: u32, p: usize, n: u32): void {
  const f = frame(depth);
  wordFacts(p, n);
  const redirect = get(f, F_REDIRECT);
  if (redirect != 0) {
    set(f, F_REDIRECT, 0);
    if (redirect == R_FILE) addPathWord(p, n);
    else if (redirect == R_DUP) { if (!allDigits(p, n) && !isWord(p, n, "-")) addPathWord(p, n); }
    else if (redirect == R_HERESTRING) wordTargets(p, n);
    else pushHeredoc(f, p, n, redirect == R_HEREDOC_DASH);
    return;
  }
  wordTargets(p, n);
  // find's -exec command ends at a ";" or "+" word.
  if (hasFlag(f, FIND_EXEC) && (isWord(p, n, ";") || isWord(p, n, "+"))) {
    set(f, F_FLAGS, FIND);
    set(f, F_PHASE, AT_ARGS);
    return;
  }
  const phase = get(f, F_PHASE);
  if (phase == AT_START) startProgram(f, p, n, depth);
  else if (phase == IN_WRAPPER) wrapperWord(f, p, n, depth);
  else if (phase == AT_ARGS) argumentWord(f, p, n, depth);
}

// Hands the finished word on: a brace list `{a,b}` as its words, else the word itself.
function finishWord(depth: u32): void {
  const p = wStart;
  const n = <u32>(bufTop - wStart);
  if (braceOpen && braceClose && braceComma && n > 2) {
    let s: u32 = 1;
    for (let k: u32 = 1; k < n; k++) {
      if (k == n - 1 || at(p, k) == 0x2c) {
        const q = quotedFrom;
        quotedFrom = NOT_QUOTED;
        handleWord(depth, p + s, k - s);
        quotedFrom = q;
        s = k + 1;
      }
    }
  } else {
    handleWord(depth, p, n);
  }
  popTo(p);
}

// ---- here-documents ----

function pushHeredoc(f: usize, p: usize, n: u32, dash: bool): void {
  const count = get(f, F_HEREDOCS);
  if (count >= MAX_HEREDOCS) return; // its body is then read as commands: more, not less
  const copy = scratchAlloc(max<usize>(<usize>n, 1));
  if (copy == 0) { fail(TARGETS_OOM); return; }
  memory.copy(copy, p, n);
  let flags: u32 = dash ? H_DASH : 0;
  if (quotedFrom != NOT_QUOTED) flags |= H_QUOTED;
  if (get(f, F_PHASE) == AT_ARGS && hasFlag(f, SHELL | EVAL)) {
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
    addUrl(p + <u32>u, urlEnd - <u32>u);
    from = urlEnd;
  }
}

// Reads the bodies of the pending here-documents, which start at `pos` (after a newline).
function heredocBodies(p: usize, len: u32, pos: u32, depth: u32): u32 {
  const f = frame(depth);
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
    while (i < len) {
      let e = i;
      while (e < len && at(p, e) != 0x0a) e++;
      let s = i;
      if ((flags & H_DASH) != 0) while (s < e && at(p, s) == 0x09) s++;
      const next = e < len ? e + 1 : len;
      if (e - s == delimLen && sameBytes(p + s, delim, delimLen)) {
        bodyEnd = i;
        i = next;
        break;
      }
      i = next;
    }
    if (bodyEnd > bodyStart) heredocBody(p + bodyStart, bodyEnd - bodyStart, flags, depth);
  }
  return i;
}

function heredocBody(p: usize, n: u32, flags: u32, depth: u32): void {
  if ((flags & H_SHELL) != 0) {
    readAgain(p, n, depth);
    return;
  }
  textUrls(p, n);
  if ((flags & H_QUOTED) == 0) substitutionsIn(p, n, depth);
}

// Runs the command substitutions of text that is otherwise data (an unquoted here-document).
function substitutionsIn(p: usize, n: u32, depth: u32): void {
  let k: u32 = 0;
  while (k < n && ok()) {
    const c = at(p, k);
    if (c == 0x5c) { k += 2; continue; }
    if (c == 0x24 && k + 1 < n && at(p, k + 1) == 0x28) {
      if (k + 2 < n && at(p, k + 2) == 0x28) { k += 3; continue; }
      k = nested(p, n, k + 2, depth);
      continue;
    }
    if (c == 0x60) { k = backquoted(p, n, k + 1, depth, false); continue; }
    k++;
  }
}

// ---- reading words ----

// A command line nested in a word (`$(…)`, `<(…)`) that starts at `from`; returns the index
// after its ')'. The word being built survives it.
function nested(p: usize, len: u32, from: u32, depth: u32): u32 {
  if (depth + 1 > maxDepth) { fail(TARGETS_LIMIT); return len; }
  const start = wStart;
  const n = <u32>(bufTop - wStart);
  const q = quotedFrom;
  const fl = wordFlags();
  const end = parseList(p, len, from, depth + 1, true);
  resumeWord(start, n, q, fl);
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
  const next = k < len ? k + 1 : len;
  if (depth + 1 > maxDepth) { fail(TARGETS_LIMIT); return next; }
  const start = wStart;
  const n = <u32>(bufTop - wStart);
  const q = quotedFrom;
  const fl = wordFlags();
  startWord();
  for (let i = from; i < k; i++) {
    const c = at(p, i);
    if (c == 0x5c && i + 1 < k) {
      const d = at(p, i + 1);
      if (d == 0x60 || d == 0x5c || d == 0x24 || (inDouble && d == 0x22)) { put(d, false); i++; continue; }
    }
    put(c, false);
  }
  const text = wStart;
  parseList(text, <u32>(bufTop - text), 0, depth + 1, false);
  popTo(text);
  resumeWord(start, n, q, fl);
  return next;
}

const ARITHMETIC_UNCLOSED: i64 = -2;

// `$((…))` that starts at `from` (after "$(("): returns the index after its "))", -1 when it
// is a command substitution that opens with a subshell instead, ARITHMETIC_UNCLOSED when the
// text ends first. Substitutions inside run.
function arithmetic(p: usize, len: u32, from: u32, depth: u32): i64 {
  let d: u32 = 2;
  let k = from;
  while (k < len && ok()) {
    const c = at(p, k);
    if (c == 0x28) { d++; k++; continue; }
    if (c == 0x29) {
      d--;
      if (d == 1) return k + 1 < len && at(p, k + 1) == 0x29 ? <i64>(k + 2) : -1;
      k++;
      continue;
    }
    if (c == 0x24 && k + 1 < len && at(p, k + 1) == 0x28 && !(k + 2 < len && at(p, k + 2) == 0x28)) {
      k = nested(p, len, k + 2, depth);
      continue;
    }
    if (c == 0x60) { k = backquoted(p, len, k + 1, depth, false); continue; }
    k++;
  }
  return ARITHMETIC_UNCLOSED;
}

// `${…}` that starts at `from` (after "${"); returns the index after its '}'. Substitutions
// inside run.
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
    if (c == 0x24 && k + 1 < len && at(p, k + 1) == 0x28) { k = nested(p, len, k + 2, depth); continue; }
    if (c == 0x24 && k + 1 < len && at(p, k + 1) == 0x7b) { d++; k += 2; continue; }
    if (c == 0x60) { k = backquoted(p, len, k + 1, depth, false); continue; }
    if (c == 0x7d) {
      d--;
      if (d == 0) return k + 1;
    }
    k++;
  }
  return min(k, len);
}

function hexValue(c: u32): i32 {
  if (isAsciiDigit(c)) return <i32>(c - 0x30);
  const l = c | 0x20;
  return l - 0x61 < 6 ? <i32>(l - 0x61 + 10) : -1;
}

function putCodePoint(cp: u32): void {
  if (cp < 0x80) { put(cp, true); return; }
  if (cp < 0x800) { put(0xc0 | (cp >> 6), true); put(0x80 | (cp & 0x3f), true); return; }
  if (cp < 0x10000) {
    put(0xe0 | (cp >> 12), true);
    put(0x80 | ((cp >> 6) & 0x3f), true);
    put(0x80 | (cp & 0x3f), true);
    return;
  }
  put(0xf0 | ((cp >> 18) & 7), true);
  put(0x80 | ((cp >> 12) & 0x3f), true);
  put(0x80 | ((cp >> 6) & 0x3f), true);
  put(0x80 | (cp & 0x3f), true);
}

// `$'…'` from `from` (after "$'"): bash's escapes decoded. Returns the index after the '.
function ansiQuoted(p: usize, len: u32, from: u32): u32 {
  if (quotedFrom == NOT_QUOTED) quotedFrom = <u32>(bufTop - wStart);
  let k = from;
  while (k < len) {
    const c = at(p, k);
    if (c == 0x27) return k + 1;
    if (c != 0x5c || k + 1 >= len) { put(c, true); k++; continue; }
    const e = at(p, k + 1);
    k += 2;
    if (e == 0x78 || e == 0x75 || e == 0x55) { // \xHH \uHHHH \UHHHHHHHH
      const most: u32 = e == 0x78 ? 2 : e == 0x75 ? 4 : 8;
      let v: u32 = 0;
      let digits: u32 = 0;
      while (digits < most && k < len && hexValue(at(p, k)) >= 0) { v = (v << 4) | <u32>hexValue(at(p, k)); k++; digits++; }
      if (digits == 0) { put(0x5c, true); put(e, true); continue; }
      if (e == 0x78) put(v & 0xff, true);
      else putCodePoint(min<u32>(v, 0x10ffff));
      continue;
    }
    if (e >= 0x30 && e <= 0x37) { // \NNN octal
      let v = e - 0x30;
      let digits: u32 = 1;
      while (digits < 3 && k < len && at(p, k) >= 0x30 && at(p, k) <= 0x37) { v = (v << 3) | (at(p, k) - 0x30); k++; digits++; }
      put(v & 0xff, true);
      continue;
    }
    if (e == 0x63 && k < len) { put(at(p, k) & 0x1f, true); k++; continue; } // \cX
    let b = e; // \\ \' \" \?
    if (e == 0x61) b = 7;
    else if (e == 0x62) b = 8;
    else if (e == 0x65 || e == 0x45) b = 27;
    else if (e == 0x66) b = 12;
    else if (e == 0x6e) b = 10;
    else if (e == 0x72) b = 13;
    else if (e == 0x74) b = 9;
    else if (e == 0x76) b = 11;
    else if (e != 0x5c && e != 0x27 && e != 0x22 && e != 0x3f) put(0x5c, true);
    put(b, true);
  }
  return len;
}

// A word break: the word so far is finished and a new one starts (an unquoted $IFS).
function breakWord(depth: u32): void {
  if (bufTop > wStart) finishWord(depth);
  startWord();
}

// Whether `$` at i starts $IFS / ${IFS…}: returns the index after it, else 0.
function ifsAt(p: usize, len: u32, i: u32): u32 {
  if (i + 4 <= len && at(p, i + 1) == 0x49 && at(p, i + 2) == 0x46 && at(p, i + 3) == 0x53 &&
      (i + 4 == len || !isNameByte(at(p, i + 4)))) return i + 4;
  if (i + 5 <= len && at(p, i + 1) == 0x7b && at(p, i + 2) == 0x49 && at(p, i + 3) == 0x46 && at(p, i + 4) == 0x53 &&
      (i + 5 == len || !isNameByte(at(p, i + 5)))) {
    let k = i + 5;
    while (k < len && at(p, k) != 0x7d) k++;
    return min(k + 1, len);
  }
  return 0;
}

// A '$' at i; returns the index after what it starts.
function dollar(p: usize, len: u32, i: u32, depth: u32, inDouble: bool): u32 {
  if (i + 1 >= len) { put(0x24, inDouble); return i + 1; }
  const c = at(p, i + 1);
  if (!inDouble && c == 0x27) return ansiQuoted(p, len, i + 2);
  if (!inDouble && c == 0x22) return doubleQuoted(p, len, i + 2, depth);
  if (c == 0x28) {
    if (i + 2 < len && at(p, i + 2) == 0x28) {
      const end = arithmetic(p, len, i + 3, depth);
      if (end >= 0) {
        putRaw(p + i, <u32>end - i);
        return <u32>end;
      }
    }
    const end = nested(p, len, i + 2, depth);
    putPlaceholder();
    return end;
  }
  if (!inDouble) {
    const ifs = ifsAt(p, len, i);
    if (ifs != 0) { breakWord(depth); return ifs; }
  }
  if (c == 0x7b) {
    const end = braced(p, len, i + 2, depth);
    putRaw(p + i, end - i);
    return end;
  }
  put(0x24, inDouble);
  return i + 1;
}

// "…" from `from` (after the quote); returns the index after the closing quote.
function doubleQuoted(p: usize, len: u32, from: u32, depth: u32): u32 {
  let k = from;
  if (quotedFrom == NOT_QUOTED) quotedFrom = <u32>(bufTop - wStart);
  while (k < len && ok()) {
    const c = at(p, k);
    if (c == 0x22) return k + 1;
    if (c == 0x5c) {
      // A backslash that ends the text stands for itself: the loop must still advance.
      const d = k + 1 < len ? at(p, k + 1) : 0;
      if (d == 0x0a) { k += 2; continue; }
      if (d == 0x24 || d == 0x60 || d == 0x22 || d == 0x5c) { put(d, true); k += 2; continue; }
      put(c, true);
      k++;
      continue;
    }
    if (c == 0x24) { k = dollar(p, len, k, depth, true); continue; }
    if (c == 0x60) { k = backquoted(p, len, k + 1, depth, true); putPlaceholder(); continue; }
    const run = ordinaryRun(p, len, k, ORDINARY_INSIDE);
    putRaw(p + k, run - k);
    k = run;
  }
  return len;
}

// Reads the word (or words, split by $IFS or a brace list) that starts at `pos`.
function readWord(p: usize, len: u32, pos: u32, depth: u32): u32 {
  startWord();
  let i = pos;
  while (i < len && ok()) {
    const c = at(p, i);
    if ((c == 0x3c || c == 0x3e) && i + 1 < len && at(p, i + 1) == 0x28) { // <(…) >(…)
      i = nested(p, len, i + 2, depth);
      putPlaceholder();
      continue;
    }
    if (isMeta(c)) break;
    if (c == 0x5c) {
      if (i + 1 >= len) { i++; continue; }
      const d = at(p, i + 1);
      if (d != 0x0a) put(d, true);
      i += 2;
      continue;
    }
    if (c == 0x27) {
      if (quotedFrom == NOT_QUOTED) quotedFrom = <u32>(bufTop - wStart);
      let k = i + 1;
      while (k < len && at(p, k) != 0x27) k++;
      putRaw(p + i + 1, k - i - 1);
      i = min(k + 1, len);
      continue;
    }
    if (c == 0x22) { i = doubleQuoted(p, len, i + 1, depth); continue; }
    if (c == 0x60) { i = backquoted(p, len, i + 1, depth, false); putPlaceholder(); continue; }
    if (c == 0x24) { i = dollar(p, len, i, depth, false); continue; }
    const run = ordinaryRun(p, len, i, ORDINARY_OUTSIDE);
    if (run > i) {
      putRaw(p + i, run - i);
      i = run;
      continue;
    }
    put(c, false);
    i++;
  }
  if (bufTop > wStart || quotedFrom != NOT_QUOTED) finishWord(depth);
  else popTo(wStart);
  return i;
}

// ---- command lists ----

// A redirection operator at i; returns the index after it. Its target is the next word.
function redirection(p: usize, len: u32, i: u32, f: usize): u32 {
  const c = at(p, i);
  const d = i + 1 < len ? at(p, i + 1) : 0;
  let kind = R_FILE;
  if (c == 0x26) { // &> &>>
    i += 2;
    if (i < len && at(p, i) == 0x3e) i++;
  } else if (c == 0x3c) {
    if (d == 0x3c) {
      if (i + 2 < len && at(p, i + 2) == 0x3c) { kind = R_HERESTRING; i += 3; }
      else if (i + 2 < len && at(p, i + 2) == 0x2d) { kind = R_HEREDOC_DASH; i += 3; }
      else { kind = R_HEREDOC; i += 2; }
    } else if (d == 0x26) { kind = R_DUP; i += 2; }
    else if (d == 0x3e) i += 2;
    else i++;
  } else {
    if (d == 0x3e || d == 0x7c) i += 2;
    else if (d == 0x26) { kind = R_DUP; i += 2; }
    else i++;
  }
  set(f, F_REDIRECT, kind);
  return i;
}

// Reads a list of commands from `pos`: to the end, or (inside `$(…)`) to its closing ')',
// whose index + 1 it returns.
function parseList(p: usize, len: u32, pos: u32, depth: u32, inSubstitution: bool): u32 {
  const f = frame(depth);
  beginCommand(f);
  set(f, F_HEREDOCS, 0);
  let parens: u32 = 0;
  let arithmeticPossible = true;
  let i = pos;
  while (i < len && ok()) {
    const c = at(p, i);
    const d = i + 1 < len ? at(p, i + 1) : 0;
    if (c == 0x20 || c == 0x09) { i++; continue; }
    if (c == 0x5c && d == 0x0a) { i += 2; continue; }
    if (c == 0x0a) {
      endCommand(f);
      i = heredocBodies(p, len, i + 1, depth);
      continue;
    }
    if (c == 0x23) { // a comment, to the end of the line
      while (i < len && at(p, i) != 0x0a) i++;
      continue;
    }
    if (c == 0x3b || c == 0x7c || (c == 0x26 && d != 0x3e)) {
      endCommand(f);
      i++;
      if (d == c || (c == 0x7c && d == 0x26) || (c == 0x3b && d == 0x26)) i++;
      continue;
    }
    if (c == 0x28) {
      if (d == 0x28 && get(f, F_PHASE) == AT_START && arithmeticPossible) { // ((arithmetic))
        const end = arithmetic(p, len, i + 2, depth);
        if (end >= 0) { i = <u32>end; continue; }
        // Unclosed to the end: later "((" are read as subshells, so the scan is not repeated.
        if (end == ARITHMETIC_UNCLOSED) arithmeticPossible = false;
      }
      parens++;
      endCommand(f);
      i++;
      continue;
    }
    if (c == 0x29) {
      endCommand(f);
      if (inSubstitution && parens == 0) return i + 1;
      if (parens > 0) parens--;
      i++;
      continue;
    }
    if ((c == 0x3c || c == 0x3e) && d != 0x28) { i = redirection(p, len, i, f); continue; }
    if (c == 0x26) { i = redirection(p, len, i, f); continue; }
    if (isAsciiDigit(c)) { // an fd number before a redirection: 2>file
      let k = i;
      while (k < len && isAsciiDigit(at(p, k))) k++;
      if (k < len && (at(p, k) == 0x3c || at(p, k) == 0x3e) && !(k + 1 < len && at(p, k + 1) == 0x28)) {
        i = redirection(p, len, k, f);
        continue;
      }
    }
    i = readWord(p, len, i, depth);
  }
  endCommand(f);
  return i;
}

// Adds the targets of command line [p, p+len). Sets are word sets (wordset.ts); maxShellDepth
// bounds the nesting of shell strings and substitutions read (at most MAX_FRAMES - 1).
export function shellTargets(p: usize, len: u32, wrapperSet: u64, networkSet: u64, shellSet: u64,
                             extensionSet: u64, maxShellDepth: u32): void {
  wrappers = wrapperSet;
  network = networkSet;
  shells = shellSet;
  extensions = extensionSet;
  maxDepth = min(maxShellDepth, MAX_FRAMES - 1);
  base = pathBase();
  if (!byteClassReady) fillByteClass();
  const size = <usize>len + 256;
  buf = scratchAlloc(size);
  if (buf == 0) { fail(TARGETS_OOM); return; }
  bufTop = buf;
  bufEnd = buf + size;
  wStart = buf;
  parseList(p, len, 0, 0, false);
}
