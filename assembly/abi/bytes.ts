// Byte-level helpers over linear memory. Every string the evaluator handles is a
// (pointer, length) pair of UTF-8 bytes; nothing here allocates.
import { Text, textLen, textPtr } from "./out";

// Whether the `n` bytes at a and at b are the same: eight at a time, then one by one (the
// library's memory.compare goes byte by byte in a build optimized for size).
export function sameBytes(a: usize, b: usize, n: u32): bool {
  let i: u32 = 0;
  for (; i + 8 <= n; i += 8) if (load<u64>(a + i) != load<u64>(b + i)) return false;
  for (; i < n; i++) if (load<u8>(a + i) != load<u8>(b + i)) return false;
  return true;
}

export function bytesEqual(a: usize, aLen: u32, b: usize, bLen: u32): bool {
  return aLen == bLen && sameBytes(a, b, aLen);
}

// The `len` bytes at a and at b are equal but for the case of ASCII letters.
export function equalsAsciiFold(a: usize, b: usize, len: u32): bool {
  for (let i: u32 = 0; i < len; i++) {
    if (lowerAscii(load<u8>(a + i)) != lowerAscii(load<u8>(b + i))) return false;
  }
  return true;
}

export function startsWith(s: usize, sLen: u32, prefix: usize, prefixLen: u32): bool {
  return prefixLen <= sLen && sameBytes(s, prefix, prefixLen);
}

// FNV-1a, 32 bit (docs/bytecode.md §1): the hash of every HASH set.
export function fnv1a(p: usize, len: u32): u32 {
  let h: u32 = 0x811c9dc5;
  let i: u32 = 0;
  // Four bytes a step (wasm loads little-endian): the same hash with a quarter of the loop's turns.
  for (; i + 4 <= len; i += 4) {
    const w = load<u32>(p + i);
    h = (h ^ (w & 0xff)) * 0x01000193;
    h = (h ^ ((w >>> 8) & 0xff)) * 0x01000193;
    h = (h ^ ((w >>> 16) & 0xff)) * 0x01000193;
    h = (h ^ (w >>> 24)) * 0x01000193;
  }
  for (; i < len; i++) h = (h ^ <u32>load<u8>(p + i)) * 0x01000193;
  return h;
}

@inline export function lowerAscii(c: u32): u32 {
  return c - 0x41 < 26 ? c | 0x20 : c;
}

@inline export function isAsciiAlpha(c: u32): bool {
  return (c | 0x20) - 0x61 < 26;
}

@inline export function isAsciiDigit(c: u32): bool {
  return c - 0x30 < 10;
}

// Whether ASCII byte c is in the 128-bit map at `set` (16 bytes, bit c & 7 of byte c >> 3).
export function inSet(set: usize, c: u32): bool {
  return c < 128 && (load<u8>(set + (c >> 3)) & (1 << (c & 7))) != 0;
}

// The value of hex digit c, -1 for any other byte.
export function hexDigit(c: u32): i32 {
  if (c - 0x30 < 10) return <i32>(c - 0x30);
  const l = c | 0x20;
  if (l - 0x61 < 6) return <i32>(l - 0x61 + 10);
  return -1;
}

@inline export function isSpace(c: u32): bool {
  return c == 0x20 || c - 0x09 < 5; // space, \t \n \v \f \r
}

// A two-byte UTF-8 character c d as the binder folds it (§7.3), as c << 8 | d: a Latin-1 capital
// (U+00C0..U+00DE but U+00D7) or a Cyrillic one (U+0400..U+042F: Ѐ..Џ to ѐ..џ, А..П to а..п,
// Р..Я to р..я) to its lower case, in two bytes still; any other unchanged.
export function foldPair(c: u32, d: u32): u32 {
  if (c == 0xc3 && d - 0x80 < 0x1f && d != 0x97) return 0xc300 | (d + 0x20);
  if (c == 0xd0 && d - 0x80 < 0x30) return d < 0x90 ? 0xd100 | (d + 0x10) : d < 0xa0 ? 0xd000 | (d + 0x20) : 0xd100 | (d - 0x20);
  return c << 8 | d;
}

// Copies `len` bytes to fresh scratch-free memory at `dst`, lower-casing ASCII letters.
export function copyLower(dst: usize, src: usize, len: u32): void {
  for (let i: u32 = 0; i < len; i++) store<u8>(dst + i, <u8>lowerAscii(load<u8>(src + i)));
}

// Index of the first `c` in [p, p+len) at or after `from`, or -1.
export function indexOfByte(p: usize, len: u32, c: u32, from: u32): i32 {
  for (let i = from; i < len; i++) if (<u32>load<u8>(p + i) == c) return <i32>i;
  return -1;
}

// Whether [p, p+len) is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF).
export function validUtf8(p: usize, len: u32): bool {
  let i: u32 = 0;
  while (i < len) {
    // ASCII eight bytes at a time: most of a call's bytes are.
    while (i + 8 <= len && (load<u64>(p + i) & 0x8080808080808080) == 0) i += 8;
    if (i >= len) break;
    const c = <u32>load<u8>(p + i);
    if (c < 0x80) { i++; continue; }
    let n: u32; let min: u32; let cp: u32;
    if ((c & 0xe0) == 0xc0) { n = 1; min = 0x80; cp = c & 0x1f; }
    else if ((c & 0xf0) == 0xe0) { n = 2; min = 0x800; cp = c & 0x0f; }
    else if ((c & 0xf8) == 0xf0) { n = 3; min = 0x10000; cp = c & 0x07; }
    else return false;
    for (let k: u32 = 1; k <= n; k++) {
      if (i + k >= len) return false;
      const d = <u32>load<u8>(p + i + k);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n + 1;
  }
  return true;
}

// Whether [p, p+len) holds exactly the text `s`.
export function equalsAscii(p: usize, len: u32, s: Text): bool {
  return bytesEqual(p, len, textPtr(s), textLen(s));
}
