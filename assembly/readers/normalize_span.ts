// What every normal form of normalize_*.ts is made with: its result as a span (ptr << 32 | len)
// in the per-call scratch arena, the flag set when scratch runs out, the trimming each starts with.
import { scratchAlloc } from "../abi/mem";
import { isSpace } from "../abi/bytes";

// Set when a normal form could not be written for want of memory (0 alone cannot tell).
let outOfMemory = false;

@inline export function takeOutOfMemory(): bool {
  const o = outOfMemory;
  outOfMemory = false;
  return o;
}

export function scratch(n: usize): usize {
  const p = scratchAlloc(n);
  if (p == 0) outOfMemory = true;
  return p;
}

// The byte paths and URLs split on.
export const SLASH: u32 = 0x2f;

@inline export function span(p: usize, len: u32): u64 {
  return ((<u64>p) << 32) | <u64>len;
}

@inline export function spanPtr(s: u64): usize {
  return <usize>(s >>> 32);
}

@inline export function spanLen(s: u64): u32 {
  return <u32>s;
}

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// [p+start, p+end) without leading and trailing ASCII white space, as (start << 32 | end).
export function trimmed(p: usize, start: u32, end: u32): u64 {
  while (start < end && isSpace(at(p, start))) start++;
  while (end > start && isSpace(at(p, end - 1))) end--;
  return ((<u64>start) << 32) | <u64>end;
}
