// The words of a message as bindObjects reads them: a table of each word's bounds (without the
// punctuation and quote marks that wrap it) and flags, this module's state (splitWords fills it, the
// passes read it); and the small word lists a word is looked up in.
import { scratchAlloc } from "../abi/mem";
import { isAsciiAlpha, isAsciiDigit, lowerAscii } from "../abi/bytes";
import { listWords, wordValue } from "../readers/wordset";
import { pyWhitespace } from "../readers/v4a";
import { quoteMarkLen } from "../readers/scan";
import { Text, textPtr, textLen } from "../abi/out";

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// Word table: start, end (without wrapping punctuation), flags.
export const W_CAPITAL: u32 = 1;   // starts with an upper-case letter
export const W_OPENS: u32 = 2;     // opens a sentence
export const W_BREAK_AFTER: u32 = 4; // punctuation or a quote mark ends it: no name runs on past it
export const W_BREAK_BEFORE: u32 = 8; // an opening quote or bracket starts it
export const W_USED: u32 = 16;     // read as part of a date or a sum
export const W_DIGIT: u32 = 32;    // holds a digit
export const W_MARK: u32 = 64;     // holds one of # / : @ _ - (an id, a path, a URL)
export const W_NEWLINE: u32 = 128; // a line break comes before it
// The quote mark that opens a phrase at a word's start (bits 8..10) or closes one at its end
// (bits 11..13), innermost: 1 ', 2 ", 3 `, 4 ‘ ’, 5 “ ”, 6 « ».
export const OPEN_SHIFT: u32 = 8;
export const CLOSE_SHIFT: u32 = 11;
const WORD: usize = 12;
let words: usize = 0;
export let count: u32 = 0;

@inline export function wStart(k: u32): u32 { return load<u32>(words + <usize>k * WORD); }
@inline export function wEnd(k: u32): u32 { return load<u32>(words + <usize>k * WORD + 4); }
@inline export function wFlags(k: u32): u32 { return load<u32>(words + <usize>k * WORD + 8); }
@inline export function wMark(k: u32, f: u32): void { store<u32>(words + <usize>k * WORD + 8, wFlags(k) | f); }
@inline export function wLen(k: u32): u32 { return wEnd(k) - wStart(k); }

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
export function splitWords(p: usize, len: u32): bool {
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
    // A script written without spaces (U+3000 on: kana, CJK, Hangul, full-width forms) and the
    // Latin letters and digits beside it are words apart: "リポジトリacme/blogを" names acme/blog.
    let wide = at(p, i) >= 0xe3 && at(p, i) <= 0xef;
    while (e < len) {
      const c = at(p, e);
      if (c < 0x80) { // ASCII: its class says white space, a digit, an id's mark, or nothing
        if (wide) break;
        const k = <u32>load<u8>(ASCII_CLASS + c);
        if (k == 0x80) break;
        flags |= k;
        e++;
        continue;
      }
      if (c >= 0xc0 && (c >= 0xe3 && c <= 0xef) != wide) break; // a character of the other kind
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
export const CONNECTORS: Text = "of\nde\ndu\ndes\nla\nle\ndel\nder\nvan\nvon\ndi\nda\n&";
export const ARTICLES: Text = "the\na\nan";
export const MONTHS: Text = "january\nfebruary\nmarch\napril\nmay\njune\njuly\naugust\nseptember\noctober\nnovember\ndecember";
export const CURRENCY_WORDS: Text = "euro\neuros\ndollar\ndollars\npound\npounds\nyen";
export const CURRENCY_CODES: usize = memory.data<u8>([0x45, 0x55, 0x52, 0x55, 0x53, 0x44, 0x47, 0x42, 0x50, 0x4a, 0x50, 0x59]); // EUR USD GBP JPY

export function list(t: Text): u64 {
  return listWords(textPtr(t), textLen(t));
}

const lowerBuf: usize = memory.data(16);

// The value of word k in the list (lower-cased; -1: not in it, or not min..max bytes long).
export function listed(p: usize, k: u32, words_: u64, min: u32, max: u32): i64 {
  const n = wLen(k);
  if (n < min || n > max || n > 15) return -1;
  for (let i: u32 = 0; i < n; i++) store<u8>(lowerBuf + i, <u8>lowerAscii(at(p, wStart(k) + i)));
  return wordValue(words_, lowerBuf, n);
}
