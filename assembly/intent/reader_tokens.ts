// The message as tokens: words (looked up in the grammar, scripts without spaces segmented by
// it, phrases joined), punctuation, and values (the items and names found in the message, bound
// in order); quoted material stands as a line break.
import { G_DETERMINER, G_PHRASE_HEAD, G_SUBJECT, G_VERB, G_NEGATION, G_EXCLUDE, G_ONLY, G_INSTEAD } from "../../bytecode/format";
import { scratchAlloc } from "../abi/mem";
import { isAsciiAlpha, isAsciiDigit, foldPair } from "../abi/bytes";
import { intentExtensionSet } from "../policy/decode";
import { policyWords } from "../readers/wordset";
import { itemsBegin, nextItem, itemStart, itemEnd, itemNext, itemIsWordHost, cjkLen } from "../readers/scan";
import { nextName, nameStart, nameEnd } from "./names";
import { pyWhitespace } from "../readers/v4a";
import {
  NAME_KIND, at, BV, bound, boundCount, boundStart, boundEnd, msg, msgLen, quoted, T_WORD, T_THING, T_PUNCT, P_COMMA,
  P_COLON, P_SEMI, P_STOP, P_QUESTION, P_LINE, TK, tokCount, tk, tA, tB, tG, tEnd, tCjk, isWord, isThing, wordHas, pushToken,
  pushBound, verbOf, lookup, lookupSecond, tStart,
} from "./reader_state";

let text: usize = 0; // lower-cased words
let textUsed: u32 = 0;

function wordByteLen(i: u32): u32 {
  const c = at(msg, i);
  if (c < 0x80) return isAsciiAlpha(c) || isAsciiDigit(c) ? 1 : 0;
  if (pyWhitespace(msg, msgLen, i) > 0 || cjkLen(msg, msgLen, i) > 0) return 0;
  if (c == 0xe2 && i + 1 < msgLen && at(msg, i + 1) == 0x80) return 0; // general punctuation
  if (c == 0xc2 && i + 1 < msgLen && at(msg, i + 1) < 0xc0) return 0;  // ¡ ¿ « » and the like
  return 1;
}

function apostropheLen(i: u32): u32 {
  if (at(msg, i) == 0x27) return 1;
  if (i + 2 < msgLen && at(msg, i) == 0xe2 && at(msg, i + 1) == 0x80 && at(msg, i + 2) == 0x99) return 3;
  return 0;
}

// Punctuation: its code (0: none) and length in punctLen.
let punctLen: u32 = 0;
function punctAt(i: u32): u32 {
  const c = at(msg, i);
  punctLen = 1;
  if (c == 0x2c) return P_COMMA;
  if (c == 0x3a) return P_COLON;
  if (c == 0x3b) return P_SEMI;
  if (c == 0x2e || c == 0x21) return P_STOP;
  if (c == 0x3f) return P_QUESTION;
  if (c == 0x0a) return P_LINE;
  if (c == 0xe2 && i + 2 < msgLen && at(msg, i + 1) == 0x80 && at(msg, i + 2) == 0xa6) { punctLen = 3; return P_STOP; } // …
  if (c == 0xe3 && i + 2 < msgLen && at(msg, i + 1) == 0x80) {
    const d = at(msg, i + 2);
    punctLen = 3;
    if (d == 0x82) return P_STOP;  // 。
    if (d == 0x81) return P_COMMA; // 、
  }
  // A dash between spaces parts clauses ("I can't make it — let priya know").
  if (c == 0xe2 && i > 0 && i + 3 < msgLen && at(msg, i + 1) == 0x80 && (at(msg, i + 2) == 0x93 || at(msg, i + 2) == 0x94) &&
    at(msg, i - 1) == 0x20 && at(msg, i + 3) == 0x20) { punctLen = 3; return P_COMMA; }
  if (c == 0xef && i + 2 < msgLen && at(msg, i + 1) == 0xbc) {
    const d = at(msg, i + 2);
    punctLen = 3;
    if (d == 0x8c) return P_COMMA;    // ，
    if (d == 0x9a) return P_COLON;    // ：
    if (d == 0x9b) return P_SEMI;     // ；
    if (d == 0x81) return P_STOP;     // ！
    if (d == 0x9f) return P_QUESTION; // ？
  }
  punctLen = 0;
  return 0;
}

// Copies word [s, e) lower-cased (ASCII, Latin-1 and Cyrillic capitals, §7.3) into the text buffer.
function lowerWord(s: u32, e: u32): u32 {
  const start = textUsed;
  let i = s;
  while (i < e) {
    const c = at(msg, i);
    if (c - 0x41 < 26) { store<u8>(text + textUsed, <u8>(c + 0x20)); textUsed++; i++; continue; }
    if (c - 0xc0 < 0x20 && i + 1 < e) { // a two-byte character's capital (Latin-1, Cyrillic)
      const f = foldPair(c, at(msg, i + 1));
      store<u8>(text + textUsed, <u8>(f >> 8));
      store<u8>(text + textUsed + 1, <u8>f);
      textUsed += 2;
      i += 2;
      continue;
    }
    if (apostropheLen(i) == 3) { store<u8>(text + textUsed, 0x27); textUsed++; i += 3; continue; }
    store<u8>(text + textUsed, <u8>c);
    textUsed++;
    i++;
  }
  return start;
}

function pushWord(s: u32, e: u32): bool {
  const p = lowerWord(s, e);
  const n = textUsed - p;
  let g = lookup(text + p, n);
  let verb = verbOf;
  // "n'envoie", "l'instant", "what's": a word the grammar does not know is read as its parts.
  if (g == 0) {
    for (let k: u32 = 1; k + 1 < n; k++) {
      if (load<u8>(text + p + k) != 0x27) continue;
      const g1 = lookup(text + p, k);
      if (!pushToken(T_WORD, <u32>(text + p), k, g1, s, s + k, false)) return false;
      store<u32>(tk(tokCount - 1) + 24, verbOf);
      const g2 = lookup(text + p + k + 1, n - k - 1);
      if (!pushToken(T_WORD, <u32>(text + p + k + 1), n - k - 1, g2, s + k + 1, e, false)) return false;
      store<u32>(tk(tokCount - 1) + 24, verbOf);
      return true;
    }
  }
  if (!pushToken(T_WORD, <u32>(text + p), n, g, s, e, false)) return false;
  store<u32>(tk(tokCount - 1) + 24, verb);
  return true;
}

// Whether a determiner stands before token k with at most two words the grammar does not know
// or values between ("the email", "the hiring update", "a 30-minute call").
function afterDeterminer(k: u32): bool {
  for (let j = k; j > 0 && k - j <= 2;) {
    j--;
    if (wordHas(j, G_DETERMINER)) return true;
    if (!(isThing(j) || (isWord(j) && tG(j) == 0 && !tCjk(j)))) return false;
  }
  return false;
}

// Whether token j is the "s" of a possessive ("Bruno's", "this week's"): it determines the noun
// after it as an article does. Not after a word the grammar knows ("let's", "it's").
export function possessive(j: u32): bool {
  if (j < 1 || !isWord(j) || tB(j) != 1 || load<u8>(<usize>tA(j)) != 0x73) return false;
  const gap = tStart(j) - tEnd(j - 1);
  if (gap != 1 && gap != 3) return false;
  return !isWord(j - 1) || tG(j - 1) == 0;
}

// A run of characters of a script without spaces: the grammar's words found in it, longest
// first at each character (at most CJK_MAX characters), the rest skipped.
const CJK_MAX: u32 = 5;
function pushCjkRun(s: u32, e: u32): bool {
  let i = s;
  while (i < e) {
    let found: u32 = 0;
    let g: u32 = 0;
    let verb: u32 = 0;
    for (let n = CJK_MAX; n >= 1 && found == 0; n--) {
      const bytes = n * 3;
      if (i + bytes > e) continue;
      const v = lookup(msg + i, bytes);
      if (v != 0) { found = bytes; g = v; verb = verbOf; }
      // A word only the second table holds ("稍后") is a token too, of no first-table category.
      else if (lookupSecond(msg + i, bytes) != 0) found = bytes;
    }
    if (found == 0) { i += 3; continue; }
    if (!pushToken(T_WORD, <u32>(msg + i), found, g, i, i + found, true)) return false;
    store<u32>(tk(tokCount - 1) + 24, verb);
    i += found;
  }
  return true;
}

// The message's values (items and names) in order, each with its raw range, as bound entries.
export function findValues(): bool {
  const extensions = policyWords(intentExtensionSet());
  itemsBegin();
  let from: u32 = 0;
  while (true) {
    const kind = nextItem(msg, msgLen, from, extensions);
    if (kind == 0) break;
    from = itemNext;
    if (!pushBound(kind, itemStart, itemEnd, itemIsWordHost)) return false;
  }
  // Names, kept where no item lies, then merged with the items by position. Both lists come in
  // order (the items once sorted: a word's host and page may come out of it), so the items that
  // start before a name ends are a prefix, and a name lies on an item when the furthest end of
  // that prefix passes its start: one walk, not a scan of every item per name.
  if (!sortBound()) return false;
  const items = boundCount;
  let before: u32 = 0;
  let reach: u32 = 0;
  let atName: u32 = 0;
  while (nextName(msg, msgLen, atName)) {
    atName = nameEnd;
    while (before < items && boundStart(before) < nameEnd) reach = max(reach, boundEnd(before++));
    if (grammarWord(nameStart, nameEnd)) continue;
    if (reach <= nameStart && !pushBound(NAME_KIND, nameStart, nameEnd, false)) return false;
  }
  return mergeNames(items);
}

// Whether capitalized word [s, e) is a word of the grammar, not a name: a subject ("I" in "Ok, I
// want to return it"), or a word that turns a clause around written in capitals for emphasis
// ("NOT to sales@…", "NICHT an tom@…", "PAS à paul@…", "ONLY #eng"): as a name it bound as a
// value and the clause lost its negation. Neither binds nor hides the words around it.
const EMPHASIS_MAX: u32 = 16;
function grammarWord(s: u32, e: u32): bool {
  if (e - s > EMPHASIS_MAX) return false;
  const low = scratchAlloc(EMPHASIS_MAX);
  if (low == 0) return false;
  let capitals = e - s >= 2; // every letter a capital
  let i = s;
  while (i < e) {
    const c = at(msg, i);
    if (c - 0x61 < 26) capitals = false;
    if (c - 0xc0 < 0x20 && i + 1 < e) { // a two-byte letter (Latin-1, Cyrillic): folded, or lower already
      const d = at(msg, i + 1);
      const f = foldPair(c, d);
      if (f == (c << 8 | d)) capitals = false;
      store<u16>(low + i - s, <u16>(((f & 0xff) << 8) | (f >> 8)));
      i += 2;
      continue;
    }
    store<u8>(low + i - s, <u8>(c - 0x41 < 26 ? c + 0x20 : c));
    i++;
  }
  const g = lookup(low, e - s);
  return (g & G_SUBJECT) != 0 || (capitals && (g & (G_NEGATION | G_EXCLUDE | G_ONLY | G_INSTEAD)) != 0);
}

// Insertion sort by start: stable, and linear on a list in order but for neighbours. False when
// out of memory.
function sortBound(): bool {
  const tmp = scratchAlloc(BV);
  if (tmp == 0) return false;
  for (let k: u32 = 1; k < boundCount; k++) {
    let j = k;
    while (j > 0 && boundStart(j - 1) > boundStart(j)) {
      const a = bound + <usize>(j - 1) * BV, b = bound + <usize>j * BV;
      memory.copy(tmp, a, BV);
      memory.copy(a, b, BV);
      memory.copy(b, tmp, BV);
      j--;
    }
  }
  return true;
}

// Merges the names after the first `items` entries (each list in order) into one list by start,
// from the back; at the same start the item stays first. False when out of memory.
function mergeNames(items: u32): bool {
  const names = boundCount - items;
  if (names == 0 || items == 0) return true;
  const copy = scratchAlloc(<usize>names * BV);
  if (copy == 0) return false;
  memory.copy(copy, bound + <usize>items * BV, <usize>names * BV);
  let i = <i64>items - 1, j = <i64>names - 1, w = <i64>boundCount - 1;
  while (j >= 0) {
    const name = copy + <usize>j * BV;
    if (i >= 0 && boundStart(<u32>i) > load<u32>(name + 4)) {
      memory.copy(bound + <usize>w * BV, bound + <usize>i * BV, BV);
      i--;
    } else {
      memory.copy(bound + <usize>w * BV, name, BV);
      j--;
    }
    w--;
  }
  return true;
}

export function tokenize(): bool {
  text = scratchAlloc(<usize>msgLen * 2 + 8);
  if (text == 0) return false;
  textUsed = 0;
  let next: u32 = 0; // the next bound value
  let i: u32 = 0;
  let wasQuoted = false;
  while (i < msgLen) {
    if (load<u8>(quoted + i) != 0) {
      if (!wasQuoted && !pushToken(T_PUNCT, P_LINE, 0, 0, i, i, false)) return false;
      wasQuoted = true;
      i++;
      continue;
    }
    wasQuoted = false;
    while (next < boundCount && boundStart(next) < i && load<u8>(quoted + boundStart(next)) != 0) next++; // passed in a quote
    if (next < boundCount && i >= boundStart(next)) {
      // A value, with every value that starts at the same place (a host and its page).
      const first = next;
      let end = boundEnd(next);
      while (next < boundCount && boundStart(next) <= i) {
        if (boundEnd(next) > end) end = boundEnd(next);
        next++;
      }
      if (!pushToken(T_THING, first, next - first, 0, boundStart(first), end, false)) return false;
      i = max(end, i + 1);
      continue;
    }
    const c = at(msg, i);
    if (c == 0x20) { i++; continue; }
    const cj = cjkLen(msg, msgLen, i);
    const pc = punctAt(i);
    if (pc != 0) {
      // Punctuation between two word characters is part of a token ("example.com", "3,000"); a
      // full-width mark never is ("送って。eve@x").
      const inside = punctLen == 1 && i > 0 && wordByteLen(i - 1) > 0 && i + punctLen < msgLen && wordByteLen(i + punctLen) > 0 && pc != P_LINE;
      if (!inside && !pushToken(T_PUNCT, pc, 0, 0, i, i + punctLen, false)) return false;
      i += punctLen;
      continue;
    }
    if (cj > 0) {
      let e = i;
      while (e < msgLen && cjkLen(msg, msgLen, e) > 0 && punctAt(e) == 0 && load<u8>(quoted + e) == 0 &&
        (next >= boundCount || e < boundStart(next))) e += 3;
      if (!pushCjkRun(i, e)) return false;
      i = e;
      continue;
    }
    // '+' before digits belongs to the word: a phone number.
    const plus = c == 0x2b && i + 1 < msgLen && isAsciiDigit(at(msg, i + 1));
    if (!plus && wordByteLen(i) == 0) { i += c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1; continue; }
    let e = plus ? i + 1 : i;
    while (e < msgLen && load<u8>(quoted + e) == 0 && (next >= boundCount || e < boundStart(next))) {
      if (wordByteLen(e) > 0) { e++; continue; }
      const a = apostropheLen(e);
      if (a > 0 && e + a < msgLen && wordByteLen(e + a) > 0) { e += a; continue; }
      // A hyphen between letters joins a compound ("off-by-one", "e-mail").
      if (at(msg, e) == 0x2d && e > i && isAsciiAlpha(at(msg, e - 1)) && e + 1 < msgLen && isAsciiAlpha(at(msg, e + 1))) { e++; continue; }
      break;
    }
    if (!pushWord(i, e)) return false;
    i = e;
  }
  return joinPhrases();
}

// Phrases of the grammar ("in case", "never mind"): a head word and the next words, joined with
// no space, looked up whole; the longest wins and stands for its words.
function joinPhrases(): bool {
  let out: u32 = 0;
  for (let k: u32 = 0; k < tokCount; k++) {
    let take: u32 = 1;
    if (wordHas(k, G_PHRASE_HEAD) && !tCjk(k)) {
      for (let n: u32 = 4; n >= 2 && take == 1; n--) {
        if (k + n > tokCount) continue;
        let contiguous = true;
        for (let j = k + 1; j < k + n && contiguous; j++) contiguous = isWord(j) && !tCjk(j) && tA(j) == tA(j - 1) + tB(j - 1);
        if (!contiguous) continue;
        const len = tA(k + n - 1) + tB(k + n - 1) - tA(k);
        const g = lookup(<usize>tA(k), len);
        if (g != 0 && (g & ~G_PHRASE_HEAD) != 0) {
          take = n;
          store<u32>(tk(k) + 8, len);
          store<u32>(tk(k) + 12, g);
          store<u32>(tk(k) + 20, tEnd(k + n - 1));
          store<u32>(tk(k) + 24, verbOf);
        }
      }
    }
    if (out != k) memory.copy(tk(out), tk(k), TK);
    out++;
    k += take - 1;
  }
  tokCount = out;
  // A verb word after a determiner (and at most two words the grammar does not know, or values)
  // is a noun: "the email", "an email to bob", "the hiring update", "a 30-minute call"; so is one
  // right after such a noun, the
  // head of a compound ("the refund mail", "a status update post").
  let prevNoun = false;
  for (let k: u32 = 1; k < tokCount; k++) {
    const after = prevNoun;
    prevNoun = false;
    if (!wordHas(k, G_VERB) || tCjk(k)) continue;
    const noun = afterDeterminer(k) ||
      (after && tStart(k) == tEnd(k - 1) + 1) || possessive(k - 1) ||
      (k > 1 && isWord(k - 1) && tG(k - 1) == 0 && possessive(k - 2));
    if (noun) { store<u32>(tk(k) + 12, tG(k) & ~G_VERB); prevNoun = true; }
  }
  return true;
}
