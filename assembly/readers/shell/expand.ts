// Expanding a word read by read.ts as bash expands it: brace lists, tildes, field splitting
// and globs, each field handed to the command it belongs to; and shell strings (sh -c, eval,
// trap) read again as command lines.
import { SUBJ_PROGRAM } from "../../../bytecode/format";
import { scratchAlloc } from "../../abi/mem";
import { sameBytes } from "../../abi/bytes";
import { spanPtr, spanLen, homeLen } from "../normalize";
import { TARGETS_LIMIT, TARGETS_OOM, fail, addPatternTarget } from "../targettable";
import { handleWord, parseList } from "./shell";
import {
  ok, at, maxDepth, C_LIT, C_Q, C_EXP, C_UNK, C_UNKQ, C_NUM, W_BRACE, W_GLOB, W_EXPAND, W_QUOTED, W_TILDE,
  W_SPLIT, W_SUBST, W_BRACED, half, bufTop, wStart, wMask, ensure, put, putRun, startWord, popTo, basesSave,
  basesRestore, varCount, varScope, VAR_HOME, VAR_PWD, varValue, cur, F_PHASE, F_REDIRECT, AT_START, get,
} from "./state";
import {
  assignmentName, wordPattern, wordSplit, wordLiteral, wordSubst, wordQuoted, rawPtr, rawLen,
} from "./facts";
import { assignment } from "./command";

// ---- expanding a word: brace lists, tildes, field splitting, globs ----

export let wordAssign: u32 = 0;   // NAME= at the start of the word (its name's length), in assignment position
export let wordPlain = false;     // unquoted source text only: a reserved word can be one
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
export function finishWord(depth: u32): void {
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
export function readAgain(p: usize, n: u32, depth: u32, child: bool): void {
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
export const STAR: usize = memory.data<u8>([0x2a]);

export function shellString(p: usize, n: u32, depth: u32): void {
  addPatternTarget(SUBJ_PROGRAM, STAR, 1);
  readAgain(p, n, depth, true);
}

// xargs' replace string (-I {}): a word of the command it runs that holds it is what xargs reads
// from its input, which the reader cannot see.
export const BRACES: usize = memory.data<u8>([0x7b, 0x7d]);
export let replacePtr: usize = 0;
export let replaceLen: u32 = 0;

export function keepReplace(p: usize, n: u32): void {
  if (n == 0) return;
  const copy = scratchAlloc(<usize>n);
  if (copy == 0) { fail(TARGETS_OOM); return; }
  memory.copy(copy, p, n);
  replacePtr = copy;
  replaceLen = n;
}

export function holdsReplace(p: usize, n: u32): bool {
  if (replaceLen == 0) return false;
  for (let k: u32 = 0; k + replaceLen <= n; k++) if (sameBytes(p + k, replacePtr, replaceLen)) return true;
  return false;
}
