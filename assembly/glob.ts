// Glob matching of docs/bytecode.md §6.4: `*` matches any run of bytes other than '/', `**`
// (any run of two or more stars) any run of bytes, and `/**/` also a single '/' (zero
// directories), `?` one byte other than '/'; every other byte is literal. The pattern runs as an automaton over the value with one bit per pattern
// position, so no pattern or value costs more than O(|pattern| · |value|): there is no
// backtracking to blow up.
import { scratchAlloc } from "./mem";
import { sameBytes } from "./bytes";

const STAR: u32 = 0x2a;
const QUESTION: u32 = 0x3f;
const SLASH: u32 = 0x2f;

// Two state sets for patterns up to STATIC_WORDS·32 - 1 bytes; longer ones use scratch.
const STATIC_WORDS: u32 = 64;
const staticStates: usize = memory.data(<i32>(STATIC_WORDS << 3));

// The position after the star run that starts at i.
function afterStars(pat: usize, patLen: u32, i: u32): u32 {
  let j = i;
  while (j < patLen && load<u8>(pat + j) == STAR) j++;
  return j;
}

@inline function setBit(set: usize, i: u32): void {
  const at = set + ((<usize>(i >> 5)) << 2);
  store<u32>(at, load<u32>(at) | (1 << (i & 31)));
}

// Adds, for every active star position, the position after its run (a star may match nothing).
// Positions only grow, so one ascending pass suffices.
function closeOverStars(pat: usize, patLen: u32, set: usize, words: u32): void {
  for (let w: u32 = 0; w < words; w++) {
    let bits = load<u32>(set + ((<usize>w) << 2));
    while (bits != 0) {
      const i = (w << 5) + ctz(bits);
      bits &= bits - 1;
      if (i < patLen && load<u8>(pat + i) == STAR) {
        const next = afterStars(pat, patLen, i);
        setBit(set, next);
        if (next >> 5 == w) bits |= 1 << (next & 31);
      }
    }
  }
}

// When a run of two or more stars starts at i between two '/' (`/**/`), the position after
// its closing '/', which a match may enter directly (zero directories); else 0.
function dirStarSkip(pat: usize, patLen: u32, i: u32): u32 {
  if (i == 0 || i + 1 >= patLen || load<u8>(pat + i - 1) != SLASH) return 0;
  if (load<u8>(pat + i) != STAR || load<u8>(pat + i + 1) != STAR) return 0;
  const next = afterStars(pat, patLen, i);
  return next < patLen && load<u8>(pat + next) == SLASH ? next + 1 : 0;
}

// Enters position i, and past a `**/` that starts there (it may match nothing).
function enter(pat: usize, patLen: u32, set: usize, i: u32): void {
  setBit(set, i);
  const skip = dirStarSkip(pat, patLen, i);
  if (skip != 0) setBit(set, skip);
}

// For the prefilter: a wildcard, or the '/' closing a `/**/`, which a match may skip.
@inline function isWildcardAt(pat: usize, i: u32): bool {
  const c = <u32>load<u8>(pat + i);
  if (c == STAR || c == QUESTION) return true;
  if (c != SLASH || i < 3) return false;
  let j = i;
  while (j > 0 && load<u8>(pat + j - 1) == STAR) j--;
  return i - j >= 2 && dirStarSkip(pat, i + 1, j) == i + 1;
}

// Whether the literal run [lit, lit+litLen) occurs in [s, s+sLen).
function occursIn(lit: usize, litLen: u32, s: usize, sLen: u32): bool {
  if (litLen > sLen) return false;
  const first = load<u8>(lit);
  for (let k: u32 = 0; k + litLen <= sLen; k++) {
    if (load<u8>(s + k) == first && sameBytes(s + k, lit, litLen)) return true;
  }
  return false;
}

// A necessary condition, cheap to test: the literal bytes before the first wildcard start the
// value, those after the last one end it, and every literal run between lies in what is left.
// Most values fail it, so the automaton below only runs on near-matches; it decides alone.
function literalsFit(pat: usize, patLen: u32, s: usize, sLen: u32): bool {
  let head: u32 = 0;
  while (head < patLen && !isWildcardAt(pat, head)) head++;
  if (head == patLen) return sLen == patLen && sameBytes(pat, s, patLen);
  let tailStart = patLen;
  while (!isWildcardAt(pat, tailStart - 1)) tailStart--;
  const tail = patLen - tailStart;
  if (<u64>head + <u64>tail > <u64>sLen) return false;
  if (!sameBytes(pat, s, head)) return false;
  if (!sameBytes(pat + tailStart, s + sLen - tail, tail)) return false;
  const middle = s + head, middleLen = sLen - head - tail;
  let i = head;
  while (i < tailStart) {
    while (i < tailStart && isWildcardAt(pat, i)) i++;
    const start = i;
    while (i < tailStart && !isWildcardAt(pat, i)) i++;
    if (i > start && !occursIn(pat + start, i - start, middle, middleLen)) return false;
  }
  return true;
}

export function globMatch(pat: usize, patLen: u32, s: usize, sLen: u32): bool {
  if (!literalsFit(pat, patLen, s, sLen)) return false;
  const words = (patLen >> 5) + 1; // positions 0..patLen, patLen meaning "matched"
  let cur: usize;
  if (words <= STATIC_WORDS) {
    cur = staticStates;
  } else {
    cur = scratchAlloc((<usize>words) << 3);
    if (cur == 0) return false;
  }
  let next = cur + ((<usize>words) << 2);
  memory.fill(cur, 0, (<usize>words) << 2);
  enter(pat, patLen, cur, 0);
  closeOverStars(pat, patLen, cur, words);
  for (let k: u32 = 0; k < sLen; k++) {
    const c = <u32>load<u8>(s + k);
    memory.fill(next, 0, (<usize>words) << 2);
    let any = false;
    for (let w: u32 = 0; w < words; w++) {
      let bits = load<u32>(cur + ((<usize>w) << 2));
      while (bits != 0) {
        const i = (w << 5) + ctz(bits);
        bits &= bits - 1;
        if (i >= patLen) continue;
        const t = <u32>load<u8>(pat + i);
        if (t == STAR) {
          // Only the first star of a run is ever active; a run of two or more crosses '/'.
          const crosses = i + 1 < patLen && load<u8>(pat + i + 1) == STAR;
          if (crosses || c != SLASH) { setBit(next, i); any = true; }
        } else if (t == QUESTION ? c != SLASH : t == c) {
          enter(pat, patLen, next, i + 1);
          any = true;
        }
      }
    }
    if (!any) return false;
    closeOverStars(pat, patLen, next, words);
    const swap = cur;
    cur = next;
    next = swap;
  }
  return (load<u32>(cur + ((<usize>(patLen >> 5)) << 2)) & (1 << (patLen & 31))) != 0;
}
