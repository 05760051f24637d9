// The answer of an ABI call: one record, `u32 length` then the bytes (docs/bytecode.md §8).
// A record lives until the next call begins another.
import { alloc, blockSize, realloc, grewThisCall } from "./mem";

let buf: usize = 0; // the record's length word; bytes follow
let cap: usize = 0; // buf's usable size: most writes fit and skip realloc
let len: u32 = 0;
let failed = false;

// Returned when memory for the real record cannot be had: a decision record that blocks
// (docs/bytecode.md §8.1), whose first byte also reads as a failed status for other calls.
const OOM_RECORD: usize = memory.data<u8>([114, 0, 0, 0, 1, 13, 0, 0, 0, 0, 0, 0, 77, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 111, 117, 116, 95, 111, 102, 95, 109, 101, 109, 111, 114, 121, 65, 103, 101, 110, 116, 115, 70, 101, 110, 99, 101, 32, 98, 108, 111, 99, 107, 101, 100, 32, 116, 104, 101, 32, 99, 97, 108, 108, 58, 32, 116, 104, 101, 32, 101, 118, 97, 108, 117, 97, 116, 111, 114, 32, 114, 97, 110, 32, 111, 117, 116, 32, 111, 102, 32, 109, 101, 109, 111, 114, 121, 32, 91, 111, 117, 116, 95, 111, 102, 95, 109, 101, 109, 111, 114, 121, 93], 8);

export function outBegin(): void {
  len = 0;
  failed = false;
  if (buf == 0) {
    buf = alloc(4096);
    if (buf == 0) failed = true;
    else cap = blockSize(buf);
  }
}

// Inlined: every write of a record goes through it, and a call costs as much as its work.
@inline function reserve(n: u32): usize {
  if (failed) return 0;
  const need = <usize>4 + <usize>len + <usize>n;
  if (need > cap) {
    const grown = realloc(buf, need);
    if (grown == 0) { failed = true; return 0; }
    buf = grown;
    cap = blockSize(buf);
  }
  const at = buf + 4 + len;
  len += n;
  return at;
}

export function outLength(): u32 {
  return len;
}

export function outByte(v: u32): void {
  const at = reserve(1);
  if (at != 0) store<u8>(at, <u8>v);
}

export function outU16(v: u32): void {
  const at = reserve(2);
  if (at != 0) store<u16>(at, <u16>v);
}

export function outU32(v: u32): void {
  const at = reserve(4);
  if (at != 0) store<u32>(at, v);
}

export function outBytes(p: usize, n: u32): void {
  const at = reserve(n);
  if (at != 0) memory.copy(at, p, n);
}

// `n` zero bytes, for a header whose fields are patched in later.
export function outZeros(n: u32): void {
  const at = reserve(n);
  if (at != 0) memory.fill(at, 0, n);
}

// An entry `u8 subject, u32 length, bytes` (docs/bytecode.md §8.1: the witness, the targets).
export function outEntry(subject: u32, p: usize, n: u32): void {
  const at = reserve(5 + n);
  if (at == 0) return;
  store<u8>(at, <u8>subject);
  store<u32>(at + 1, n);
  memory.copy(at + 5, p, n);
}

// A message text of the module: the address of a u8 length, then that many ASCII bytes. A string
// literal where a Text is expected is stored so by scripts/text-transform.mjs (a third of the size
// of a UTF-16 string object).
export type Text = usize;

@inline export function textLen(t: Text): u32 {
  return <u32>load<u8>(t);
}

@inline export function textPtr(t: Text): usize {
  return t + 1;
}

export function outAscii(s: Text): void {
  outBytes(textPtr(s), textLen(s));
}

export function outDecimal(v: u32): void {
  if (v >= 10) outDecimal(v / 10);
  outByte(0x30 + v % 10);
}

export function outHexByte(v: u32): void {
  const digits: Text = "0123456789abcdef";
  outByte(<u32>load<u8>(textPtr(digits) + (v >> 4)));
  outByte(<u32>load<u8>(textPtr(digits) + (v & 15)));
}

// Overwrites bytes already written, at an offset from the start of the record's bytes.
export function outPatchU8(offset: u32, v: u32): void {
  if (!failed) store<u8>(buf + 4 + offset, <u8>v);
}

export function outPatchU16(offset: u32, v: u32): void {
  if (!failed) store<u16>(buf + 4 + offset, <u16>v);
}

export function outPatchU32(offset: u32, v: u32): void {
  if (!failed) store<u32>(buf + 4 + offset, v);
}

// Closes the record and returns its address, bit 0 set when memory grew during the call.
export function outFinish(): u32 {
  const grew: u32 = grewThisCall() ? 1 : 0;
  if (failed) return <u32>OOM_RECORD | grew;
  store<u32>(buf, len);
  return <u32>buf | grew;
}

// Ends a record whose status byte said it failed with the reason why.
export function outFailure(why: Text): u32 {
  outAscii(why);
  return outFinish();
}

export function outFailed(): bool {
  return failed;
}
