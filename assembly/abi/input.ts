// The input buffer the host writes each call's bytes into (docs/bytecode.md §8, `input`).
import { alloc, free, blockSize } from "./mem";

// Larger than any limit a policy sets in practice; a request above it gets 0 from `input`.
export const MAX_INPUT_BYTES: u32 = (64 << 20) - 64;

let buffer: usize = 0;

// The buffer's address for at least `size` bytes, or 0 when `size` is too large or memory is
// exhausted. The buffer moves only when a request outgrows it.
export function inputReserve(size: u32): usize {
  if (size > MAX_INPUT_BYTES) return 0;
  if (buffer != 0 && <usize>size <= blockSize(buffer)) return buffer;
  const fresh = alloc(max<usize>(size, 256));
  if (fresh == 0) return 0;
  free(buffer);
  buffer = fresh;
  return buffer;
}

export function inputPtr(): usize {
  return buffer;
}

// Whether the host can have written `n` bytes into the buffer.
export function inputHolds(n: u64): bool {
  return buffer != 0 && n <= <u64>blockSize(buffer);
}
