// The walk a LIST set's GLOB_INDEX (docs/bytecode.md §3.6) gives a value: only the members filed
// under a key the value has, and those filed under none, can hold for it, whether a member holds
// as a glob (§6.4) or as a path at or below which the value lies. A set with no index is walked whole.
import { GLOB_KEY_MAX } from "../../bytecode/format";
import { fnv1a } from "../abi/bytes";
import { globIndexOf, setMemberCount } from "./decode";

// Whether member `member` of LIST set `set` holds for the value [p, p+len).
export type MemberTest = (set: u32, member: u32, p: usize, len: u32) => bool;

export function someMemberHolds(set: u32, p: usize, len: u32, holds: MemberTest): bool {
  const index = globIndexOf(set);
  if (index == 0) return restHolds(set, 0, setMemberCount(set), p, len, holds);
  const segments = load<u32>(index), heads = load<u32>(index + 4), tails = load<u32>(index + 8);
  const segmentList = index + 28;
  const headList = segmentList + ((<usize>segments) << 3);
  const tailList = headList + ((<usize>heads) << 3);
  const restList = tailList + ((<usize>tails) << 3);
  let name = len; // where the file name starts
  while (name > 0 && load<u8>(p + name - 1) != 0x2f) name--;
  // Only a segment of a length some key has is looked up.
  const keyLengths = load<u32>(index + 16);
  let start: u32 = 0;
  for (let i: u32 = 0; i <= len; i++) {
    if (i < len && load<u8>(p + i) != 0x2f) continue;
    const l = min(i - start, GLOB_KEY_MAX);
    if (l > 0 && ((keyLengths >> (l - 1)) & 1) != 0 &&
        filedHolds(set, segmentList, segments, fnv1a(p + start, i - start), p, len, holds)) return true;
    start = i + 1;
  }
  // Heads, then tails: for each length filed, the first or last bytes of the file name.
  for (let kind: u32 = 1; kind <= 2; kind++) {
    const count = load<u32>(index + (<usize>kind << 2));
    let lengths = load<u32>(index + 16 + (<usize>kind << 2));
    while (count > 0 && lengths != 0) {
      const l = ctz(lengths) + 1;
      lengths &= lengths - 1;
      if (l > len - name) break;
      const key = fnv1a(kind == 1 ? p + name : p + len - l, l);
      if (filedHolds(set, kind == 1 ? headList : tailList, count, key, p, len, holds)) return true;
    }
  }
  return restHolds(set, restList, load<u32>(index + 12), p, len, holds);
}

// A member of the `count` listed at `list`, or of the set's first `count` when `list` is 0, holds.
function restHolds(set: u32, list: usize, count: u32, p: usize, len: u32, holds: MemberTest): bool {
  for (let k: u32 = 0; k < count; k++) {
    if (holds(set, list != 0 ? load<u32>(list + ((<usize>k) << 2)) : k, p, len)) return true;
  }
  return false;
}

// A member filed under `hash` in a list of (hash, member) pairs in ascending order holds.
function filedHolds(set: u32, list: usize, count: u32, hash: u32, p: usize, len: u32, holds: MemberTest): bool {
  let lo: u32 = 0, hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (load<u32>(list + ((<usize>mid) << 3)) < hash) lo = mid + 1;
    else hi = mid;
  }
  for (let k = lo; k < count && load<u32>(list + ((<usize>k) << 3)) == hash; k++) {
    if (holds(set, load<u32>(list + ((<usize>k) << 3) + 4), p, len)) return true;
  }
  return false;
}
