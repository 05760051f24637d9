// The normal form of an object (docs/bytecode.md §6.8): trimmed, white space runs made one
// space, ASCII lower-cased, and an IBAN without its spaces; and the IBAN check it uses.
import { scratchAlloc } from "../abi/mem";
import { isAsciiDigit, isSpace, lowerAscii } from "../abi/bytes";
import { span } from "../readers/normalize";

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

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
export function isIban(p: usize, len: u32): bool {
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
