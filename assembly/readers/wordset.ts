// A set of words the text modules consult: a HASH or KEYS set of the installed policy
// (docs/bytecode.md §4), or an explicit newline-separated list. The text modules take sets as
// parameters in this form, so they run (and are unit-tested) without a policy.
import { NONE } from "../../bytecode/format";
import { setFindHashed } from "../policy/decode";
import { fnv1a, sameBytes } from "../abi/bytes";

// A word set is a u64: a policy set index (below 2^32), or (ptr << 32 | len) of a list.
export const NO_WORDS: u64 = <u64>NONE;

export function policyWords(set: u32): u64 {
  return <u64>set;
}

export function listWords(p: usize, len: u32): u64 {
  return ((<u64>p) << 32) | <u64>len;
}

// The member's value (a policy set's value; a list member's line number), or -1 when absent.
export function wordValue(set: u64, p: usize, len: u32): i64 {
  return wordValueHashed(set, p, len, set >>> 32 == 0 ? fnv1a(p, len) : 0);
}

@inline export function hasWord(set: u64, p: usize, len: u32): bool {
  return wordValue(set, p, len) >= 0;
}

// wordValue for a word whose FNV-1a is known (several sets looked up with one hash).
export function wordValueHashed(set: u64, p: usize, len: u32, fnv: u32): i64 {
  if (set == NO_WORDS) return -1;
  if (set >>> 32 == 0) return setFindHashed(<u32>set, p, len, fnv);
  const list = <usize>(set >>> 32);
  const n = <u32>set;
  let start: u32 = 0;
  let line: i64 = 0;
  for (let i: u32 = 0; i <= n; i++) {
    if (i == n || load<u8>(list + i) == 0x0a) {
      if (i - start == len && sameBytes(list + start, p, len)) return line;
      start = i + 1;
      line++;
    }
  }
  return -1;
}
