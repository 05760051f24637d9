// Glob matching of docs/bytecode.md §6.4: `*` matches any run of bytes other than '/', `**`
// (any run of two or more stars) any run of bytes, and `/**/` also a single '/' (zero
// directories), `?` one byte other than '/'; every other byte is literal. The pattern runs as an automaton over the value with one bit per pattern
// position, so no pattern or value costs more than O(|pattern| · |value|): there is no
// backtracking to blow up.
import { scratchAlloc } from "../abi/mem";
import { sameBytes } from "../abi/bytes";

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
function isWildcardAt(pat: usize, i: u32): bool {
  const c = <u32>load<u8>(pat + i);
  if (c == STAR || c == QUESTION) return true;
  if (c != SLASH || i < 3) return false;
  let j = i;
  while (j > 0 && load<u8>(pat + j - 1) == STAR) j--;
  return i - j >= 2 && dirStarSkip(pat, i + 1, j) == i + 1;
}

// Whether the literal run [lit, lit+litLen) occurs in [s, s+sLen). Each start is tried at the
// literal's first byte that is not '/' before the whole run is compared: the literals of path
// globs mostly start with a '/' (`**/.claude/**`), and a path is full of them, so the scan costs
// about one load and compare per byte of the value.
function occursIn(lit: usize, litLen: u32, s: usize, sLen: u32): bool {
  if (litLen > sLen) return false;
  let at: u32 = 0;
  while (at + 1 < litLen && load<u8>(lit + at) == SLASH) at++;
  const anchor = load<u8>(lit + at);
  const last = s + <usize>(sLen - litLen);
  for (let p = s; p <= last; p++) {
    if (load<u8>(p + at) == anchor && sameBytes(p, lit, litLen)) return true;
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
  if (!sameBytes(pat + tailStart, s + sLen - tail, tail)) return false;
  if (!sameBytes(pat, s, head)) return false;
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

// ---- patterns against patterns ----
// Targets a reader could not resolve to one literal are patterns too (§6.7): a rule's glob, a
// path it protects or a value the user named is then compared with every value the pattern can
// stand for. `globsMeet` answers whether some value matches both patterns: a walk over pairs of
// pattern positions, each pair visited once, so it costs O(|a| · |b|).
const MEET_MAX_STATES: u64 = 1 << 20;

// The epsilon moves of state (i, inside): past a star run that starts at i, or past a `/**/`
// that starts there when i was just entered (`inside` 0). A star that has consumed bytes is
// `inside` (1): it may end, but its `/**/` is no longer a way to match nothing.
function epsilonFrom(pat: usize, patLen: u32, i: u32, inside: u32, out: usize): u32 {
  let n: u32 = 0;
  if (i < patLen && load<u8>(pat + i) == STAR && (i == 0 || load<u8>(pat + i - 1) != STAR)) {
    store<u32>(out, afterStars(pat, patLen, i));
    n++;
  }
  const skip = inside == 0 ? dirStarSkip(pat, patLen, i) : 0;
  if (skip != 0) {
    store<u32>(out + (<usize>n << 2), skip);
    n++;
  }
  return n;
}

// What position i consumes: 0 nothing (the end, or a star inside its run), 1 one byte other
// than '/' forever (a single star), 2 any byte forever (a star run), 3 one byte other than '/'
// (`?`), 4 the literal byte `c`.
let tokenByte: u32 = 0;
function tokenAt(pat: usize, patLen: u32, i: u32): u32 {
  if (i >= patLen) return 0;
  const c = <u32>load<u8>(pat + i);
  if (c == STAR) {
    if (i > 0 && load<u8>(pat + i - 1) == STAR) return 0;
    return i + 1 < patLen && load<u8>(pat + i + 1) == STAR ? 2 : 1;
  }
  if (c == QUESTION) return 3;
  tokenByte = c;
  return 4;
}

// Whether one byte can be consumed by both tokens.
function compatible(ta: u32, ca: u32, tb: u32, cb: u32): bool {
  if (ta == 4 && tb == 4) return ca == cb;
  if (ta == 4) return tb == 2 || ca != SLASH;
  if (tb == 4) return ta == 2 || cb != SLASH;
  return true; // two wildcards share a byte other than '/'
}

// A state of the walk: (position in a, inside a's star, position in b, inside b's star).
@inline function stateOf(i: u32, ia: u32, j: u32, jb: u32, width: u64): u64 {
  return ((<u64>i * 2 + <u64>ia) * width) + <u64>j * 2 + <u64>jb;
}

export function globsMeet(a: usize, aLen: u32, b: usize, bLen: u32): bool {
  const width = (<u64>bLen + 1) * 2;
  const states = (<u64>aLen + 1) * 2 * width;
  if (states > MEET_MAX_STATES) return true; // too large to walk: the safe answer is "may"
  const seen = scratchAlloc(<usize>((states + 7) >> 3));
  const stack = scratchAlloc(<usize>(states << 2));
  if (seen == 0 || stack == 0) return true;
  memory.fill(seen, 0, <usize>((states + 7) >> 3));
  const moves = scratchAlloc(16);
  if (moves == 0) return true;
  store<u32>(stack, 0); // the state (0, 0, 0, 0)
  store<u8>(seen, 1);
  let top: u32 = 1;
  while (top > 0) {
    top--;
    const s = <u64>load<u32>(stack + (<usize>top << 2));
    const left = <u32>(s / width), right = <u32>(s % width);
    const i = left >> 1, ia = left & 1, j = right >> 1, jb = right & 1;
    if (i == aLen && j == bLen) return true;
    // Successors: epsilon moves of either side, then one byte consumed by both.
    const na = epsilonFrom(a, aLen, i, ia, moves);
    for (let k: u32 = 0; k < na; k++) {
      top = visit(seen, stack, top, stateOf(load<u32>(moves + (<usize>k << 2)), 0, j, jb, width));
    }
    const nb = epsilonFrom(b, bLen, j, jb, moves);
    for (let k: u32 = 0; k < nb; k++) {
      top = visit(seen, stack, top, stateOf(i, ia, load<u32>(moves + (<usize>k << 2)), 0, width));
    }
    const ta = tokenAt(a, aLen, i);
    const ca = tokenByte;
    const tb = tokenAt(b, bLen, j);
    const cb = tokenByte;
    if (ta == 0 || tb == 0) continue;
    if (!compatible(ta, ca, tb, cb)) continue;
    // A star stays where it is, now inside; any other token moves on (entering fresh).
    const ni = ta <= 2 ? i : i + 1, nia: u32 = ta <= 2 ? 1 : 0;
    const nj = tb <= 2 ? j : j + 1, njb: u32 = tb <= 2 ? 1 : 0;
    top = visit(seen, stack, top, stateOf(ni, nia, nj, njb, width));
  }
  return false;
}

@inline function visit(seen: usize, stack: usize, top: u32, s: u64): u32 {
  const byte = seen + <usize>(s >> 3);
  const bit = <u8>(<u32>1 << <u32>(s & 7));
  if ((load<u8>(byte) & bit) != 0) return top;
  store<u8>(byte, load<u8>(byte) | bit);
  store<u32>(stack + (<usize>top << 2), <u32>s);
  return top + 1;
}

// The length of a pattern's literal head: the bytes before its first wildcard.
export function literalHead(pat: usize, patLen: u32): u32 {
  let i: u32 = 0;
  while (i < patLen) {
    const c = <u32>load<u8>(pat + i);
    if (c == STAR || c == QUESTION) break;
    i++;
  }
  return i;
}

// The directory every value of a path pattern lies in: its literal head cut back to the last
// '/' ("/a/b/*.md" -> "/a/b", "/a/x*" -> "/a", "/*" -> "/"); 0 when the head holds no '/'.
export function literalDir(pat: usize, patLen: u32): u32 {
  const head = literalHead(pat, patLen);
  let k = head;
  while (k > 0 && load<u8>(pat + k - 1) != SLASH) k--;
  if (k == 0) return 0;
  return k == 1 ? 1 : k - 1;
}
