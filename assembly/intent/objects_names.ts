// The passes of bindObjects that read names in the word table: quoted phrases, proper names,
// IBANs written in groups, and ids ("INV-2024-17", "#123", owner/name, a URL's path segments).
import { SUBJ_OBJECT } from "../../bytecode/format";
import { scratchAlloc } from "../abi/mem";
import { isAsciiAlpha, isAsciiDigit, lowerAscii } from "../abi/bytes";
import { span } from "../readers/normalize";
import { findUrl, urlEnd } from "../readers/scan";
import { objectNormal, isIban } from "./objects_normal";
import {
  W_CAPITAL, W_OPENS, W_BREAK_AFTER, W_BREAK_BEFORE, W_USED, W_DIGIT, W_MARK, W_NEWLINE, OPEN_SHIFT, CLOSE_SHIFT,
  count, wStart, wEnd, wFlags, wMark, wLen, CONNECTORS, ARTICLES, list, listed,
} from "./objects_words";
import { OBJECT_MAX, objectStart, give, object } from "./objects_items";

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
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
export function names(p: usize): bool {
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
export function ibans(p: usize): bool {
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
export function quoted(p: usize): bool {
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

// Ids: words with a digit and a letter, '-' or '_'; "#123"; owner/name; a URL's path segments.
export function ids(p: usize, len: u32): bool {
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
