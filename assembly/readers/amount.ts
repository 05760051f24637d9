// Sums of money (docs/bytecode.md §6.10). The normal form of an AMOUNT is a decimal number, then,
// where the sum names its currency, a space and the ISO 4217 code: "1250.5 EUR", "200". The
// decimal has no sign, no leading zeros (but the one before a point), no trailing zeros after
// the point and no point without digits after it. Decimals are compared exactly, as text;
// budgets add them as fixed-point integers of AMOUNT_SCALE units per unit of currency.
import { scratchAlloc } from "../abi/mem";
import { isAsciiAlpha, isAsciiDigit, isSpace, sameBytes } from "../abi/bytes";
import { span } from "./normalize";
import { NO, YES, MAYBE } from "../decision/tri";

// Longest decimal read (significant digits), and largest power of ten a number may carry: a sum
// or id beyond them is not a number the fence reads.
const MAX_DIGITS: i32 = 40;
export const AMOUNT_SCALE: u64 = 1000000; // budgets count millionths of a unit
const SCALE_DIGITS: u32 = 6;
export const AMOUNT_HUGE: u64 = 0xffffffffffffffff; // a sum past what a u64 of millionths holds

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// ---- canonical decimals ----

// The digits being canonicalized: value = 0.D × 10^point, D without leading or trailing zeros.
const digits: usize = memory.data(MAX_DIGITS + 1);
let digitCount: i32 = 0;
let point: i32 = 0;
let overflow = false;

function digitsBegin(): void {
  digitCount = 0;
  point = 0;
  overflow = false;
}

// One more digit of the number, before (integer) or after the decimal point.
function pushDigit(d: u32, integer: bool): void {
  if (digitCount == 0 && d == 0) { // a leading zero: shifts the point, stores nothing
    if (!integer) point--;
    return;
  }
  if (digitCount >= MAX_DIGITS) {
    if (d != 0) overflow = true; // a digit past the bound that matters
    if (integer) point++;
    return;
  }
  store<u8>(digits + digitCount, <u8>d);
  digitCount++;
  if (integer) point++;
}

// The canonical text of the digits pushed, times 10^shift, in scratch (0: out of memory, or a
// number past the bounds).
function digitsText(shift: i32, negative: bool): u64 {
  while (digitCount > 0 && load<u8>(digits + digitCount - 1) == 0) digitCount--;
  if (overflow) return 0;
  if (digitCount == 0) return span(ZERO, 1);
  const p = point + shift;
  if (p > MAX_DIGITS || p < -MAX_DIGITS) return 0;
  const n = digitCount;
  const size = (negative ? 1 : 0) + (p <= 0 ? 2 - p + n : max<i32>(p, n) + (p < n ? 1 : 0));
  const out = scratchAlloc(<usize>size);
  if (out == 0) return 0;
  let k = 0;
  if (negative) { store<u8>(out, 0x2d); k++; }
  if (p <= 0) {
    store<u8>(out + k, 0x30); store<u8>(out + k + 1, 0x2e); k += 2;
    for (let i = 0; i < -p; i++) { store<u8>(out + k, 0x30); k++; }
    for (let i = 0; i < n; i++) { store<u8>(out + k, 0x30 + load<u8>(digits + i)); k++; }
  } else {
    for (let i = 0; i < max<i32>(p, n); i++) {
      if (i == p) { store<u8>(out + k, 0x2e); k++; }
      store<u8>(out + k, <u8>(0x30 + (i < n ? load<u8>(digits + i) : 0)));
      k++;
    }
  }
  return span(out, <u32>k);
}

const ZERO: usize = memory.data<u8>([0x30]);

// A JSON number (RFC 8259: -?digits(.digits)?([eE][+-]?digits)?) as a canonical decimal, times
// 10^shift: 0 when [p, p+len) is not one (or is negative and `negativeOk` is false).
export function jsonDecimal(p: usize, len: u32, shift: i32, negativeOk: bool): u64 {
  let i: u32 = 0;
  const negative = len > 0 && at(p, 0) == 0x2d;
  if (negative) { if (!negativeOk) return 0; i++; }
  digitsBegin();
  const intStart = i;
  while (i < len && isAsciiDigit(at(p, i))) { pushDigit(at(p, i) - 0x30, true); i++; }
  if (i == intStart) return 0;
  if (i < len && at(p, i) == 0x2e) {
    i++;
    const fracStart = i;
    while (i < len && isAsciiDigit(at(p, i))) { pushDigit(at(p, i) - 0x30, false); i++; }
    if (i == fracStart) return 0;
  }
  let exp: i32 = 0;
  if (i < len && (at(p, i) | 0x20) == 0x65) {
    i++;
    let sign: i32 = 1;
    if (i < len && (at(p, i) == 0x2b || at(p, i) == 0x2d)) { if (at(p, i) == 0x2d) sign = -1; i++; }
    const expStart = i;
    while (i < len && isAsciiDigit(at(p, i))) {
      if (exp < 1000) exp = exp * 10 + <i32>(at(p, i) - 0x30);
      i++;
    }
    if (i == expStart) return 0;
    exp *= sign;
  }
  if (i != len) return 0;
  return digitsText(shift + exp, negative);
}

// A number written in prose or by a model: digits, with ',' or '.' between groups of three
// ("1,250.50", "1.250,50", "1,250") or before the decimals ("12,5"), no sign. A lone separator
// followed by exactly three digits groups thousands (sums carry two decimals, rarely three);
// followed by other counts, it is the decimal point. Reads from i; the end in textNumberEnd.
export let textNumberEnd: u32 = 0;
export function textNumber(p: usize, len: u32, i: u32): u64 {
  if (i >= len || !isAsciiDigit(at(p, i))) return 0;
  // Groups: the runs of digits and the separators between them.
  let e = i;
  let seps: u32 = 0;
  let lastSep: u32 = 0;   // the byte of the last separator
  let lastSepAt: u32 = 0;
  let mixed = false;
  let groupsOfThree = true; // every group after a separator but the last has three digits
  let groupStart = i;
  while (e < len) {
    const c = at(p, e);
    if (isAsciiDigit(c)) { e++; continue; }
    if ((c == 0x2c || c == 0x2e) && e + 1 < len && isAsciiDigit(at(p, e + 1))) {
      if (seps > 0 && e - groupStart != 3) groupsOfThree = false;
      if (seps > 0 && c != lastSep) mixed = true;
      lastSep = c;
      lastSepAt = e;
      seps++;
      e++;
      groupStart = e;
      continue;
    }
    break;
  }
  // A number glued to letters ("3pm", "v2") or to another number ("1.2.3") is not a sum.
  if (e < len && (isAsciiAlpha(at(p, e)) || at(p, e) == 0x5f)) return 0;
  textNumberEnd = e;
  const lastGroup = e - lastSepAt - 1;
  // Where the decimal point is: none, or the last separator.
  let decimalAt: u32 = 0xffffffff;
  if (seps == 1) {
    if (lastGroup != 3) decimalAt = lastSepAt;
  } else if (seps > 1) {
    if (mixed) {
      // "1,250.50": the other separators group thousands, in threes; the last is the point.
      if (!groupsOfThree) return 0;
      let first = 0;
      for (let k = i; k < lastSepAt; k++) if (!isAsciiDigit(at(p, k))) { first = <i32>at(p, k); break; }
      for (let k = i; k < lastSepAt; k++) if (!isAsciiDigit(at(p, k)) && <i32>at(p, k) != first) return 0;
      decimalAt = lastSepAt;
    } else {
      if (!groupsOfThree || lastGroup != 3) return 0; // "1.2.3" is a version, not a sum
    }
  }
  if (seps > 0 && decimalAt == 0xffffffff) {
    // Thousands only: the first group has one to three digits.
    let firstSep = i;
    while (isAsciiDigit(at(p, firstSep))) firstSep++;
    if (firstSep - i > 3) return 0;
  }
  digitsBegin();
  for (let k = i; k < e; k++) {
    const c = at(p, k);
    if (isAsciiDigit(c)) pushDigit(c - 0x30, k < decimalAt);
  }
  return digitsText(0, false);
}

// Whether [a, a+al) <= [b, b+bl), both canonical decimals without a sign.
export function decimalAtMost(a: usize, al: u32, b: usize, bl: u32): bool {
  const ai = intLen(a, al), bi = intLen(b, bl);
  if (ai != bi) return ai < bi;
  for (let k: u32 = 0; k < ai; k++) {
    if (at(a, k) != at(b, k)) return at(a, k) < at(b, k);
  }
  // The fractions, zero-padded.
  const af = al > ai ? al - ai - 1 : 0, bf = bl > bi ? bl - bi - 1 : 0;
  const n = max<u32>(af, bf);
  for (let k: u32 = 0; k < n; k++) {
    const x = k < af ? at(a, ai + 1 + k) : 0x30;
    const y = k < bf ? at(b, bi + 1 + k) : 0x30;
    if (x != y) return x < y;
  }
  return true;
}

function intLen(p: usize, len: u32): u32 {
  let k: u32 = 0;
  while (k < len && at(p, k) != 0x2e) k++;
  return k;
}

// A canonical decimal as millionths: rounded up (a call's sum) or down (a cap), AMOUNT_HUGE
// past the range.
export function decimalUnits(p: usize, len: u32, roundUp: bool): u64 {
  const ai = intLen(p, len);
  if (ai > 13) return AMOUNT_HUGE;
  let v: u64 = 0;
  for (let k: u32 = 0; k < ai; k++) v = v * 10 + <u64>(at(p, k) - 0x30);
  let frac: u64 = 0;
  let rest = false;
  for (let k: u32 = 0; k < SCALE_DIGITS; k++) {
    const j = ai + 1 + k;
    frac = frac * 10 + (j < len ? <u64>(at(p, j) - 0x30) : 0);
  }
  if (len > ai + 1 + SCALE_DIGITS) rest = true; // canonical: a longer fraction has a non-zero digit
  let units = v * AMOUNT_SCALE + frac;
  if (rest && roundUp) units++;
  return units;
}

// ---- currencies ----

const SYMBOLS: usize = memory.data<u8>([0x45, 0x55, 0x52, 0x47, 0x42, 0x50, 0x4a, 0x50, 0x59, 0x55, 0x53, 0x44]); // EUR GBP JPY USD
const CODE: usize = memory.data(4);

// The currency a symbol at i names (€ £ ¥ $): its code, with its length in symbolLen; 0: none.
export let symbolLen: u32 = 0;
export function currencySymbolAt(p: usize, len: u32, i: u32): usize {
  const c = at(p, i);
  if (c == 0x24) { symbolLen = 1; return SYMBOLS + 9; }
  if (c == 0xe2 && i + 2 < len && at(p, i + 1) == 0x82 && at(p, i + 2) == 0xac) { symbolLen = 3; return SYMBOLS; }
  if (c == 0xc2 && i + 1 < len && at(p, i + 1) == 0xa3) { symbolLen = 2; return SYMBOLS + 3; }
  if (c == 0xc2 && i + 1 < len && at(p, i + 1) == 0xa5) { symbolLen = 2; return SYMBOLS + 6; }
  return 0;
}

// [p, p+len), trimmed, as a currency: three ASCII letters (any case) or one symbol. The code,
// upper-case, at the returned address (3 bytes); 0 when it names none.
export function currencyOf(p: usize, len: u32): usize {
  let s: u32 = 0, t = len;
  while (s < t && isSpace(at(p, s))) s++;
  while (t > s && isSpace(at(p, t - 1))) t--;
  if (t - s == 3 && isAsciiAlpha(at(p, s)) && isAsciiAlpha(at(p, s + 1)) && isAsciiAlpha(at(p, s + 2))) {
    for (let k: u32 = 0; k < 3; k++) store<u8>(CODE + k, at(p, s + k) & 0xdf);
    return CODE;
  }
  const sym = t > s ? currencySymbolAt(p, t, s) : 0;
  return sym != 0 && s + symbolLen == t ? sym : 0;
}

// Currencies whose smallest unit is the unit itself, or a thousandth (ISO 4217); every other
// has cents.
const EXPONENT_0: usize = memory.data<u8>([
  0x42,0x49,0x46, 0x43,0x4c,0x50, 0x44,0x4a,0x46, 0x47,0x4e,0x46, 0x49,0x53,0x4b, 0x4a,0x50,0x59, 0x4b,0x4d,0x46,
  0x4b,0x52,0x57, 0x50,0x59,0x47, 0x52,0x57,0x46, 0x55,0x47,0x58, 0x55,0x59,0x49, 0x56,0x4e,0x44, 0x56,0x55,0x56,
  0x58,0x41,0x46, 0x58,0x4f,0x46, 0x58,0x50,0x46,
]); // BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF
const EXPONENT_3: usize = memory.data<u8>([
  0x42,0x48,0x44, 0x49,0x51,0x44, 0x4a,0x4f,0x44, 0x4b,0x57,0x44, 0x4c,0x59,0x44, 0x4f,0x4d,0x52, 0x54,0x4e,0x44,
]); // BHD IQD JOD KWD LYD OMR TND

function listed(list: usize, n: u32, code: usize): bool {
  for (let k: u32 = 0; k < n; k++) if (sameBytes(list + k * 3, code, 3)) return true;
  return false;
}

// Decimal digits of a currency's smallest unit (code: 3 upper-case letters, or 0: 0 digits).
export function minorDigits(code: usize): i32 {
  if (code == 0 || listed(EXPONENT_0, 17, code)) return 0;
  return listed(EXPONENT_3, 7, code) ? 3 : 2;
}

// ---- the normal form ----

// The AMOUNT "decimal[ CUR]" in scratch (0: out of memory).
export function amountText(decimal: u64, code: usize): u64 {
  const n = <u32>decimal;
  const out = scratchAlloc(<usize>n + 4);
  if (out == 0) return 0;
  memory.copy(out, <usize>(decimal >>> 32), n);
  if (code == 0) return span(out, n);
  store<u8>(out + n, 0x20);
  memory.copy(out + n + 1, code, 3);
  return span(out, n + 4);
}

// Splits an AMOUNT in normal form: the decimal's length (returned) and the currency in
// amountCode (0: none). -1 when [p, p+len) is not an AMOUNT in normal form.
export let amountCode: usize = 0;
export function amountSplit(p: usize, len: u32): i32 {
  let n = len;
  amountCode = 0;
  if (len >= 5 && at(p, len - 4) == 0x20) {
    for (let k: u32 = len - 3; k < len; k++) if (at(p, k) - 0x41 >= 26) return -1;
    amountCode = p + len - 3;
    n = len - 4;
  }
  return canonical(p, n) ? <i32>n : -1;
}

// Whether [p, p+n) is a canonical decimal without a sign.
function canonical(p: usize, n: u32): bool {
  if (n == 0) return false;
  const ai = intLen(p, n);
  if (ai == 0 || (ai > 1 && at(p, 0) == 0x30)) return false;
  for (let k: u32 = 0; k < ai; k++) if (!isAsciiDigit(at(p, k))) return false;
  if (ai == n) return true;
  if (ai + 1 == n || at(p, n - 1) == 0x30) return false;
  for (let k = ai + 1; k < n; k++) if (!isAsciiDigit(at(p, k))) return false;
  return true;
}

// AT_MOST (§5): the AMOUNT [v, v+vl) is at most the constant [c, c+cl), both in normal form.
// A constant without a currency bounds the number in any currency; one with a currency holds
// for a sum in that currency, maybe for one whose currency is not given or another (the fence
// converts nothing), NO when the number exceeds the constant's and the currencies are one.
export function amountAtMost(v: usize, vl: u32, c: usize, cl: u32): u32 {
  const cn = amountSplit(c, cl);
  const cc = amountCode;
  const vn = amountSplit(v, vl);
  const vc = amountCode;
  if (cn < 0 || vn < 0) return MAYBE; // not read (the verifier checks constants)
  const fits = decimalAtMost(v, <u32>vn, c, <u32>cn);
  if (cc == 0 || (vc != 0 && sameBytes(vc, cc, 3))) return fits ? YES : NO;
  return MAYBE;
}

// Whether the AMOUNT [v, v+vl) is within the sum the user named, [m, m+ml) (both in normal
// form): its number at most the named one, in the same currency (or neither gives one); maybe
// when only one of them gives a currency; NO for another currency or a larger number.
export function amountWithin(v: usize, vl: u32, m: usize, ml: u32): u32 {
  const vn = amountSplit(v, vl);
  const vc = amountCode;
  const mn = amountSplit(m, ml);
  const mc = amountCode;
  if (vn < 0 || mn < 0 || !decimalAtMost(v, <u32>vn, m, <u32>mn)) return NO;
  if (vc == 0 && mc == 0) return YES;
  if (vc != 0 && mc != 0) return sameBytes(vc, mc, 3) ? YES : NO;
  return MAYBE;
}
