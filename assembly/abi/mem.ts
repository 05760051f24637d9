// The pages this allocator grows belong to it alone. The evaluator allocates no managed
// objects (no `new`, no String or Array operations), so the AssemblyScript runtime's own heap
// stays empty; where it is not (the unit tests), the two never share a page.
//
// Blocks come in size classes of a power of two and one and a quarter, a half and three quarters
// times one (32, 40, 48, 56, 64, 80, ... B to 1 GiB, each a multiple of 8) with one free list per
// class: sessions come and go, and a freed block is reused by the next one of its class. The
// quarter steps keep what a block wastes under a fifth of it (a session's intent store of 1.1 KB
// takes 1.25 KB, not 1.5 or 2): a session keeps its block as long as it lives.
// Per-call work uses the scratch arena below, which is reset at the start of every call.

const HEADER: usize = 8; // u32 size class, u32 unused; the payload follows
const CLASS_COUNT: u32 = 101; // class 100 is 1 GiB
const MAX_BLOCK: usize = 0x40000000;
const GROW_STEP_PAGES: i32 = 16; // grow at least 1 MiB at a time: fewer host refreshes

const freeHeads: usize = memory.data(<i32>(CLASS_COUNT << 2)); // CLASS_COUNT u32 heads
let top: usize = 0;   // next unclaimed byte of the region this allocator grew
let limit: usize = 0; // end of that region
let grew: bool = false;

// Whether memory grew during this call (every export starts with scratchReset, which clears
// it); the ABI tells the host. Reading it does not clear it: a record one export builds inside
// another (explain decides first) must not take the news from the record the host reads.
@inline export function grewThisCall(): bool {
  return grew;
}

function sizeClass(size: usize): u32 {
  const need = <u32>(size + HEADER);
  if (need <= 32) return 0;
  const power = 31 - clz<u32>(need - 1); // 2^power < need <= 2^(power+1)
  const quarters = (need - (1 << power) + (1 << (power - 2)) - 1) >> (power - 2); // 1 to 4
  return ((power - 5) << 2) + quarters;
}

// The bytes of a block of class k, header included: (4 + k % 4) quarters of 2^(k / 4 + 5).
@inline function classBytes(k: u32): usize {
  return (<usize>(4 + (k & 3))) << ((k >> 2) + 3);
}

// Claims only memory this allocator grew itself. The AssemblyScript runtime's heap also starts
// at __heap_base; it is empty in the evaluator but not in the unit tests (as-pect needs a
// runtime), and pages another grower added are skipped the same way.
function claim(bytes: usize): usize {
  const have = (<usize>memory.size()) << 16;
  if (have != limit) {
    top = have;
    limit = have;
  }
  const end = top + bytes;
  if (end > limit) {
    const pages = <i32>((end - limit + 0xffff) >>> 16);
    if (memory.grow(max(pages, GROW_STEP_PAGES)) < 0 && memory.grow(pages) < 0) return 0;
    grew = true;
    limit = (<usize>memory.size()) << 16;
  }
  const block = top;
  top = end;
  return block;
}

// Returns the address of at least `size` bytes, 8-aligned, or 0 when memory is exhausted.
export function alloc(size: usize): usize {
  if (size > MAX_BLOCK - HEADER) return 0;
  const k = sizeClass(size);
  const head = freeHeads + ((<usize>k) << 2);
  let block = <usize>load<u32>(head);
  if (block != 0) {
    store<u32>(head, load<u32>(block + HEADER));
  } else {
    block = claim(classBytes(k));
    if (block == 0) return 0;
  }
  store<u32>(block, k);
  return block + HEADER;
}

export function free(ptr: usize): void {
  if (ptr == 0) return;
  const block = ptr - HEADER;
  const head = freeHeads + ((<usize>load<u32>(block)) << 2);
  store<u32>(ptr, load<u32>(head));
  store<u32>(head, <u32>block);
}

// The usable size of a block returned by alloc.
export function blockSize(ptr: usize): usize {
  return classBytes(load<u32>(ptr - HEADER)) - HEADER;
}

// Grows a block to at least `size` bytes, keeping its content; 0 (and the old block kept) on failure.
export function realloc(ptr: usize, size: usize): usize {
  if (ptr != 0 && blockSize(ptr) >= size) return ptr;
  const fresh = alloc(size);
  if (fresh == 0) return 0;
  if (ptr != 0) {
    memory.copy(fresh, ptr, blockSize(ptr));
    free(ptr);
  }
  return fresh;
}

// ---- Scratch arena: bump allocation for one call, released by scratchReset. ----
const SCRATCH_FIRST: usize = 65536 - HEADER;
let scratchBase: usize = 0;
let scratchEnd: usize = 0;
let scratchTop: usize = 0;
let retired: usize = 0; // chunks outgrown during this call, linked through their first word

// Counts resets: what was computed in scratch memory under another epoch is gone.
export let scratchEpoch: u32 = 0;

export function scratchReset(): void {
  grew = false;
  scratchEpoch++;
  while (retired != 0) {
    const next = <usize>load<u32>(retired);
    free(retired);
    retired = next;
  }
  scratchTop = scratchBase + 8;
}

// Returns `size` bytes, 8-aligned, valid until the next scratchReset; 0 when memory is exhausted.
export function scratchAlloc(size: usize): usize {
  const n = (size + 7) & ~(<usize>7);
  if (scratchBase != 0 && scratchTop + n <= scratchEnd) {
    const p = scratchTop;
    scratchTop += n;
    return p;
  }
  const old = scratchEnd - scratchBase;
  let want = max<usize>(old << 1, SCRATCH_FIRST);
  while (want < n) want <<= 1;
  const chunk = alloc(want);
  if (chunk == 0) return 0;
  if (scratchBase != 0) {
    // Earlier allocations of this call stay valid: the old chunk is freed at the next reset,
    // linked through its first word, which the arena never hands out.
    store<u32>(scratchBase, <u32>retired);
    retired = scratchBase;
  }
  scratchBase = chunk;
  scratchEnd = chunk + blockSize(chunk);
  scratchTop = chunk + 8 + n;
  return chunk + 8;
}
