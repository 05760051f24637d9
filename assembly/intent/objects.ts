// The objects and sums a user's message names (docs/bytecode.md §7.4): what an action may be
// done to, and how much money it may move. The binder calls bindObjects once per message; each
// item goes to the collector as an OBJECT item (in the normal form of §6.8) or an AMOUNT item
// (§6.10):
//   - a quoted phrase ("the 'Blue Room'", “Q3 plan”), at most OBJECT_MAX bytes;
//   - a proper name: a run of capitalized words, with of/de/la/van/&… between them ("Hotel
//     Lumen", "Bank of America"); at a sentence's start also without its first word, and
//     without a leading The/A/An; a single capitalized word only where it does not open a sentence;
//   - an IBAN (checksum-valid, with or without its spaces), without spaces;
//   - an id: a word with a digit and a letter, '-' or '_' ("INV-2024-17", "acct_1A2b"), "#123"
//     as 123, an owner/name pair (and each side), the path segments of a URL;
//   - a number ("12", "1,250", "two") as itself;
//   - a date ("June 3", "3 June 2025", "2025-06-03") as YYYY-MM-DD, or --MM-DD without a year;
//   - a sum: a number with a currency symbol, code or word beside it ("€200", "200 EUR",
//     "USD 1,250.50", "20 dollars"), and a bare number as a sum of no currency.
import { SUBJ_OBJECT, SUBJ_AMOUNT } from "../../bytecode/format";
import { scratchAlloc } from "../abi/mem";
import { isAsciiAlpha, isAsciiDigit, isSpace, lowerAscii } from "../abi/bytes";
import { span } from "../readers/normalize";
import { listWords, wordValue } from "../readers/wordset";
import { pyWhitespace } from "../readers/v4a";
import { findUrl, urlEnd, quoteMarkLen } from "../readers/scan";
import { Text, textPtr, textLen } from "../abi/out";
import { textNumber, textNumberEnd, jsonDecimal, currencySymbolAt, symbolLen, currencyOf, amountText } from "../readers/amount";

export const OBJECT_MAX: u32 = 128; // a longer quoted text is prose, not a name
// Objects are read in the first OBJECTS_READ bytes of a message (cut at white space): a message
// that long is a pasted document more than a request, and an object named only past it is not
// granted (asked about), never the reverse. It bounds the reading's cost.
export const OBJECTS_READ: u32 = 16384;

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// ---- the normal form of an object (§6.8) ----

// [p, p+len) trimmed, white space runs made one space, ASCII lower-cased, and an IBAN without
// its spaces: in scratch (0: empty, or out of memory).
export function objectNormal(p: usize, len: u32): u64 {
  let s: u32 = 0;
  let t = len;
  while (s < t && isSpace(at(p, s))) s++;
  while (t > s && isSpace(at(p, t - 1))) t--;
  if (t == s) return 0;
  const out = scratchAlloc(<usize>(t - s));
  if (out == 0) return 0;
  let n: u32 = 0;
  let space = false;
  for (let i = s; i < t; i++) {
    const c = at(p, i);
    if (isSpace(c)) { space = true; continue; }
    if (space) { store<u8>(out + n, 0x20); n++; space = false; }
    store<u8>(out + n, <u8>lowerAscii(c));
    n++;
  }
  if (isIban(out, n)) {
    let k: u32 = 0;
    for (let i: u32 = 0; i < n; i++) if (at(out, i) != 0x20) { store<u8>(out + k, at(out, i)); k++; }
    n = k;
  }
  return span(out, n);
}

// Whether [p, p+len) (lower-case, single spaces) is an IBAN: two letters, two digits, then
// letters and digits, 15 to 34 of them in all, optionally in groups of four split by spaces,
// whose ISO 7064 MOD 97-10 checksum holds.
function isIban(p: usize, len: u32): bool {
  if (len < 15 || len > 42) return false;
  let n: u32 = 0;
  let group: u32 = 0;
  for (let i: u32 = 0; i < len; i++) {
    const c = at(p, i);
    if (c == 0x20) {
      if (group != 4) return false;
      group = 0;
      continue;
    }
    if (!(isAsciiDigit(c) || c - 0x61 < 26)) return false;
    const letter = !isAsciiDigit(c);
    if ((n < 2 && !letter) || (n >= 2 && n < 4 && letter)) return false;
    n++;
    group++;
  }
  if (n < 15 || n > 34) return false;
  // The first four characters move to the end; letters count as 10..35.
  let r: u32 = 0;
  for (let pass: u32 = 0; pass < 2; pass++) {
    let k: u32 = 0; // the character's index, spaces not counted
    for (let i: u32 = 0; i < len; i++) {
      const c = at(p, i);
      if (c == 0x20) continue;
      if ((pass == 0) != (k++ < 4)) r = isAsciiDigit(c) ? (r * 10 + c - 0x30) % 97 : (r * 100 + c - 0x61 + 10) % 97;
    }
  }
  return r == 1;
}

// ---- words of the message ----

// Word table: start, end (without wrapping punctuation), flags.
const W_CAPITAL: u32 = 1;   // starts with an upper-case letter
const W_OPENS: u32 = 2;     // opens a sentence
const W_BREAK_AFTER: u32 = 4; // punctuation or a quote mark ends it: no name runs on past it
const W_BREAK_BEFORE: u32 = 8; // an opening quote or bracket starts it
const W_USED: u32 = 16;     // read as part of a date or a sum
const W_DIGIT: u32 = 32;    // holds a digit
const W_MARK: u32 = 64;     // holds one of # / : @ _ - (an id, a path, a URL)
const W_NEWLINE: u32 = 128; // a line break comes before it
// The quote mark that opens a phrase at a word's start (bits 8..10) or closes one at its end
// (bits 11..13), innermost: 1 ', 2 ", 3 `, 4 ‘ ’, 5 “ ”, 6 « ».
const OPEN_SHIFT: u32 = 8;
const CLOSE_SHIFT: u32 = 11;
const WORD: usize = 12;
let words: usize = 0;
let count: u32 = 0;

@inline function wStart(k: u32): u32 { return load<u32>(words + <usize>k * WORD); }
@inline function wEnd(k: u32): u32 { return load<u32>(words + <usize>k * WORD + 4); }
@inline function wFlags(k: u32): u32 { return load<u32>(words + <usize>k * WORD + 8); }
@inline function wMark(k: u32, f: u32): void { store<u32>(words + <usize>k * WORD + 8, wFlags(k) | f); }
@inline function wLen(k: u32): u32 { return wEnd(k) - wStart(k); }

function isOpening(c: u32): bool {
  return c == 0x28 || c == 0x5b || c == 0x7b || c == 0x3c || c == 0x22 || c == 0x27 || c == 0x60 || c == 0x2a;
}

function isClosing(c: u32): bool {
  return c == 0x29 || c == 0x5d || c == 0x7d || c == 0x3e || c == 0x22 || c == 0x27 || c == 0x60 || c == 0x2a ||
    c == 0x2e || c == 0x2c || c == 0x3b || c == 0x3a || c == 0x21 || c == 0x3f;
}

// An upper-case letter: ASCII, or Latin-1's À..Þ (but ×).
function capitalAt(p: usize, len: u32, i: u32): bool {
  const c = at(p, i);
  if (c - 0x41 < 26) return true;
  return c == 0xc3 && i + 1 < len && at(p, i + 1) >= 0x80 && at(p, i + 1) <= 0x9e && at(p, i + 1) != 0x97;
}

// Per ASCII byte, what a word learns of it: 0x80 white space (and controls), W_DIGIT, W_MARK for
// # / : @ _ -, else 0.
const ASCII_CLASS: usize = memory.data<u8>([
  0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,
  0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,0x80,
  0x80,0,0,64,0,0,0,0,0,0,0,0,0,64,0,64,      // space ! " # $ % & ' ( ) * + , - . /
  32,32,32,32,32,32,32,32,32,32,64,0,0,0,0,0,  // 0-9 : ; < = > ?
  64,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,            // @ A-O
  0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,64,            // P-Z [ \ ] ^ _
  0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
  0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
]);

// The kind of the quote mark at i (of q bytes) as it opens (opening) or closes a phrase; 0 none.
function quoteKind(p: usize, i: u32, q: u32, opening: bool): u32 {
  const c = at(p, i);
  if (q == 1) return c == 0x27 ? 1 : c == 0x22 ? 2 : c == 0x60 ? 3 : 0;
  const d = at(p, i + q - 1);
  if (q == 2) return (opening ? d == 0xab : d == 0xbb) ? 6 : 0; // « »
  if (opening) return d == 0x98 ? 4 : d == 0x9c ? 5 : 0; // ‘ “
  return d == 0x99 ? 4 : d == 0x9d ? 5 : 0;            // ’ ”
}

// Splits [p, p+len) into words at white space, without the punctuation and quote marks that
// wrap them; false when out of memory.
function splitWords(p: usize, len: u32): bool {
  words = scratchAlloc((<usize>(len / 2 + 1)) * WORD);
  if (words == 0) return false;
  count = 0;
  let i: u32 = 0;
  let sentence = true; // the next word opens a sentence
  let newline = false;
  while (i < len) {
    const w = at(p, i) <= 0x20 ? 1 : at(p, i) < 0x80 ? 0 : pyWhitespace(p, len, i);
    if (w > 0) {
      if (at(p, i) == 0x0a) { sentence = true; newline = true; }
      i += w;
      continue;
    }
    let e = i;
    let flags: u32 = newline ? W_NEWLINE : 0;
    newline = false;
    while (e < len) {
      const c = at(p, e);
      if (c < 0x80) { // ASCII: its class says white space, a digit, an id's mark, or nothing
        const k = <u32>load<u8>(ASCII_CLASS + c);
        if (k == 0x80) break;
        flags |= k;
        e++;
        continue;
      }
      if (pyWhitespace(p, len, e) > 0) break;
      e++;
    }
    let s = i, t = e;
    // The common case, a word with letters or digits at both ends, has nothing to strip.
    const plain = isAsciiAlpha(at(p, s)) || isAsciiDigit(at(p, s));
    while (!plain && s < t) {
      let q = quoteMarkLen(p, t, s);
      if (q == 0 && isOpening(at(p, s))) q = 1;
      if (q == 0) break;
      const kind = quoteKind(p, s, q, true);
      if (kind != 0) flags = (flags & ~(7 << OPEN_SHIFT)) | (kind << OPEN_SHIFT);
      flags |= W_BREAK_BEFORE;
      s += q;
    }
    let endsSentence = false;
    while (t > s && !(isAsciiAlpha(at(p, t - 1)) || isAsciiDigit(at(p, t - 1)))) {
      let q: u32 = t >= s + 3 && quoteMarkLen(p, t, t - 3) == 3 ? 3 : t >= s + 2 && quoteMarkLen(p, t, t - 2) == 2 ? 2 : 0;
      if (q == 0) {
        const c = at(p, t - 1);
        if (!isClosing(c)) break;
        if (c == 0x2e || c == 0x21 || c == 0x3f || c == 0x3a) endsSentence = true;
        q = 1;
      }
      const kind = quoteKind(p, t - q, q, false);
      if (kind != 0) flags = (flags & ~(7 << CLOSE_SHIFT)) | (kind << CLOSE_SHIFT);
      flags |= W_BREAK_AFTER;
      t -= q;
    }
    if (t > s) {
      const c0 = at(p, s);
      if ((c0 - 0x41 < 26 || c0 == 0xc3) && capitalAt(p, t, s)) flags |= W_CAPITAL;
      if (sentence) flags |= W_OPENS;
      const rec = words + <usize>count * WORD;
      store<u32>(rec, s);
      store<u32>(rec + 4, t);
      store<u32>(rec + 8, flags);
      count++;
      // A list number ("2.") opens the sentence after it.
      sentence = endsSentence;
    } else if (endsSentence) {
      sentence = true;
    }
    i = e;
  }
  return true;
}

// ---- small word lists (newline-separated; a word's line is its value) ----
const CONNECTORS: Text = "of\nde\ndu\ndes\nla\nle\ndel\nder\nvan\nvon\ndi\nda\n&";
const ARTICLES: Text = "the\na\nan";
const MONTHS: Text = "january\nfebruary\nmarch\napril\nmay\njune\njuly\naugust\nseptember\noctober\nnovember\ndecember";
const CURRENCY_WORDS: Text = "euro\neuros\ndollar\ndollars\npound\npounds\nyen";
const CURRENCY_CODES: usize = memory.data<u8>([0x45, 0x55, 0x52, 0x55, 0x53, 0x44, 0x47, 0x42, 0x50, 0x4a, 0x50, 0x59]); // EUR USD GBP JPY

function list(t: Text): u64 {
  return listWords(textPtr(t), textLen(t));
}

const lowerBuf: usize = memory.data(16);

// The value of word k in the list (lower-cased; -1: not in it, or not min..max bytes long).
function listed(p: usize, k: u32, words_: u64, min: u32, max: u32): i64 {
  const n = wLen(k);
  if (n < min || n > max || n > 15) return -1;
  for (let i: u32 = 0; i < n; i++) store<u8>(lowerBuf + i, <u8>lowerAscii(at(p, wStart(k) + i)));
  return wordValue(words_, lowerBuf, n);
}

// ---- emitting items ----
type Collector = (kind: u32, cls: u32, s: u64) => bool;
// Where in the message the item being collected was read: the byte its word starts at (the
// collector reads the clause there, §7.4).
export let objectStart: u32 = 0;
let sink: Collector = noCollector;
function noCollector(kind: u32, cls: u32, s: u64): bool { return false; }

// A message names at most OBJECTS_PER_MESSAGE objects and sums (in the order of the passes of
// bindObjects); past that it names none (a pasted table of numbers is no request), which can only
// ask more, and binding costs a bounded amount per byte.
export const OBJECTS_PER_MESSAGE: u32 = 256;
let given: u32 = 0;
function give(kind: u32, cls: u32, s: u64): bool {
  if (given >= OBJECTS_PER_MESSAGE) return true;
  given++;
  return sink(kind, cls, s);
}

function object(p: usize, len: u32): bool {
  if (len == 0 || len > OBJECT_MAX || given >= OBJECTS_PER_MESSAGE) return true;
  const s = objectNormal(p, len);
  return s != 0 && give(SUBJ_OBJECT, 0, s);
}

function amount(decimal: u64, code: usize): bool {
  if (given >= OBJECTS_PER_MESSAGE) return true;
  const s = amountText(decimal, code);
  return s != 0 && give(SUBJ_AMOUNT, 0, s);
}

// The text from word a to word b (inclusive), words joined by one space, lower-cased, a
// possessive "'s" cut from the last.
function runObject(p: usize, a: u32, b: u32): bool {
  let n: u32 = 0;
  for (let k = a; k <= b; k++) n += wLen(k) + 1;
  const out = scratchAlloc(<usize>n);
  if (out == 0) return false;
  let m: u32 = 0;
  for (let k = a; k <= b; k++) {
    if (k > a) { store<u8>(out + m, 0x20); m++; }
    let e = wEnd(k);
    if (k == b && e >= wStart(k) + 3 && (at(p, e - 1) | 0x20) == 0x73 && at(p, e - 2) == 0x27) e -= 2;
    for (let i = wStart(k); i < e; i++) { store<u8>(out + m, <u8>lowerAscii(at(p, i))); m++; }
  }
  return m == 0 || m > OBJECT_MAX || give(SUBJ_OBJECT, 0, span(out, m));
}

// Proper names: runs of capitalized words joined by connectors.
function names(p: usize): bool {
  const connectors = list(CONNECTORS);
  let k: u32 = 0;
  while (k < count) {
    if ((wFlags(k) & (W_CAPITAL | W_USED)) != W_CAPITAL) { k++; continue; }
    objectStart = wStart(k);
    let b = k;
    while ((wFlags(b) & W_BREAK_AFTER) == 0 && b + 1 < count && (wFlags(b + 1) & (W_BREAK_BEFORE | W_USED)) == 0) {
      if ((wFlags(b + 1) & W_CAPITAL) != 0) { b++; continue; }
      // A connector between two capitalized words.
      if (b + 2 < count && (wFlags(b + 1) & W_BREAK_AFTER) == 0 && (wFlags(b + 2) & (W_CAPITAL | W_BREAK_BEFORE)) == W_CAPITAL &&
          listed(p, b + 1, connectors, 1, 3) >= 0) { b += 2; continue; }
      break;
    }
    const opens = (wFlags(k) & W_OPENS) != 0;
    const single = b == k;
    if (!(single && (opens || (wLen(k) == 1 && at(p, wStart(k)) == 0x49)))) { // "I" is no name
      if (!runObject(p, k, b)) return false;
    }
    // Without its first word (a capitalized verb that opens a sentence, or an article), and
    // without an article after that ("Book The Ritz": "the ritz", "ritz").
    let j = k;
    while (j < b && (j == k ? opens || listed(p, j, list(ARTICLES), 1, 3) >= 0 : listed(p, j, list(ARTICLES), 1, 3) >= 0) &&
        listed(p, j + 1, connectors, 1, 3) < 0) {
      j++;
      if (!runObject(p, j, b)) return false;
    }
    k = b + 1;
  }
  return true;
}

// IBANs written in groups ("DE89 3704 0044 0532 0130 00"): a word of two letters and two digits
// (and up to 30 more letters and digits) and the words of at most four letters and digits that
// follow it, as one IBAN when its checksum holds; those words are read as nothing else.
function ibans(p: usize): bool {
  for (let k: u32 = 0; k < count; k++) {
    objectStart = wStart(k);
    const s = wStart(k), n = wLen(k);
    if ((wFlags(k) & W_DIGIT) == 0 || n < 4 || n > 34 || !isAsciiAlpha(at(p, s)) || !isAsciiAlpha(at(p, s + 1)) || !isAsciiDigit(at(p, s + 2)) || !isAsciiDigit(at(p, s + 3))) continue;
    let b = k;
    let total = n;
    while ((wFlags(b) & W_BREAK_AFTER) == 0 && b + 1 < count && total < 34) {
      const m = wLen(b + 1);
      if (m > 4 || (wLen(b) != 4 && b > k) || total + m > 34 || (wFlags(b + 1) & W_BREAK_BEFORE) != 0 || !alnum(p, b + 1)) break;
      b++;
      total += m;
    }
    if (!alnum(p, k)) continue;
    // The longest run of groups whose checksum holds.
    while (true) {
      const t = objectNormal(p + s, wEnd(b) - s);
      if (t == 0) return false;
      if (isIban(<usize>(t >>> 32), <u32>t)) {
        if (!give(SUBJ_OBJECT, 0, t)) return false;
        for (let j = k; j <= b; j++) wMark(j, W_USED);
        break;
      }
      if (b == k) break;
      b--;
    }
  }
  return true;
}

function alnum(p: usize, k: u32): bool {
  for (let i = wStart(k); i < wEnd(k); i++) if (!isAsciiAlpha(at(p, i)) && !isAsciiDigit(at(p, i))) return false;
  return true;
}

// Quoted phrases: from a word a quote mark opens to the next word the same kind of mark closes,
// on one line, at most OBJECT_MAX bytes.
function quoted(p: usize): bool {
  for (let k: u32 = 0; k < count; k++) {
    objectStart = wStart(k);
    const kind = (wFlags(k) >> OPEN_SHIFT) & 7;
    if (kind == 0) continue;
    for (let b = k; b < count && wEnd(b) - wStart(k) <= OBJECT_MAX; b++) {
      if (b > k && (wFlags(b) & W_NEWLINE) != 0) break;
      if (((wFlags(b) >> CLOSE_SHIFT) & 7) != kind) continue;
      if (!object(p + wStart(k), wEnd(b) - wStart(k))) return false;
      k = b;
      break;
    }
  }
  return true;
}

// A currency named by word k: a symbol alone, a code (three capitals), or a currency word. A code
// may as well be a label ("SKU 123", "PIN 1234"): byCode tells that a code gave the currency.
let byCode = false;
function currencyWord(p: usize, k: u32): usize {
  if (k >= count || (wFlags(k) & W_DIGIT) != 0) return 0;
  const s = wStart(k), n = wLen(k);
  if (n == 3 && at(p, s) - 0x41 < 26 && at(p, s + 1) - 0x41 < 26 && at(p, s + 2) - 0x41 < 26) { byCode = true; return currencyOf(p + s, 3); }
  const sym = currencySymbolAt(p, wEnd(k), s);
  if (sym != 0 && symbolLen == n) return sym;
  const w = listed(p, k, list(CURRENCY_WORDS), 3, 7);
  if (w < 0) return 0;
  return CURRENCY_CODES + <usize>(w < 2 ? 0 : w < 4 ? 3 : w < 6 ? 6 : 9);
}

// Dates: a month name beside a day (and maybe a year). Returns false when out of memory.
const dateBuf: usize = memory.data(10);
function date(year: u32, month: u32, day: u32): bool {
  if (day < 1 || day > 31) return true;
  let n: u32 = 2;
  store<u8>(dateBuf, 0x2d);
  store<u8>(dateBuf + 1, 0x2d);
  if (year > 0) {
    store<u8>(dateBuf, <u8>(0x30 + year / 1000));
    store<u8>(dateBuf + 1, <u8>(0x30 + (year / 100) % 10));
    store<u8>(dateBuf + 2, <u8>(0x30 + (year / 10) % 10));
    store<u8>(dateBuf + 3, <u8>(0x30 + year % 10));
    store<u8>(dateBuf + 4, 0x2d);
    n = 5;
  }
  store<u8>(dateBuf + n, <u8>(0x30 + month / 10)); store<u8>(dateBuf + n + 1, <u8>(0x30 + month % 10));
  store<u8>(dateBuf + n + 2, 0x2d);
  store<u8>(dateBuf + n + 3, <u8>(0x30 + day / 10)); store<u8>(dateBuf + n + 4, <u8>(0x30 + day % 10));
  return object(dateBuf, n + 5);
}

// Word k as a day of a month ("3", "3rd", "03,"): the day, or 0.
function dayOf(p: usize, k: u32): u32 {
  if (k >= count) return 0;
  const s = wStart(k);
  let e = wEnd(k);
  if (e - s >= 3 && isAsciiAlpha(at(p, e - 1)) && isAsciiAlpha(at(p, e - 2))) e -= 2; // st nd rd th
  if (e - s < 1 || e - s > 2) return 0;
  let d: u32 = 0;
  for (let i = s; i < e; i++) {
    if (!isAsciiDigit(at(p, i))) return 0;
    d = d * 10 + at(p, i) - 0x30;
  }
  return d;
}

function yearOf(p: usize, k: u32): u32 {
  if (k >= count || wLen(k) != 4) return 0;
  let y: u32 = 0;
  for (let i = wStart(k); i < wEnd(k); i++) {
    if (!isAsciiDigit(at(p, i))) return 0;
    y = y * 10 + at(p, i) - 0x30;
  }
  return y >= 1900 && y <= 2999 ? y : 0;
}

// The month word k names (1..12), 0 for none: its first three letters pick the month, and the
// word must be those three, "sept", or the whole name.
function monthOf(p: usize, k: u32): u32 {
  if (k >= count) return 0;
  const s = wStart(k), n = wLen(k);
  if (n < 3 || n > 9) return 0;
  const f = (at(p, s) | 0x20) - 0x61;
  if (f >= 26 || ((1 << f) & 0x47229) == 0) return 0; // months start with one of a d f j m n o s
  const key = lower3(p, s);
  let m: u32 = 0;
  if (key == 0x6e616a) m = 1; // jan
  else if (key == 0x626566) m = 2; // feb
  else if (key == 0x72616d) m = 3; // mar
  else if (key == 0x727061) m = 4; // apr
  else if (key == 0x79616d) m = 5; // may
  else if (key == 0x6e756a) m = 6; // jun
  else if (key == 0x6c756a) m = 7; // jul
  else if (key == 0x677561) m = 8; // aug
  else if (key == 0x706573) m = 9; // sep
  else if (key == 0x74636f) m = 10; // oct
  else if (key == 0x766f6e) m = 11; // nov
  else if (key == 0x636564) m = 12; // dec
  if (m == 0 || n == 3 || (m == 9 && n == 4 && (at(p, s + 3) | 0x20) == 0x74)) return m;
  return listed(p, k, list(MONTHS), 3, 9) == <i64>(m - 1) ? m : 0;
}

function dates(p: usize): bool {
  for (let k: u32 = 0; k < count; k++) {
    objectStart = wStart(k);
    const month = monthOf(p, k);
    if (month == 0) continue;
    // "June 3", "June 3rd, 2025"
    let day = dayOf(p, k + 1);
    if (day > 0 && (wFlags(k) & W_BREAK_AFTER) == 0) {
      const year = (wFlags(k + 1) & W_BREAK_AFTER) == 0 || at(p, wEnd(k + 1)) == 0x2c ? yearOf(p, k + 2) : 0;
      wMark(k + 1, W_USED);
      if (year > 0) wMark(k + 2, W_USED);
      if (!date(year, month, day)) return false;
      continue;
    }
    // "3 June", "3rd of June 2025"
    const ofWord = k >= 2 && listed(p, k - 1, list(CONNECTORS), 2, 2) == 0;
    const d = ofWord ? k - 2 : k - 1;
    day = k >= 1 ? dayOf(p, d) : 0;
    if (day > 0 && (wFlags(d) & W_BREAK_AFTER) == 0) {
      const year = (wFlags(k) & W_BREAK_AFTER) == 0 ? yearOf(p, k + 1) : 0;
      wMark(d, W_USED);
      if (year > 0) wMark(k + 1, W_USED);
      if (!date(year, month, day)) return false;
    }
  }
  return true;
}

// Sums and numbers, word by word.
// The object a number word names: its digits ("two": 2).
function numberWordObject(w: i32): bool {
  const digit = scratchAlloc(2);
  if (digit == 0) return false;
  let n: u32 = 1;
  if (w >= 10) { store<u8>(digit, 0x31); store<u8>(digit + 1, <u8>(0x30 + w - 10)); n = 2; }
  else store<u8>(digit, <u8>(0x30 + w));
  return give(SUBJ_OBJECT, 0, span(digit, n));
}

// The number word k is ("two": 2), -1 for none: its first four bytes (three for a word of
// three), lower-cased, and for a longer word its last ones, compared with each word of its length.
function numberWord(p: usize, k: u32): i32 {
  const s = wStart(k), n = wLen(k);
  if (n < 3 || n > 6) return -1;
  const f = (at(p, s) | 0x20) - 0x61;
  if (f >= 26 || ((1 << f) & 0x20c6030) == 0) return -1; // zero..twelve start with one of e f n o s t z
  const head = n == 3 ? lower3(p, s) : lower3(p, s) | ((at(p, s + 3) | 0x20) << 24);
  const last = at(p, s + n - 1) | 0x20;
  if (n == 3 && head == 0x656e6f) return 1; // one
  if (n == 3 && head == 0x6f7774) return 2; // two
  if (n == 3 && head == 0x786973) return 6; // six
  if (n == 3 && head == 0x6e6574) return 10; // ten
  if (n == 4 && head == 0x6f72657a) return 0; // zero
  if (n == 4 && head == 0x72756f66) return 4; // four
  if (n == 4 && head == 0x65766966) return 5; // five
  if (n == 4 && head == 0x656e696e) return 9; // nine
  if (n == 5 && head == 0x65726874 && last == 0x65) return 3; // three
  if (n == 5 && head == 0x65766573 && last == 0x6e) return 7; // seven
  if (n == 5 && head == 0x68676965 && last == 0x74) return 8; // eight
  if (n == 6 && head == 0x76656c65 && last == 0x6e && (at(p, s + 4) | 0x20) == 0x65) return 11; // eleven
  if (n == 6 && head == 0x6c657774 && last == 0x65 && (at(p, s + 4) | 0x20) == 0x76) return 12; // twelve
  return -1;
}

// The first three bytes at s, each with 0x20 or-ed in (ASCII letters lower-cased), little-endian.
@inline function lower3(p: usize, s: u32): u32 {
  return (at(p, s) | 0x20) | ((at(p, s + 1) | 0x20) << 8) | ((at(p, s + 2) | 0x20) << 16);
}

function sums(p: usize): bool {
  for (let k: u32 = 0; k < count; k++) {
    objectStart = wStart(k);
    if ((wFlags(k) & W_USED) != 0) continue;
    const s = wStart(k), e = wEnd(k);
    const c0 = at(p, s);
    if ((wFlags(k) & W_DIGIT) == 0 && c0 != 0x24 && c0 != 0xe2 && c0 != 0xc2) {
      // No number in it: a number word, or nothing.
      const w = isAsciiAlpha(c0) ? numberWord(p, k) : -1;
      if (w >= 0 && !numberWordObject(w)) return false;
      continue;
    }
    // A symbol glued before the number: "€200", "$1,250.50".
    let code = currencySymbolAt(p, e, s);
    let from = s;
    let glued = false; // a code glued before it: "USD1250", or an id ("INV2024")
    byCode = false;
    if (code != 0) from = s + symbolLen;
    else if (e - s > 3 && at(p, s) - 0x41 < 26 && at(p, s + 1) - 0x41 < 26 && at(p, s + 2) - 0x41 < 26 && isAsciiDigit(at(p, s + 3))) {
      code = currencyOf(p + s, 3); // "USD1250"
      from = s + 3;
      glued = true;
    }
    if (from == e && code != 0 && k + 1 < count) { // "€ 200"
      const d = textNumber(p, wEnd(k + 1), wStart(k + 1));
      if (d != 0 && textNumberEnd == wEnd(k + 1)) {
        wMark(k, W_USED);
        wMark(k + 1, W_USED);
        if (!amount(d, code)) return false;
      }
      continue;
    }
    const d = textNumber(p, e, from);
    if (d == 0) continue;
    let end = textNumberEnd;
    if (code != 0 && !glued) wMark(k, W_USED); // "INV2024" is still read as an id below
    if (code == 0 && end < e) { // a symbol glued after it: "200€"
      code = currencySymbolAt(p, e, end);
      if (code != 0) end += symbolLen;
    }
    if (end != e) continue; // part of an id or a date, read below
    if (code == 0 && (wFlags(k) & W_BREAK_AFTER) == 0) { // "200 EUR", "20 euros"
      code = currencyWord(p, k + 1);
      if (code != 0) wMark(k + 1, W_USED);
    }
    if (code == 0 && k > 0 && (wFlags(k - 1) & W_BREAK_AFTER) == 0) { // "EUR 200"
      code = currencyWord(p, k - 1);
      if (code != 0) wMark(k - 1, W_USED);
    }
    if (!amount(d, code)) return false;
    // A number with no currency also names itself ("issue 12", "2 nights"), and so does one
    // beside three capitals, which may be a label as well as a currency ("SKU 123").
    if ((code == 0 || (byCode && !glued)) && !give(SUBJ_OBJECT, 0, d)) return false;
  }
  return true;
}

// Ids: words with a digit and a letter, '-' or '_'; "#123"; owner/name; a URL's path segments.
function ids(p: usize, len: u32): bool {
  for (let k: u32 = 0; k < count; k++) {
    objectStart = wStart(k);
    if ((wFlags(k) & W_USED) != 0 || (wFlags(k) & (W_DIGIT | W_MARK)) == 0) continue;
    const s = wStart(k), e = wEnd(k);
    let digit = false, joiner = false, letter = false, other = false;
    let slash: i32 = -1, slashes: u32 = 0;
    for (let i = s; i < e; i++) {
      const c = at(p, i);
      if (isAsciiDigit(c)) digit = true;
      else if (isAsciiAlpha(c)) letter = true;
      else if (c == 0x2d || c == 0x5f) joiner = true;
      else if (c == 0x2f) { slash = <i32>i; slashes++; }
      else if (c != 0x2e) other = true;
    }
    if (at(p, s) == 0x23 && e > s + 1) { // "#123"
      let all = true;
      for (let i = s + 1; i < e; i++) if (!isAsciiDigit(at(p, i))) all = false;
      if (all && !object(p + s + 1, e - s - 1)) return false;
      continue;
    }
    const c0 = at(p, s);
    if (slashes > 0 && !other) {
      if (slashes == 1 && slash > <i32>s && <u32>slash + 1 < e && c0 != 0x2e && c0 != 0x7e) { // owner/name
        if (!object(p + s, e - s) || !object(p + s, <u32>slash - s) || !object(p + <u32>slash + 1, e - <u32>slash - 1)) return false;
      }
      continue;
    }
    if (other) {
      if (!urlSegments(p, s, e)) return false;
      continue;
    }
    if (digit && (letter || joiner) && !object(p + s, e - s)) return false;
    if (e - s == 10 && !letter && !dateTime(p, k)) return false;
  }
  return true;
}

// An ISO date (word k, "2024-05-19") with a time after it ("12:00", "at 9:30"): also the date
// and time as a call writes them, "2024-05-19 12:00", "2024-05-19t12:00" and "2024-05-19t12:00:00".
const stampBuf: usize = memory.data(19);
function dateTime(p: usize, k: u32): bool {
  const s = wStart(k);
  for (let i: u32 = 0; i < 10; i++) if (i == 4 || i == 7 ? at(p, s + i) != 0x2d : !isAsciiDigit(at(p, s + i))) return true;
  let t = k + 1;
  if (t < count && (wFlags(k) & W_BREAK_AFTER) == 0 && wLen(t) == 2 && (at(p, wStart(t)) | 0x20) == 0x61 && (at(p, wStart(t) + 1) | 0x20) == 0x74) t++; // "at"
  if (t >= count || (wFlags(t - 1) & W_BREAK_AFTER) != 0) return true;
  const h = wStart(t), n = wLen(t);
  const colon = n == 4 ? 1 : n == 5 ? 2 : 0;
  if (colon == 0 || at(p, h + colon) != 0x3a) return true;
  for (let i: u32 = 0; i < n; i++) if (i != colon && !isAsciiDigit(at(p, h + i))) return true;
  memory.copy(stampBuf, p + s, 10);
  store<u8>(stampBuf + 11, colon == 1 ? 0x30 : at(p, h));
  memory.copy(stampBuf + 12, p + h + colon - 1, 4);
  store<u8>(stampBuf + 16, 0x3a);
  store<u8>(stampBuf + 17, 0x30);
  store<u8>(stampBuf + 18, 0x30);
  store<u8>(stampBuf + 10, 0x20);
  if (!object(stampBuf, 16)) return false;
  store<u8>(stampBuf + 10, 0x74);
  return object(stampBuf, 16) && object(stampBuf, 19);
}

// The path segments of a URL in word [s, e) (up to 16), each an object.
function urlSegments(p: usize, s: u32, e: u32): bool {
  const u = findUrl(p, e, s);
  if (u < 0) return true;
  const end = urlEnd;
  let i = <u32>u;
  while (i + 2 < end && !(at(p, i) == 0x3a && at(p, i + 1) == 0x2f && at(p, i + 2) == 0x2f)) i++;
  i += 3;
  while (i < end && at(p, i) != 0x2f) { if (at(p, i) == 0x3f || at(p, i) == 0x23) return true; i++; }
  let segments: u32 = 0;
  while (i < end && segments < 16) {
    i++; // the '/'
    let j = i;
    while (j < end && at(p, j) != 0x2f && at(p, j) != 0x3f && at(p, j) != 0x23) j++;
    if (j > i && !object(p + i, j - i)) return false;
    segments++;
    if (j < end && at(p, j) != 0x2f) break;
    i = j;
  }
  return true;
}

// Collects the objects and sums of message [p, p+len) through `collect` (the binder's, with
// the item kind, class 0 and the value); false when out of memory or when it refused one.
export function bindObjects(p: usize, len: u32, collect: Collector): bool {
  sink = collect;
  given = 0;
  if (len > OBJECTS_READ) {
    len = OBJECTS_READ;
    while (len > 0 && at(p, len) > 0x20) len--; // not inside a word (bytes past len are the message's)
  }
  if (!splitWords(p, len)) return false;
  return quoted(p) && ibans(p) && dates(p) && sums(p) && names(p) && ids(p, len);
}

// A JSON number leaf's value as an object: its canonical decimal ("2.0" is "2").
export function numberObject(p: usize, len: u32): u64 {
  const d = jsonDecimal(p, len, 0, true);
  return d != 0 ? d : span(p, len);
}
