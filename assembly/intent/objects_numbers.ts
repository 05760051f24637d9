// The passes of bindObjects that read figures in the word table: dates ("June 3", "3 June 2025")
// as YYYY-MM-DD or --MM-DD, sums ("€200", "200 EUR", "20 dollars") and numbers ("12", "two").
import { SUBJ_OBJECT } from "../../bytecode/format";
import { scratchAlloc } from "../abi/mem";
import { isAsciiAlpha, isAsciiDigit } from "../abi/bytes";
import { setFind, intentGrammarSet, intentVerbSet } from "../policy/decode";
import { span } from "../readers/normalize";
import { textNumber, textNumberEnd, currencySymbolAt, symbolLen, currencyOf } from "../readers/amount";
import {
  W_BREAK_AFTER, W_USED, W_DIGIT, count, wStart, wEnd, wFlags, wMark, wLen, CONNECTORS, MONTHS, CURRENCY_WORDS,
  CURRENCY_CODES, list, listed,
} from "./objects_words";
import { objectStart, give, object, amount } from "./objects_items";

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
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

export function dates(p: usize): bool {
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

// Whether word k is followed, in its clause, by a word of letters the intent grammar and verbs do
// not know: a noun the number counts.
function countsThings(p: usize, k: u32): bool {
  if (k + 1 >= count || (wFlags(k) & W_BREAK_AFTER) != 0) return false;
  const s = wStart(k + 1), n = wEnd(k + 1) - s;
  if (n == 0 || n > 32) return false;
  const lower = scratchAlloc(n);
  if (lower == 0) return false;
  for (let i: u32 = 0; i < n; i++) {
    const c = at(p, s + i);
    if (!isAsciiAlpha(c)) return false;
    store<u8>(lower + i, <u8>(c | 0x20));
  }
  return setFind(intentGrammarSet(), lower, n) < 0 && setFind(intentVerbSet(), lower, n) < 0;
}

export function sums(p: usize): bool {
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
    // A bare number before a noun counts things ("the 3 notes", "a 500 page report", "2 nights"):
    // no sum. A noun is a word the request's grammar does not know (not "to", "today", "for").
    if (code == 0 && !countsThings(p, k) && !amount(d, code)) return false;
    if (code != 0 && !amount(d, code)) return false;
    // A number with no currency also names itself ("issue 12", "2 nights"), and so does one
    // beside three capitals, which may be a label as well as a currency ("SKU 123").
    if ((code == 0 || (byCode && !glued)) && !give(SUBJ_OBJECT, 0, d)) return false;
  }
  return true;
}
