// Byte strings for the specs: the modules under test take (pointer, length) UTF-8 ranges.
import { configureEnv, spanPtr, spanLen } from "../readers/normalize";

// Buffers stay referenced so the test runtime's collector keeps them where they are.
const kept: ArrayBuffer[] = [];
export let lastLen: u32 = 0;

// The UTF-8 bytes of `s`; their length in lastLen.
export function utf8(s: string): usize {
  const b = String.UTF8.encode(s);
  kept.push(b);
  lastLen = <u32>b.byteLength;
  return changetype<usize>(b);
}

// Raw bytes (for invalid UTF-8); their length in lastLen.
export function raw(values: u8[]): usize {
  const b = new ArrayBuffer(values.length);
  for (let i = 0; i < values.length; i++) store<u8>(changetype<usize>(b) + i, values[i]);
  kept.push(b);
  lastLen = <u32>values.length;
  return changetype<usize>(b);
}

// `s` repeated n times, as bytes.
export function repeated(s: string, n: i32): usize {
  const unit = String.UTF8.encode(s);
  const size = unit.byteLength * n;
  const b = new ArrayBuffer(size);
  for (let i = 0; i < n; i++) memory.copy(changetype<usize>(b) + i * unit.byteLength, changetype<usize>(unit), unit.byteLength);
  kept.push(b);
  lastLen = <u32>size;
  return changetype<usize>(b);
}

export function text(p: usize, len: u32): string {
  return String.UTF8.decodeUnsafe(p, len);
}

// The text of a (ptr << 32 | len) result; "<none>" for 0.
export function spanText(s: u64): string {
  return s == 0 ? "<none>" : text(spanPtr(s), spanLen(s));
}

// Home /home/user and working directory /home/user/project, as every test's paths assume.
export function configureTestEnv(): void {
  const home = utf8("/home/user");
  const homeLen = lastLen;
  const cwd = utf8("/home/user/project");
  configureEnv(home, homeLen, cwd, lastLen, 0, 0, 0);
}
