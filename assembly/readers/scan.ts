// Reading free text (the user's message, program text): the URLs in it, the items a message
// names (docs/bytecode.md §7: addresses, URLs, domains, paths, channels and handles), and the
// verbs its own words prohibit. Word sets come in as parameters (wordset.ts).
import { SUBJ_EMAIL, SUBJ_DOMAIN, SUBJ_URL, SUBJ_PATH, SUBJ_RECIPIENT } from "../../bytecode/format";
import { scratchAlloc } from "../abi/mem";
import { isAsciiAlpha, isAsciiDigit, lowerAscii, indexOfByte } from "../abi/bytes";
import { Text, textLen, textPtr } from "../abi/out";
import { hasWord, wordValue } from "./wordset";
import { pyWhitespace } from "./v4a";

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

function isAlnum(c: u32): bool {
  return isAsciiAlpha(c) || isAsciiDigit(c);
}

// The byte length (3) of a character of a script written without spaces between words at i:
// CJK ideographs and punctuation, kana, hangul, full-width forms (U+3000-U+D7FF, U+F900-U+FAFF,
// U+FE30-U+FE4F, U+FF00-U+FFEF); else 0. No address, URL or path the binder reads holds one, so
// they end an item as white space does ("发给wang@example.cn谢谢").
export function cjkLen(p: usize, len: u32, i: u32): u32 {
  const c = at(p, i);
  if (c < 0xe3 || c > 0xef || c == 0xee) return 0;
  if (i + 2 >= len) return 0;
  const d = at(p, i + 1);
  if ((d & 0xc0) != 0x80 || (at(p, i + 2) & 0xc0) != 0x80) return 0;
  if (c == 0xed && d >= 0xa0) return 0; // surrogates: not UTF-8
  if (c == 0xef) return (d >= 0xa4 && d <= 0xab) || d == 0xb8 || d == 0xb9 || d >= 0xbc ? 3 : 0;
  return 3;
}

// ---- URLs ----

export let urlEnd: u32 = 0;

function isSchemeByte(c: u32): bool {
  return isAlnum(c) || c == 0x2b || c == 0x2d || c == 0x2e;
}

// Bytes that end a URL written in text or code: white space, controls, quotes, brackets of
// markup, and '\\' (an escape in program text).
export function endsUrl(c: u32): bool {
  return c <= 0x20 || c == 0x7f || c == 0x22 || c == 0x27 || c == 0x60 || c == 0x3c || c == 0x3e ||
    c == 0x7b || c == 0x7d || c == 0x7c || c == 0x5c || c == 0x5e;
}

// The start of the next "scheme://…" URL in [p, p+len) at or after `from`, or -1; its end in
// urlEnd. Trailing sentence punctuation and an unbalanced closing bracket are not part of it.
export function findUrl(p: usize, len: u32, from: u32): i32 {
  let i = from;
  while (i + 3 <= len) {
    if (at(p, i) != 0x3a || i + 2 >= len || at(p, i + 1) != 0x2f || at(p, i + 2) != 0x2f) { i++; continue; }
    let s = i;
    while (s > from && isSchemeByte(at(p, s - 1))) s--;
    while (s < i && !isAsciiAlpha(at(p, s))) s++; // a scheme starts with a letter
    if (s == i) { i += 3; continue; }
    let e = i + 3;
    while (e < len && !endsUrl(at(p, e))) e++;
    let open: u32 = 0, close: u32 = 0, openSq: u32 = 0, closeSq: u32 = 0;
    for (let k = i; k < e; k++) {
      const c = at(p, k);
      if (c == 0x28) open++; else if (c == 0x29) close++;
      else if (c == 0x5b) openSq++; else if (c == 0x5d) closeSq++;
    }
    while (e > i + 3) {
      const c = at(p, e - 1);
      if (c == 0x2e || c == 0x2c || c == 0x3b || c == 0x3a || c == 0x21 || c == 0x3f || c == 0x2a) { e--; continue; }
      if (c == 0x29 && close > open) { close--; e--; continue; }
      if (c == 0x5d && closeSq > openSq) { closeSq--; e--; continue; }
      break;
    }
    urlEnd = e;
    return <i32>s;
  }
  return -1;
}

// ---- the items a message names ----

export let itemStart: u32 = 0;
export let itemEnd: u32 = 0;
export let itemNext: u32 = 0; // where the next call should resume
let pendingKind: u32 = 0;     // a second item of the same word (a bare URL's host)
// The item is that second one: the host of a word that also names a path ("example.com/docs").
export let itemIsWordHost = false;
let pendingStart: u32 = 0;
let pendingEnd: u32 = 0;

// Typographic quotes and guillemets that may wrap a word: “ ” ‘ ’ « ».
export function quoteMarkLen(p: usize, len: u32, i: u32): u32 {
  const c = at(p, i);
  if (c == 0xe2 && i + 2 < len && at(p, i + 1) == 0x80) {
    const e = at(p, i + 2);
    if (e == 0x98 || e == 0x99 || e == 0x9c || e == 0x9d || e == 0xa6) return 3; // ‘ ’ “ ” …
  }
  if (c == 0xc2 && i + 1 < len && (at(p, i + 1) == 0xab || at(p, i + 1) == 0xbb)) return 2;
  return 0;
}

function quoteMarkEndingAt(p: usize, start: u32, end: u32): u32 {
  if (end >= start + 3 && quoteMarkLen(p, end, end - 3) == 3) return 3;
  if (end >= start + 2 && quoteMarkLen(p, end, end - 2) == 2) return 2;
  return 0;
}

function isLeadingJunk(c: u32): bool {
  return c == 0x28 || c == 0x5b || c == 0x7b || c == 0x3c || c == 0x22 || c == 0x27 || c == 0x60 || c == 0x2a;
}

function isTrailingJunk(c: u32): bool {
  return c == 0x29 || c == 0x5d || c == 0x7d || c == 0x3e || c == 0x22 || c == 0x27 || c == 0x60 || c == 0x2a ||
    c == 0x2e || c == 0x2c || c == 0x3b || c == 0x3a || c == 0x21 || c == 0x3f;
}

function startsWithAscii(p: usize, start: u32, end: u32, s: Text): bool {
  const n = textLen(s);
  if (start + n > end) return false;
  for (let k: u32 = 0; k < n; k++) if (lowerAscii(at(p, start + k)) != <u32>load<u8>(textPtr(s) + k)) return false;
  return true;
}

function startsWithExact(p: usize, start: u32, end: u32, s: Text): bool {
  const n = textLen(s);
  if (start + n > end) return false;
  for (let k: u32 = 0; k < n; k++) if (at(p, start + k) != <u32>load<u8>(textPtr(s) + k)) return false;
  return true;
}

// Whether [start, end) looks like a path: starts with / ~ ./ ../ $HOME ${HOME}, contains '/',
// ends in .EXT for a file extension EXT, or is a dotfile's name.
export function looksLikePath(p: usize, start: u32, end: u32, extensions: u64): bool {
  if (end <= start) return false;
  const c = at(p, start);
  if (c == 0x2f || c == 0x7e) return true;
  if (startsWithExact(p, start, end, "$HOME") || startsWithExact(p, start, end, "${HOME}")) return true;
  for (let i = start; i < end; i++) if (at(p, i) == 0x2f) return true;
  return hasExtension(p, start, end, extensions) || isDotfile(p, start, end);
}

// A dotfile's name (".env", ".env.local", ".npmrc", ".gitconfig"): a '.', a lower-case letter,
// then lower-case letters, digits, '.', '_' or '-', at least two bytes after the dot (".NET",
// "...", ".5" are not).
function isDotfile(p: usize, start: u32, end: u32): bool {
  if (end < start + 3 || at(p, start) != 0x2e || at(p, start + 1) - 0x61 >= 26) return false;
  for (let i = start + 2; i < end; i++) {
    const c = at(p, i);
    if (!(c - 0x61 < 26 || isAsciiDigit(c) || c == 0x2e || c == 0x5f || c == 0x2d)) return false;
  }
  return true;
}

const extensionBuf: usize = memory.data(16);

// Whether [start, end) ends in ".EXT" (ASCII case ignored) with EXT a file extension.
function hasExtension(p: usize, start: u32, end: u32, extensions: u64): bool {
  let dot = end;
  while (dot > start && at(p, dot - 1) != 0x2e) dot--;
  if (dot <= start + 1 || dot >= end || end - dot > 16) return false;
  const buf = extensionBuf;
  for (let i = dot; i < end; i++) store<u8>(buf + i - dot, <u8>lowerAscii(at(p, i)));
  return hasWord(extensions, buf, end - dot);
}

// Whether [start, end) is a host name: two or more labels of letters, digits, '-' or '_', the
// last one letters only and no file extension; or an IPv4 address. A ":port" may follow.
export function looksLikeHost(p: usize, start: u32, end: u32, extensions: u64): bool {
  for (let i = start; i < end; i++) {
    if (at(p, i) == 0x3a) {
      for (let k = i + 1; k < end; k++) if (!isAsciiDigit(at(p, k))) return false;
      if (i + 1 == end) return false;
      end = i;
      break;
    }
  }
  let labels: u32 = 0;
  let labelStart = start;
  let digitsOnly = true;
  let lettersOnly = true;
  let numericLabels: u32 = 0;
  for (let i = start; i <= end; i++) {
    if (i == end || at(p, i) == 0x2e) {
      if (i == labelStart) return false; // an empty label
      labels++;
      if (digitsOnly) numericLabels++;
      if (i == end) break;
      labelStart = i + 1;
      digitsOnly = true;
      lettersOnly = true;
      continue;
    }
    const c = at(p, i);
    if (!(isAlnum(c) || c == 0x2d || c == 0x5f)) return false;
    if (!isAsciiDigit(c)) digitsOnly = false;
    if (!isAsciiAlpha(c)) lettersOnly = false;
  }
  if (labels == 4 && numericLabels == 4) return true;
  if (labels < 2 || !lettersOnly || end - labelStart < 2) return false;
  return !hasExtension(p, start, end, extensions);
}

function isNameByte(c: u32): bool {
  return isAlnum(c) || c == 0x5f || c == 0x2d || c == 0x2e || c >= 0x80;
}

// "platform:target" as send_message writes it ("telegram:-1001234567890", "signal:+15551234567"):
// 2 to 20 ASCII letters, a ':', then a target that is not a port or a path.
function isPlatformTarget(p: usize, s: u32, e: u32): bool {
  let i = s;
  while (i < e && isAsciiAlpha(at(p, i))) i++;
  if (i - s < 2 || i - s > 20 || i + 1 >= e || at(p, i) != 0x3a) return false;
  const t = at(p, i + 1);
  return t == 0x2d || t == 0x2b || t == 0x23 || t == 0x40 || isAlnum(t);
}

@inline function item(kind: u32, start: u32, end: u32): u32 {
  itemStart = start;
  itemEnd = end;
  return kind;
}

// What one pass over a word noticed: its first '@' and '/' (-1: none), and whether it holds
// a ':' or a '.' anywhere. Classification skips every test these rule out.
let firstAt: i32 = -1;
let firstSlash: i32 = -1;
let hasColon = false;
let hasDot = false;

// The kind of item word [s, e) names (0: none); the item's range in itemStart/itemEnd.
function classify(p: usize, s: u32, e: u32, extensions: u64): u32 {
  // A possessive names its owner: "alice@corp.com's email", "example.com’s page".
  if (e - s > 3 && (at(p, e - 1) | 0x20) == 0x73) {
    if (at(p, e - 2) == 0x27) e -= 2;
    else if (e - s > 5 && at(p, e - 4) == 0xe2 && at(p, e - 3) == 0x80 && at(p, e - 2) == 0x99) e -= 4;
  }
  if (hasColon && firstSlash >= 0) {
    const u = findUrl(p, e, s);
    if (u >= 0) return item(SUBJ_URL, <u32>u, urlEnd);
  }
  const c = at(p, s);
  if (hasColon && startsWithAscii(p, s, e, "mailto:")) return item(SUBJ_EMAIL, s + 7, e);
  if ((c == 0x40 || c == 0x23) && e > s + 1 && isNameByte(at(p, s + 1))) return item(SUBJ_RECIPIENT, s, e);
  if (hasColon && firstAt < 0 && firstSlash < 0 && isPlatformTarget(p, s, e)) return item(SUBJ_RECIPIENT, s, e);
  if (firstAt > <i32>s && <u32>firstAt + 1 < e && firstSlash < 0) return item(SUBJ_EMAIL, s, e);
  // USER@HOST:PATH, the remote file of scp and rsync ("deploy@backup:/srv/x"), or HOST.DOMAIN:PATH:
  // names its host (a bare WORD:/path is a label, as MEDIA:/path is).
  if (hasColon && firstSlash > <i32>s) {
    const colon = indexOfByte(p, <u32>firstSlash, 0x3a, s);
    const user = firstAt >= <i32>s && firstAt < colon;
    const h = user ? <u32>firstAt + 1 : s;
    if (colon > <i32>h + 1 && isAlnum(at(p, h)) && (user || indexOfByte(p, <u32>colon, 0x2e, h) >= 0)) {
      return item(SUBJ_DOMAIN, h, <u32>colon);
    }
  }
  const maybePath = firstSlash >= 0 || hasDot || c == 0x7e || c == 0x24;
  if (maybePath && looksLikePath(p, s, e, extensions)) {
    // "example.com/docs" names a host as well as a path-looking word.
    if (firstSlash > <i32>s && hasDot && looksLikeHost(p, s, <u32>firstSlash, extensions)) {
      pendingKind = SUBJ_DOMAIN;
      pendingStart = s;
      pendingEnd = <u32>firstSlash;
    }
    return item(SUBJ_PATH, s, e);
  }
  if (hasDot && looksLikeHost(p, s, e, extensions)) return item(SUBJ_DOMAIN, s, e);
  return 0;
}

export function itemsBegin(): void {
  pendingKind = 0;
}

// The byte length of a separator at i (white space or a control byte), or 0.
function separatorAt(p: usize, len: u32, i: u32): u32 {
  const c = at(p, i);
  if (c <= 0x20) return 1;
  if (c < 0x80) return 0;
  const w = pyWhitespace(p, len, i);
  return w > 0 ? w : cjkLen(p, len, i);
}

// The next item named in [p, p+len) at or after `from`: its kind (SUBJ_EMAIL, SUBJ_URL,
// SUBJ_DOMAIN, SUBJ_PATH or SUBJ_RECIPIENT; 0 when there are no more), its raw range in
// itemStart/itemEnd, and where to resume in itemNext.
export function nextItem(p: usize, len: u32, from: u32, extensions: u64): u32 {
  itemIsWordHost = pendingKind != 0;
  if (pendingKind != 0) {
    const kind = pendingKind;
    pendingKind = 0;
    itemNext = from;
    return item(kind, pendingStart, pendingEnd);
  }
  let i = from;
  while (i < len) {
    const w = separatorAt(p, len, i);
    if (w > 0) { i += w; continue; }
    firstAt = -1;
    firstSlash = -1;
    hasColon = false;
    hasDot = false;
    let marked = false; // holds a byte some item needs: @ / : . # ~ $
    let e = i;
    while (e < len) {
      const c = at(p, e);
      if ((c | 0x20) - 0x61 < 26) { e++; continue; } // a letter: the common case, no mark
      if (c <= 0x20 || (c >= 0x80 && (pyWhitespace(p, len, e) > 0 || cjkLen(p, len, e) > 0))) break;
      if (c <= 0x40 && c >= 0x23) {
        if (c == 0x40) { if (firstAt < 0) firstAt = <i32>e; }
        else if (c == 0x2f) { if (firstSlash < 0) firstSlash = <i32>e; }
        else if (c == 0x3a) hasColon = true;
        else if (c == 0x2e) hasDot = true;
        marked = marked || c == 0x40 || c == 0x2f || c == 0x3a || c == 0x2e || c == 0x23 || c == 0x24;
      } else if (c == 0x7e) {
        marked = true;
      }
      e++;
    }
    itemNext = e;
    if (!marked) { // a plain word names nothing
      i = e;
      continue;
    }
    // Strip wrapping punctuation and quote marks (neither is '@' or '/').
    let s = i;
    while (s < e) {
      const q = quoteMarkLen(p, e, s);
      if (q > 0) { s += q; continue; }
      if (isLeadingJunk(at(p, s))) { s++; continue; }
      break;
    }
    let t = e;
    while (t > s) {
      const q = quoteMarkEndingAt(p, s, t);
      if (q > 0) { t -= q; continue; }
      if (isTrailingJunk(at(p, t - 1))) { t--; continue; }
      break;
    }
    if (t > s) {
      const kind = classify(p, s, t, extensions);
      if (kind != 0) return kind;
    }
    i = e;
  }
  itemNext = len;
  return 0;
}

// ---- prohibitions ----

// A word: ASCII letters and digits, non-ASCII letters, and an apostrophe (' or ’) between two
// of those ("don't", "don’t"). Everything else separates words.
function wordByteLen(p: usize, len: u32, i: u32): u32 {
  const c = at(p, i);
  if (c < 0x80) return isAlnum(c) ? 1 : 0;
  if (quoteMarkLen(p, len, i) > 0 || pyWhitespace(p, len, i) > 0) return 0;
  if (c == 0xe2 && i + 1 < len && at(p, i + 1) == 0x80) return 0; // other general punctuation
  return 1;
}

function apostropheLen(p: usize, len: u32, i: u32): u32 {
  if (at(p, i) == 0x27) return 1;
  if (i + 2 < len && at(p, i) == 0xe2 && at(p, i + 1) == 0x80 && at(p, i + 2) == 0x99) return 3;
  return 0;
}

// Punctuation that ends a clause (. ; : ! ? , and …) unless it stands inside a token, between
// two word characters ("example.com", "3,000").
function clauseMarkLen(p: usize, len: u32, i: u32): u32 {
  const c = at(p, i);
  if (c == 0x2e || c == 0x3b || c == 0x3a || c == 0x21 || c == 0x3f || c == 0x2c) return 1;
  if (c == 0xe2 && i + 2 < len && at(p, i + 1) == 0x80 && at(p, i + 2) == 0xa6) return 3;
  return 0;
}

// Word table: ptr, len, clause number. Found verb uses: verb value, word ptr, word len,
// prohibits (1) or grants (0).
let words: usize = 0;
let wordCount: u32 = 0;
let found: usize = 0;
let foundCount: u32 = 0;

export function verbUseValue(k: u32): u32 { return load<u32>(found + <usize>k * 16); }
export function verbUseWord(k: u32): usize { return <usize>load<u32>(found + <usize>k * 16 + 4); }
export function verbUseWordLen(k: u32): u32 { return load<u32>(found + <usize>k * 16 + 8); }
export function verbUseProhibits(k: u32): bool { return load<u32>(found + <usize>k * 16 + 12) != 0; }

@inline function wordPtr(k: u32): usize { return <usize>load<u32>(words + <usize>k * 12); }
@inline function wordLen(k: u32): u32 { return load<u32>(words + <usize>k * 12 + 4); }
@inline function wordClause(k: u32): u32 { return load<u32>(words + <usize>k * 12 + 8); }

// Splits [p, p+len) into lower-cased words (’ read as ') with clause numbers; false when out
// of memory.
function tokenize(p: usize, len: u32): bool {
  const text = scratchAlloc(max<usize>(<usize>len, 1));
  words = scratchAlloc((<usize>(len / 2 + 1)) * 12); // a word and its separator take 2 bytes
  if (text == 0 || words == 0) return false;
  wordCount = 0;
  let clause: u32 = 0;
  let out: u32 = 0;
  let i: u32 = 0;
  let prevWord = false; // the byte before i belongs to a word
  while (i < len) {
    const first = at(p, i);
    if (first == 0x20) { // a space: the common separator, no clause mark
      i++;
      prevWord = false;
      continue;
    }
    if (first < 0x80 ? !isAlnum(first) : wordByteLen(p, len, i) == 0) {
      const m = clauseMarkLen(p, len, i);
      if (m > 0) {
        const inside = prevWord && i + m < len && wordByteLen(p, len, i + m) > 0;
        if (!inside) clause++;
        i += m;
      } else {
        i++;
      }
      prevWord = false;
      continue;
    }
    const start = out;
    while (i < len) {
      const c = at(p, i);
      if (c - 0x61 < 26 || c - 0x30 < 10) { // the common case first: a lower-case letter or a digit
        store<u8>(text + out, <u8>c);
        out++;
        i++;
        continue;
      }
      if (c < 0x80 ? isAlnum(c) : wordByteLen(p, len, i) > 0) {
        store<u8>(text + out, <u8>lowerAscii(c));
        out++;
        i++;
        continue;
      }
      const a = apostropheLen(p, len, i);
      if (a > 0 && i + a < len && wordByteLen(p, len, i + a) > 0) {
        store<u8>(text + out, 0x27);
        out++;
        i += a;
        continue;
      }
      break;
    }
    prevWord = true;
    const n = out - start;
    if (n == 3 && load<u8>(text + start) == 0x62 && load<u8>(text + start + 1) == 0x75 && load<u8>(text + start + 2) == 0x74) {
      clause++; // "but" ends a clause
      continue;
    }
    const rec = words + <usize>wordCount * 12;
    store<u32>(rec, <u32>(text + start));
    store<u32>(rec + 4, n);
    store<u32>(rec + 8, clause);
    wordCount++;
  }
  return true;
}

// The verbs [p, p+len) uses (§7): one with a negation among the three words before it, or a
// nothing-word among the two after it, in its clause, prohibits; any other grants. A negation
// with a `cancels` word between it and the verb ("do not forget to invite") prohibits nothing.
// Returns how many (each in verbUseValue/Word/WordLen/Prohibits), or -1 when out of memory.
export function findVerbUses(p: usize, len: u32, negations: u64, nothing: u64, verbs: u64, cancels: u64): i32 {
  foundCount = 0;
  if (!tokenize(p, len)) return -1;
  found = scratchAlloc((<usize>wordCount + 1) * 16);
  if (found == 0) return -1;
  for (let k: u32 = 0; k < wordCount; k++) {
    const value = wordValue(verbs, wordPtr(k), wordLen(k));
    if (value < 0) continue;
    const clause = wordClause(k);
    let hit = false;
    let cancelled = false; // a cancelling word lies between the verb and the words further back
    for (let d: u32 = 1; d <= 3 && d <= k && !hit; d++) {
      const j = k - d;
      if (wordClause(j) != clause) break;
      hit = !cancelled && hasWord(negations, wordPtr(j), wordLen(j));
      cancelled = cancelled || hasWord(cancels, wordPtr(j), wordLen(j));
    }
    for (let d: u32 = 1; d <= 2 && k + d < wordCount && !hit; d++) {
      const j = k + d;
      hit = wordClause(j) == clause && hasWord(nothing, wordPtr(j), wordLen(j));
    }
    const rec = found + <usize>foundCount * 16;
    store<u32>(rec, <u32>value);
    store<u32>(rec + 4, <u32>wordPtr(k));
    store<u32>(rec + 8, wordLen(k));
    store<u32>(rec + 12, hit ? 1 : 0);
    foundCount++;
  }
  return <i32>foundCount;
}
