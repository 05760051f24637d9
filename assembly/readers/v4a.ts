// The files a V4A patch (the `patch` tool's text) names in its headers, read the way Hermes'
// tools/patch_parser.py reads them: a line that starts with "***", white space (any amount,
// Python's Unicode set) around the words, `Add File:`, `Update File:`, `Delete File:`,
// `Move File: a -> b` and `Move to:`. Every header line counts, wherever it stands: a
// header outside Begin/End only adds a file to decide on.
import { Text, textLen, textPtr } from "../abi/out";

// The last path found: [foundStart, foundEnd) of the text; scanning resumes at nextFrom.
export let foundStart: u32 = 0;
export let foundEnd: u32 = 0;
export let nextFrom: u32 = 0;
// The destination of a Move File header, returned by the next call.
let pendingStart: u32 = 0;
let pendingEnd: u32 = 0;
let pending = false;

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// The byte length of the white space character at i (what Python's \s and str.strip() take),
// or 0.
export function pyWhitespace(p: usize, end: u32, i: u32): u32 {
  const c = at(p, i);
  if (c == 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)) return 1;
  if (c == 0xc2 && i + 1 < end) {
    const d = at(p, i + 1);
    return d == 0x85 || d == 0xa0 ? 2 : 0;
  }
  if (i + 2 >= end) return 0;
  const d = at(p, i + 1), e = at(p, i + 2);
  if (c == 0xe1 && d == 0x9a && e == 0x80) return 3; // U+1680
  if (c == 0xe2 && d == 0x80 && (e <= 0x8a || e == 0xa8 || e == 0xa9 || e == 0xaf)) return 3;
  if (c == 0xe2 && d == 0x81 && e == 0x9f) return 3; // U+205F
  if (c == 0xe3 && d == 0x80 && e == 0x80) return 3; // U+3000
  return 0;
}

function skipWs(p: usize, end: u32, i: u32): u32 {
  while (i < end) {
    const w = pyWhitespace(p, end, i);
    if (w == 0) break;
    i += w;
  }
  return i;
}

// Whether the text `word` is at i (before end).
function literalAt(p: usize, end: u32, i: u32, word: Text): bool {
  const n = textLen(word);
  if (i + n > end) return false;
  for (let k: u32 = 0; k < n; k++) if (at(p, i + k) != <u32>load<u8>(textPtr(word) + k)) return false;
  return true;
}

// [start, end) stripped of white space at both ends, as (start << 32 | end).
function stripped(p: usize, start: u32, end: u32): u64 {
  start = skipWs(p, end, start);
  // Trailing white space: scan forward, remembering where the last non-space run ended.
  let last = start;
  let i = start;
  while (i < end) {
    const w = pyWhitespace(p, end, i);
    if (w == 0) { i++; last = i; } else i += w;
  }
  return ((<u64>start) << 32) | <u64>last;
}

function found(s: u64): bool {
  foundStart = <u32>(s >>> 32);
  foundEnd = <u32>s;
  return foundEnd > foundStart;
}

// The path of header line [i, end) after its "***", or false when it is no header. A Move
// File header leaves its destination pending.
function header(p: usize, end: u32, i: u32): bool {
  i = skipWs(p, end, i);
  let move = false;
  let afterWord: u32;
  if (literalAt(p, end, i, "Update")) afterWord = i + 6;
  else if (literalAt(p, end, i, "Add")) afterWord = i + 3;
  else if (literalAt(p, end, i, "Delete")) afterWord = i + 6;
  else if (literalAt(p, end, i, "Move")) { afterWord = i + 4; move = true; }
  else return false;
  const j = skipWs(p, end, afterWord);
  if (j == afterWord) return false; // the words need white space between them
  let k: u32;
  if (literalAt(p, end, j, "File:")) {
    k = j + 5;
  } else if (move && literalAt(p, end, j, "to:")) {
    return found(stripped(p, j + 3, end));
  } else {
    return false;
  }
  if (!move) return found(stripped(p, k, end));
  // "a -> b": the source ends at the first "->" after at least one character.
  const from = skipWs(p, end, k);
  for (let a = from + 1; a + 1 < end; a++) {
    if (at(p, a) == 0x2d && at(p, a + 1) == 0x3e) {
      const dst = stripped(p, a + 2, end);
      pendingStart = <u32>(dst >>> 32);
      pendingEnd = <u32>dst;
      pending = pendingEnd > pendingStart;
      if (found(stripped(p, from, a))) return true;
      if (!pending) return false;
      pending = false;
      foundStart = pendingStart;
      foundEnd = pendingEnd;
      return true;
    }
  }
  return false;
}

// Finds the next header path at or after `from` in [p, p+len). False when there is none.
export function v4aNext(p: usize, len: u32, from: u32): bool {
  if (pending) {
    pending = false;
    foundStart = pendingStart;
    foundEnd = pendingEnd;
    nextFrom = from;
    return true;
  }
  let line = from;
  while (line < len) {
    let end = line;
    while (end < len && at(p, end) != 0x0a) end++;
    nextFrom = end < len ? end + 1 : len;
    let stop = end;
    if (stop > line && at(p, stop - 1) == 0x0d) stop--;
    if (literalAt(p, stop, line, "***") && header(p, stop, line + 3)) return true;
    pending = false;
    line = nextFrom;
  }
  return false;
}

// Forgets a pending Move destination (a new text is about to be read).
export function v4aBegin(): void {
  pending = false;
}
