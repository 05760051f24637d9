// Read access to the installed policy. verify.ts has checked every offset, index and bound
// named in docs/bytecode.md before install, so these accessors read without checks.
import {
  SECTION_COUNT, SETKIND_HASH,
} from "./format";
import { bytesEqual, fnv1a } from "./bytes";

// Address of the installed copy of the bytecode (0: no policy), and of each section by kind.
export let policyBase: usize = 0;
const sectionAddr: usize = memory.data(4 * (SECTION_COUNT + 1));

export function setPolicyBase(base: usize): void {
  policyBase = base;
}

export function setSection(kind: u32, addr: usize): void {
  store<u32>(sectionAddr + ((<usize>kind) << 2), <u32>addr);
}

export function section(kind: u32): usize {
  return <usize>load<u32>(sectionAddr + ((<usize>kind) << 2));
}

// ---- STRINGS ----
// The blob follows the count and its count+1 offsets.
export function strCount(): u32 {
  return load<u32>(section(1));
}

export function strPtr(i: u32): usize {
  const s = section(1);
  const count = load<u32>(s);
  return s + 4 + ((<usize>count + 1) << 2) + <usize>load<u32>(s + 4 + ((<usize>i) << 2));
}

export function strLen(i: u32): u32 {
  const at = section(1) + 4 + ((<usize>i) << 2);
  return load<u32>(at + 4) - load<u32>(at);
}

// ---- SETS ----
export function setAddr(i: u32): usize {
  const s = section(2);
  return s + <usize>load<u32>(s + 4 + ((<usize>i) << 2));
}

export function setKind(i: u32): u32 {
  return load<u8>(setAddr(i));
}

export function setMemberCount(i: u32): u32 {
  return load<u32>(setAddr(i) + 4);
}

// HASH lookup (§4): the member's value, or -1 when [p, p+len) is not a member.
export function setFind(i: u32, p: usize, len: u32): i64 {
  const s = setAddr(i);
  const buckets = load<u32>(s + 8);
  if (buckets == 0) return -1;
  const mask = buckets - 1;
  let b = fnv1a(p, len) & mask;
  while (true) {
    const e = s + 12 + ((<usize>b) << 3);
    const key1 = load<u32>(e);
    if (key1 == 0) return -1;
    const k = key1 - 1;
    if (bytesEqual(strPtr(k), strLen(k), p, len)) return <i64>load<u32>(e + 4);
    b = (b + 1) & mask;
  }
}

// LIST members (§4), in policy order.
export function listKey(i: u32, j: u32): u32 {
  return load<u32>(setAddr(i) + 12 + ((<usize>j) << 3));
}

export function listValue(i: u32, j: u32): u32 {
  return load<u32>(setAddr(i) + 16 + ((<usize>j) << 3));
}

export function isHashSet(i: u32): bool {
  return setKind(i) == SETKIND_HASH;
}

// ---- SETTINGS ----
// Sorted by key with every key present once, so key k is entry k-1.
export function settingValue(key: u32): u32 {
  return load<u32>(section(9) + 4 + ((<usize>(key - 1)) << 3) + 4);
}
