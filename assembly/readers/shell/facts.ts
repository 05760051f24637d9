// What the shell reader adds to the call's table (the PROGRAM ">" of a write, OPAQUE, paths
// read and written, hosts), the tests it makes of single words, what it knows of programs from
// the policy's SHELL_PROGRAMS (docs/bytecode.md §3.4), and bash's builtins.
import { NONE, SUBJ_PROGRAM, SUBJ_OPAQUE, SUBJ_DOMAIN } from "../../../bytecode/format";
import { scratchAlloc } from "../../abi/mem";
import { Text, textLen, textPtr } from "../../abi/out";
import { isAsciiAlpha, isAsciiDigit, fnv1a, sameBytes } from "../../abi/bytes";
import { setFindHashed, setBucketCount, setBucketKey, strPtr, strLen } from "../../policy/decode";
import { findUrl, urlEnd, looksLikeHost, endsUrl } from "../scan";
import { span, homeLen, hermesPtr, hermesLen } from "../normalize";
import {
  TARGETS_OOM, fail, addTargetCopy, addPathIn, addHost, addUrlIn, addWrittenIn, addPathPatternIn, addTreeIn,
  addPatternTarget, markUncontained,
} from "../targettable";
import {
  ok, at, extensions, programs, baseCount, baseUnknown, baseAt, isNameStart, isNameByte, WROTE, hasFlag,
  setFlag,
} from "./state";
import { nested } from "./read";
import { pipeFile } from "./arguments";

// ---- what the reader adds ----

// What a writing redirection or option adds besides the WRITE: the PROGRAM ">", which no program
// name equals, so an allow rule over PROGRAM holds for the command only if it lists ">" (§6.6).
const WRITES_PROGRAM: usize = memory.data<u8>([0x3e]);
// What a shell given neither a -c string nor a script runs: its standard input (§6.6).
export const DEV_STDIN: usize = memory.data<u8>([0x2f, 0x64, 0x65, 0x76, 0x2f, 0x73, 0x74, 0x64, 0x69, 0x6e]);
export const ANY: usize = memory.data<u8>([0x2a, 0x2a]);            // "**"
const ANY_CHILD: usize = memory.data<u8>([0x2a, 0x2a, 0x2f]); // "**/"
export const DOT: usize = memory.data<u8>([0x2e]);

export function writes(f: usize): void {
  if (f != 0 && hasFlag(f, WROTE)) return;
  if (f != 0) setFlag(f, WROTE);
  addTargetCopy(SUBJ_PROGRAM, WRITES_PROGRAM, 1);
}

// An OPAQUE target: `what`, a space and (up to 64 bytes of) the word it is about.
export function opaqueWith(what: Text, p: usize, n: u32): void {
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

@inline export function opaque(what: Text): void {
  opaqueWith(what, 0, 0);
}

// How a path is used.
export const USE_READ: u32 = 0;
export const USE_WRITE: u32 = 1;
export const USE_TREE: u32 = 2;       // read with everything below it
export const USE_TREE_WRITE: u32 = 3; // written with everything below it

function pathIn(p: usize, n: u32, b: u64, pattern: bool, use: u32): void {
  if (use >= USE_TREE) addTreeIn(p, n, b, use == USE_TREE_WRITE);
  else if (pattern) addPathPatternIn(p, n, b, use == USE_WRITE);
  else if (use == USE_READ) addPathIn(p, n, b);
  else addWrittenIn(p, n, b);
}

// A path a command uses, against every directory bash may be in; against an unknown one, a
// relative path is the pattern `**/path`.
export function usePath(p: usize, n: u32, pattern: bool, use: u32): void {
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
  if (baseUnknown) pathIn(p, n, span(0, 0), true, use); // the table makes it `/**/path` (targettable.ts)
}

// ---- small word tests ----

export function isWord(p: usize, n: u32, s: Text): bool {
  return textLen(s) == n && startsWithLit(p, n, s);
}

export function startsWithLit(p: usize, n: u32, s: Text): bool {
  const m = textLen(s), q = textPtr(s);
  if (m > n) return false;
  for (let k: u32 = 0; k < m; k++) if (at(p, k) != <u32>load<u8>(q + k)) return false;
  return true;
}

@inline export function isMeta(c: u32): bool {
  return c == 0x20 || c == 0x09 || c == 0x0a || c == 0x3b || c == 0x26 || c == 0x7c ||
    c == 0x28 || c == 0x29 || c == 0x3c || c == 0x3e;
}

export function allDigits(p: usize, n: u32): bool {
  if (n == 0) return false;
  for (let k: u32 = 0; k < n; k++) if (!isAsciiDigit(at(p, k))) return false;
  return true;
}

// The length of NAME in NAME=…, NAME+=…, NAME[sub]=… at the start of [p, p+n), else 0; the
// name's bytes must be unquoted source text (wordLit tells).
export function assignmentName(p: usize, n: u32): u32 {
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

export function hasByte(p: usize, n: u32, c: u32): bool {
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

export function pathLead(p: usize, n: u32): bool {
  if (n == 0) return false;
  const c = at(p, 0);
  if (c == 0x2f || c == 0x7e) return true;
  if (isWord(p, n, ".") || isWord(p, n, "..")) return true;
  return startsWithLit(p, n, "./") || startsWithLit(p, n, "../");
}

// What one pass over the word being handled found: its first '/' and '=' (n: none), where its
// basename starts, and whether it holds white space or "://".
export let factSlash: u32 = 0;
export let factEq: u32 = 0;
export let factBase: u32 = 0;
export let factSpace = false;
export let factScheme = false;

export function wordFacts(p: usize, n: u32): void {
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
export let wordPattern = false;
export let wordSplit = false;   // an unquoted unknown expansion: bash may make several words of it
export let wordLiteral = false; // no expansion: the text is the source's
export let wordSubst = false;   // it holds a command or process substitution's output
export let wordQuoted = false;  // part of it was quoted

// The word as written when it is a glob and nothing else (valid while it is handled), else 0.
export let rawPtr: usize = 0;
export let rawLen: u32 = 0;

// URLs anywhere in a word (of a glob, also as it is written).
export function wordUrls(p: usize, n: u32): bool {
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
export function wordTargets(p: usize, n: u32): void {
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
export function operandPath(p: usize, n: u32, use: u32): void {
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
export function hostArgument(p: usize, n: u32): void {
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
export function remoteOperand(p: usize, n: u32): bool {
  let colon: u32 = n;
  for (let k: u32 = 0; k < n; k++) {
    const c = at(p, k);
    if (c == 0x2f) return false; // a '/' before any ':' is a local path
    if (c == 0x3a) { colon = k; break; }
  }
  if (colon == 0 || colon == n) return false;
  // SCHEME://HOST/PATH (rsync://, ssh://) is a URL, whose host follows the scheme.
  if (colon + 2 < n && at(p, colon + 1) == 0x2f && at(p, colon + 2) == 0x2f) {
    addUrlIn(p, n, wordPattern);
    return true;
  }
  let s: u32 = 0;
  for (let k: u32 = 0; k < colon; k++) if (at(p, k) == 0x40) s = k + 1;
  if (s < colon && !wordPattern) addHost(p + s, colon - s);
  else if (wordPattern) opaqueWith("remote host", p, n);
  return true;
}

// `REV:PATH` (git show HEAD~3:.env): PATH in the repository, whose root is the working directory
// or one above it: the pattern `**/PATH`.
export function revPath(p: usize, n: u32): bool {
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
  markUncontained();
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
export function specFlags(spec: u32, p: usize, n: u32): i64 {
  if (spec == NONE || n == 0) return -1;
  return setFindHashed(spec, p, n, fnv1a(p, n));
}

export function shortFlags(spec: u32, prefix: u32, c: u32): i64 {
  store<u8>(key2, <u8>prefix);
  store<u8>(key2 + 1, <u8>c);
  return specFlags(spec, key2, 2);
}

const MODE_KEY: usize = memory.data<u8>([0x40]); // "@"

export function specMode(spec: u32): u32 {
  const v = specFlags(spec, MODE_KEY, 1);
  return v < 0 ? 0 : <u32>v;
}

// The option set of program [p, p+n), or NONE.
export function programSpec(p: usize, n: u32, h: u32): u32 {
  if (programs == NONE) return NONE;
  const v = setFindHashed(programs, p, n, h);
  return v < 0 ? NONE : <u32>v;
}

// Whether the script [p, p+n) holds one of the program's opaque tokens ("%TOKEN" keys).
export function scriptIsOpaque(spec: u32, p: usize, n: u32): bool {
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
export function fixedWrites(f: usize, spec: u32): void {
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
export const B_CD: u8 = 1;       // cd pushd
export const B_POPD: u8 = 2;
export const B_EVAL: u8 = 3;
export const B_SOURCE: u8 = 4;   // source .
export const B_ALIAS: u8 = 5;
export const B_TRAP: u8 = 6;
export const B_DECLARE: u8 = 7;  // declare typeset local export readonly
export const B_UNSET: u8 = 8;
export const B_READ: u8 = 9;
export const B_MAPFILE: u8 = 10; // mapfile readarray
export const B_PRINTF: u8 = 11;
export const B_LET: u8 = 12;
export const B_GETOPTS: u8 = 13;
export const B_SET: u8 = 14;
export const B_SHOPT: u8 = 15;
export const B_HASH: u8 = 16;    // hash enable compgen complete bind fc history: options that run or load
export const B_TEST: u8 = 17;    // test [
export const B_WAIT: u8 = 18;
export const B_ECHO: u8 = 19;    // echo: every operand is data
export const B_SU: u8 = 20;      // su runuser: -c COMMAND

// The index of the word [p, p+n) in a space-separated list, or -1.
export function wordIn(p: usize, n: u32, list: Text): i32 {
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

export function builtinKind(p: usize, n: u32): u32 {
  const k = wordIn(p, n, "cd pushd popd eval source . alias trap declare typeset local export readonly unset read mapfile readarray printf let getopts set shopt hash enable compgen complete bind fc history test [ wait echo su runuser");
  return k < 0 ? 0 : <u32>load<u8>(BUILTIN_KINDS + <usize>k);
}

// `set` options that change nothing the reader relies on.
export function setOptionSafe(p: usize, n: u32): bool {
  for (let k: u32 = 1; k < n; k++) {
    const c = at(p, k);
    // a b e f h m n t u v x C E H P T, and o (its name is checked apart)
    if (!(c == 0x61 || c == 0x62 || c == 0x65 || c == 0x66 || c == 0x68 || c == 0x6d || c == 0x6e ||
          c == 0x74 || c == 0x75 || c == 0x76 || c == 0x78 || c == 0x43 || c == 0x45 || c == 0x48 ||
          c == 0x50 || c == 0x54 || c == 0x6f)) return false;
  }
  return true;
}

export const SET_WORD: usize = memory.data<u8>([0x73, 0x65, 0x74]); // "set"

export function setNameSafe(p: usize, n: u32): bool {
  return wordIn(p, n, "pipefail errexit nounset xtrace noglob noclobber verbose errtrace functrace hashall noexec notify monitor physical allexport") >= 0;
}

// shopt names that change nothing the reader relies on (its patterns already cover them).
export function shoptNameSafe(p: usize, n: u32): bool {
  return wordIn(p, n, "extglob dotglob nullglob failglob globstar lastpipe expand_aliases nocasematch inherit_errexit xpg_echo checkwinsize histappend globasciiranges sourcepath") >= 0;
}
