// Reading one word of a command line as bash does: quotes and escapes, $'…', parameters and
// their expansions, command and arithmetic substitution, extglob groups. Bytes go to the word
// buffer of state.ts with their classes; expand.ts makes the words bash would run.
import { isAsciiDigit, sameBytes } from "../../abi/bytes";
import { spanPtr, spanLen } from "../normalize";
import { TARGETS_LIMIT, fail } from "../targettable";
import { parseList } from "./shell";
import {
  ok, at, maxDepth, unterminated, C_LIT, C_Q, C_EXP, C_NUM, W_QUOTED, W_SUBST, half, bufTop, wStart, wMask,
  ORDINARY_OUTSIDE, ORDINARY_INSIDE, ordinaryRun, clsAt, put, putRun, putValue, putUnknown, startWord, popTo,
  resumeWord, basesSave, basesRestore, VAR_HOME, VAR_PWD, VAR_IFS, varFind, isNameStart, isNameByte, varValue,
  varEvent,
} from "./state";
import { opaqueWith, isMeta, allDigits } from "./facts";
import { finishWord } from "./expand";
import { environmentRead } from "./arguments";

// ---- reading words ----

// A command line nested in a word (`$(…)`, `<(…)`) that starts at `from`; returns the index
// after its ')'. The word being built survives it.
export function nested(p: usize, len: u32, from: u32, depth: u32): u32 {
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
export function backquoted(p: usize, len: u32, from: u32, depth: u32, inDouble: bool): u32 {
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
export let arithName = false;

export function arithmetic(p: usize, len: u32, from: u32, depth: u32, bracket: bool): i64 {
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
export function braced(p: usize, len: u32, from: u32, depth: u32): u32 {
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
export function parameter(p: usize, s: u32, e: u32, inDouble: bool): void {
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
  // The word after an operator (${x:+$TOKEN}, ${x:-$TOKEN}) expands too: the variables it names.
  for (let j = k; j + 1 < e; j++) {
    if (at(p, j) != 0x24) continue;
    let a = j + 1;
    if (at(p, a) == 0x7b) a++;
    let b = a;
    while (b < e && isNameByte(at(p, b))) b++;
    if (b > a && isNameStart(at(p, a)) && varFind(p + a, b - a) < 0) environmentRead(p + a, b - a);
  }
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
export function nextByte(p: usize, len: u32, i: u32): u32 {
  while (i < len && (at(p, i) == 0x20 || at(p, i) == 0x09)) i++;
  return i < len ? at(p, i) : 0;
}

export let wordEnd: u32 = 0;    // where the last word read ended
export let wordText: usize = 0; // the source text it was read from
export let wordTextLen: u32 = 0;

// Reads the word (or words: a brace list, field splitting) that starts at `pos`.
export function readWord(p: usize, len: u32, pos: u32, depth: u32): u32 {
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
