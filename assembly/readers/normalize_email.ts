// E-mail addresses in normal form (docs/bytecode.md §6), and whether a value reads as one address.
import { isSpace, lowerAscii } from "../abi/bytes";
import { span, scratch, trimmed } from "./normalize_span";

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// The address in [p, p+len): trimmed, the display name and angle brackets dropped (the last
// '<' outside double quotes wins), a "mailto:" dropped, ASCII lower-cased, no trailing dot.
export function normalizeEmail(p: usize, len: u32): u64 {
  const t = trimmed(p, 0, len);
  let start = <u32>(t >>> 32);
  let end = <u32>t;
  let quoted = false;
  let lt: i64 = -1;
  for (let i = start; i < end; i++) {
    const c = at(p, i);
    if (quoted && c == 0x5c) { i++; continue; }
    if (c == 0x22) quoted = !quoted;
    else if (c == 0x3c && !quoted) lt = i;
  }
  if (lt >= 0) {
    start = <u32>lt + 1;
    let j = start;
    while (j < end && at(p, j) != 0x3e) j++;
    end = j;
  }
  const u = trimmed(p, start, end);
  start = <u32>(u >>> 32);
  end = <u32>u;
  if (end - start >= 7 && lowerAscii(at(p, start)) == 0x6d && lowerAscii(at(p, start + 1)) == 0x61 &&
      lowerAscii(at(p, start + 2)) == 0x69 && lowerAscii(at(p, start + 3)) == 0x6c &&
      lowerAscii(at(p, start + 4)) == 0x74 && lowerAscii(at(p, start + 5)) == 0x6f && at(p, start + 6) == 0x3a) {
    start += 7;
  }
  while (end > start && at(p, end - 1) == 0x2e) end--;
  if (end <= start) return 0;
  const n = end - start;
  const out = scratch(<usize>n);
  if (out == 0) return 0;
  for (let i: u32 = 0; i < n; i++) store<u8>(out + i, <u8>lowerAscii(at(p, start + i)));
  return span(out, n);
}

// Whether [p, p+len) reads as one address: local@domain with one '@', a local part free of
// white space and of the ':' '/' '#' of other handles ("matrix:@user:server.org"), and a
// dotted domain of host characters.
export function isAddress(p: usize, len: u32): bool {
  let atSign: i32 = -1;
  let dot = false;
  for (let i: u32 = 0; i < len; i++) {
    const c = at(p, i);
    if (isSpace(c) || c == 0x2c || c == 0x3b || c == 0x3c || c == 0x3e || c == 0x3a || c == 0x2f || c == 0x23) return false;
    if (c == 0x40) {
      if (atSign >= 0) return false;
      atSign = <i32>i;
    } else if (c == 0x2e && atSign >= 0) {
      dot = true;
    }
  }
  return atSign > 0 && <u32>atSign + 1 < len && dot;
}
