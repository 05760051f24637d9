// The argument document of a tool call (strict RFC 8259 JSON whose top level is an object) as a
// flat table of its scalar leaves: dotted key path with array indices omitted, the value's bytes
// (a string unescaped, anything else its JSON text), whether it is a string, and the array
// element (an object in a list) it belongs to. Everything
// lives in the per-call scratch arena; the parser is iterative, so nesting costs no wasm stack.
import { scratchAlloc } from "../abi/mem";
import { validUtf8 } from "../abi/bytes";
import { Text, textLen, textPtr } from "../abi/out";

export const JSON_OK: i32 = 0;
export const JSON_BAD: i32 = 1;   // not JSON, not UTF-8, not an object, or nested too deep
export const JSON_LIMIT: i32 = 2; // more than maxLeaves leaves, or paths past PATH_BUDGET
export const JSON_OOM: i32 = 3;

// Leaf record: path ptr, path len, value ptr, value len, flags (bit 0 a string, bit 1 an
// element of an array), the innermost object that is an element of an array holding the leaf
// (its ordinal in the document from 1; 0 none), that array's ordinal, and whether the leaf is a
// field of that object itself (not of an object inside it): an order's items stay items of
// their own, though paths omit indices.
const LEAF_SIZE: usize = 32;
// Each object key materializes its full dotted path once; a hostile document of deep long keys
// could make that quadratic, so the paths of one document may take at most this many bytes per
// input byte (plus a fixed allowance). Real documents stay far below.
const PATH_BYTES_PER_INPUT: u64 = 16;
const PATH_BUDGET_BASE: u64 = 65536;

const IN_OBJECT: u32 = 1;
const IN_ARRAY: u32 = 2;

let leaves: usize = 0;
let count: u32 = 0;
let capacity: u32 = 0;

// The document being parsed.
let src: usize = 0;
let end: u32 = 0;
let pos: u32 = 0;

// The dotted path of the value being parsed is pathBuf[0, pathLen); pathCopy is its
// materialized copy (0 until a leaf needs it, cleared whenever the path changes).
let pathBuf: usize = 0;
let pathLen: u32 = 0;
let pathCopy: usize = 0;
let pathBudget: u64 = 0;

// The unescaped string last scanned.
let strAt: usize = 0;
let strLen: u32 = 0;

@inline export function leafCount(): u32 {
  return count;
}

@inline function leafAddr(i: u32): usize {
  return leaves + <usize>i * LEAF_SIZE;
}

@inline export function leafPath(i: u32): usize {
  return <usize>load<u32>(leafAddr(i));
}

@inline export function leafPathLen(i: u32): u32 {
  return load<u32>(leafAddr(i) + 4);
}

@inline export function leafValue(i: u32): usize {
  return <usize>load<u32>(leafAddr(i) + 8);
}

@inline export function leafValueLen(i: u32): u32 {
  return load<u32>(leafAddr(i) + 12);
}

@inline export function leafIsString(i: u32): bool {
  return (load<u32>(leafAddr(i) + 16) & 1) != 0;
}

// Whether leaf i is an element of an array (the value at its path is a list).
@inline export function leafInArray(i: u32): bool {
  return (load<u32>(leafAddr(i) + 16) & 2) != 0;
}

// The element (an object in an array) leaf i belongs to, innermost, 0 when none; and its array.
@inline export function leafElement(i: u32): u32 {
  return load<u32>(leafAddr(i) + 20);
}

@inline export function leafElementArray(i: u32): u32 {
  return load<u32>(leafAddr(i) + 24);
}

// Whether leaf i is a field of its element itself ("name" of an item, not "options.color").
@inline export function leafOfElement(i: u32): bool {
  return load<u32>(leafAddr(i) + 28) != 0;
}

@inline function isWs(c: u32): bool {
  return c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d;
}

@inline function skipWs(): void {
  while (pos < end && isWs(load<u8>(src + pos))) pos++;
}

@inline function peek(): i32 {
  return pos < end ? <i32>load<u8>(src + pos) : -1;
}

function hexValue(c: u32): i32 {
  if (c - 0x30 < 10) return <i32>(c - 0x30);
  const l = c | 0x20;
  if (l - 0x61 < 6) return <i32>(l - 0x61 + 10);
  return -1;
}

// The 4 hex digits at `at`, or -1.
function hex4(at: u32): i32 {
  if (at + 4 > end) return -1;
  let v: i32 = 0;
  for (let k: u32 = 0; k < 4; k++) {
    const d = hexValue(load<u8>(src + at + k));
    if (d < 0) return -1;
    v = (v << 4) | d;
  }
  return v;
}

function putUtf8(dst: usize, cp: u32): u32 {
  if (cp < 0x80) { store<u8>(dst, <u8>cp); return 1; }
  if (cp < 0x800) {
    store<u8>(dst, <u8>(0xc0 | (cp >> 6)));
    store<u8>(dst + 1, <u8>(0x80 | (cp & 0x3f)));
    return 2;
  }
  if (cp < 0x10000) {
    store<u8>(dst, <u8>(0xe0 | (cp >> 12)));
    store<u8>(dst + 1, <u8>(0x80 | ((cp >> 6) & 0x3f)));
    store<u8>(dst + 2, <u8>(0x80 | (cp & 0x3f)));
    return 3;
  }
  store<u8>(dst, <u8>(0xf0 | (cp >> 18)));
  store<u8>(dst + 1, <u8>(0x80 | ((cp >> 12) & 0x3f)));
  store<u8>(dst + 2, <u8>(0x80 | ((cp >> 6) & 0x3f)));
  store<u8>(dst + 3, <u8>(0x80 | (cp & 0x3f)));
  return 4;
}

const ONES: u64 = 0x0101010101010101;
const HIGHS: u64 = 0x8080808080808080;

// SWAR over the eight bytes of `w`: (v - ONES) & ~v & HIGHS is nonzero exactly when a byte of v
// is zero, and (w - n * ONES) & ~w & HIGHS when one is below n.
@inline function hasByte(w: u64, b: u64): bool {
  const v = w ^ (ONES * b);
  return ((v - ONES) & ~v & HIGHS) != 0;
}

// Whether one of the eight bytes of `w` is '"', '\\' or below 0x20.
@inline function specialIn(w: u64): bool {
  return hasByte(w, 0x22) || hasByte(w, 0x5c) || ((w - ONES * 0x20) & ~w & HIGHS) != 0;
}

// Scans the string whose opening quote is at pos. Without escapes its bytes stay in the input;
// with them they are decoded into `dst` when given, else into fresh scratch. Sets strAt/strLen
// and leaves pos after the closing quote. Returns JSON_OK, JSON_BAD or JSON_OOM.
function scanString(dst: usize): i32 {
  const start = pos + 1;
  let i = start;
  let escaped = false;
  // Pass 1: find the end and check every escape.
  while (true) {
    // Eight bytes at a time while none is a quote, a backslash or a control character.
    while (i + 8 <= end && !specialIn(load<u64>(src + i))) i += 8;
    if (i >= end) return JSON_BAD;
    const c = <u32>load<u8>(src + i);
    if (c == 0x22) break;
    if (c < 0x20) return JSON_BAD;
    if (c != 0x5c) { i++; continue; }
    escaped = true;
    if (i + 1 >= end) return JSON_BAD;
    const e = <u32>load<u8>(src + i + 1);
    if (e == 0x75) {
      const u = hex4(i + 2);
      if (u < 0) return JSON_BAD;
      i += 6;
      if (u >= 0xdc00 && u <= 0xdfff) return JSON_BAD; // a low surrogate with no high one
      if (u >= 0xd800 && u <= 0xdbff) {
        if (i + 1 >= end || load<u8>(src + i) != 0x5c || load<u8>(src + i + 1) != 0x75) return JSON_BAD;
        const lo = hex4(i + 2);
        if (lo < 0xdc00 || lo > 0xdfff) return JSON_BAD;
        i += 6;
      }
    } else if (e == 0x22 || e == 0x5c || e == 0x2f || e == 0x62 || e == 0x66 || e == 0x6e || e == 0x72 || e == 0x74) {
      i += 2;
    } else {
      return JSON_BAD;
    }
  }
  const stop = i;
  pos = stop + 1;
  if (!escaped) {
    strAt = src + start;
    strLen = stop - start;
    return JSON_OK;
  }
  // Pass 2: decode; the result is never longer than the escaped text.
  let out = dst;
  if (out == 0) {
    out = scratchAlloc(<usize>(stop - start));
    if (out == 0) return JSON_OOM;
  }
  let n: u32 = 0;
  i = start;
  while (i < stop) {
    // Eight bytes at a time up to the next backslash. The output never outruns the input, so
    // out + n + 8 stays within the stop - start bytes it holds.
    while (i + 8 <= stop) {
      const w = load<u64>(src + i);
      if (hasByte(w, 0x5c)) break;
      store<u64>(out + n, w);
      n += 8;
      i += 8;
    }
    if (i >= stop) break;
    const c = <u32>load<u8>(src + i);
    if (c != 0x5c) { store<u8>(out + n, <u8>c); n++; i++; continue; }
    const e = <u32>load<u8>(src + i + 1);
    if (e == 0x75) {
      let cp = <u32>hex4(i + 2);
      i += 6;
      if (cp >= 0xd800 && cp <= 0xdbff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (<u32>hex4(i + 2) - 0xdc00);
        i += 6;
      }
      n += putUtf8(out + n, cp);
      continue;
    }
    let b = e; // \" \\ \/
    if (e == 0x62) b = 0x08;
    else if (e == 0x66) b = 0x0c;
    else if (e == 0x6e) b = 0x0a;
    else if (e == 0x72) b = 0x0d;
    else if (e == 0x74) b = 0x09;
    store<u8>(out + n, <u8>b);
    n++;
    i += 2;
  }
  strAt = out;
  strLen = n;
  return JSON_OK;
}

// Checks the number at pos (RFC 8259 grammar) and moves past it; false when malformed.
function scanNumber(): bool {
  if (peek() == 0x2d) pos++;
  if (pos >= end) return false;
  const first = <u32>load<u8>(src + pos);
  if (first == 0x30) {
    pos++;
  } else if (first - 0x31 < 9) {
    while (pos < end && <u32>load<u8>(src + pos) - 0x30 < 10) pos++;
  } else {
    return false;
  }
  if (peek() == 0x2e) {
    pos++;
    const from = pos;
    while (pos < end && <u32>load<u8>(src + pos) - 0x30 < 10) pos++;
    if (pos == from) return false;
  }
  const e = peek();
  if (e == 0x65 || e == 0x45) {
    pos++;
    const sign = peek();
    if (sign == 0x2b || sign == 0x2d) pos++;
    const from = pos;
    while (pos < end && <u32>load<u8>(src + pos) - 0x30 < 10) pos++;
    if (pos == from) return false;
  }
  return true;
}

// Whether the text `word` (true/false/null) is at pos; moves past it.
function scanLiteral(word: Text): bool {
  const n = textLen(word);
  if (pos + n > end) return false;
  for (let k: u32 = 0; k < n; k++) {
    if (load<u8>(src + pos + k) != load<u8>(textPtr(word) + k)) return false;
  }
  pos += n;
  return true;
}

let inArray = false; // the value being parsed is an element of an array
let elementNow: u32 = 0; // the innermost object that is an array's element, around the value (0 none)
let elementArray: u32 = 0; // the array it is an element of
let elementDepth: u32 = 0; // the nesting depth of the element's own fields
let depthNow: u32 = 0; // the nesting depth of the value being parsed (parseArgs' depth)
let elements: u32 = 0; // ordinals given so far, of such objects and of arrays
let arrays: u32 = 0;

function addLeaf(value: usize, valueLen: u32, isString: bool, maxLeaves: u32): i32 {
  if (count >= maxLeaves) return JSON_LIMIT;
  if (count == capacity) {
    const grown = capacity == 0 ? 16 : capacity << 1;
    const table = scratchAlloc(<usize>grown * LEAF_SIZE);
    if (table == 0) return JSON_OOM;
    if (count > 0) memory.copy(table, leaves, <usize>count * LEAF_SIZE);
    leaves = table;
    capacity = grown;
  }
  if (pathCopy == 0) {
    if (<u64>pathLen > pathBudget) return JSON_LIMIT;
    pathBudget -= <u64>pathLen;
    pathCopy = scratchAlloc(max<usize>(<usize>pathLen, 1));
    if (pathCopy == 0) return JSON_OOM;
    memory.copy(pathCopy, pathBuf, pathLen);
  }
  const at = leafAddr(count);
  store<u32>(at, <u32>pathCopy);
  store<u32>(at + 4, pathLen);
  store<u32>(at + 8, <u32>value);
  store<u32>(at + 12, valueLen);
  store<u32>(at + 16, (isString ? 1 : 0) | (inArray ? 2 : 0));
  store<u32>(at + 20, elementNow);
  store<u32>(at + 24, elementArray);
  store<u32>(at + 28, elementNow != 0 && depthNow == elementDepth ? 1 : 0);
  count++;
  return JSON_OK;
}

// Parses the scalar at pos into a leaf, or returns JSON_BAD when pos holds no value.
function scalar(maxLeaves: u32): i32 {
  const c = peek();
  const from = pos;
  if (c == 0x22) {
    const r = scanString(0);
    if (r != JSON_OK) return r;
    return addLeaf(strAt, strLen, true, maxLeaves);
  }
  let ok = false;
  if (c == 0x74) ok = scanLiteral("true");
  else if (c == 0x66) ok = scanLiteral("false");
  else if (c == 0x6e) ok = scanLiteral("null");
  else if (c == 0x2d || (c >= 0x30 && c <= 0x39)) ok = scanNumber();
  if (!ok) return JSON_BAD;
  return addLeaf(src + from, pos - from, false, maxLeaves);
}

// Parses [p, p+len) and fills the leaf table. The previous table is forgotten first.
export function parseArgs(p: usize, len: u32, maxDepth: u32, maxLeaves: u32): i32 {
  count = 0;
  capacity = 0;
  leaves = 0;
  src = p;
  end = len;
  pos = 0;
  pathLen = 0;
  pathCopy = 0;
  pathBudget = PATH_BUDGET_BASE + PATH_BYTES_PER_INPUT * <u64>len;
  elementNow = 0; elementArray = 0; elementDepth = 0; elements = 0; arrays = 0; depthNow = 0;
  if (!validUtf8(p, len)) return JSON_BAD;
  skipWs();
  if (peek() != 0x7b || maxDepth == 0) return JSON_BAD;
  // A path is at most the document's length: every key byte or dot stands on an input byte.
  pathBuf = scratchAlloc(<usize>len);
  // Per level: container kind, the path length to restore when it closes, and an array's own
  // ordinal or, for an object, the element and array to restore.
  const stack = scratchAlloc((<usize>maxDepth) << 4);
  if (pathBuf == 0 || stack == 0) return JSON_OOM;
  let depth: u32 = 0;
  let expectKey = false; // inside an object, at a key (else at a value)
  // Opening brackets jump here with pos on the bracket.
  while (true) {
    skipWs();
    let c = peek();
    if (expectKey) {
      if (c != 0x22) return JSON_BAD;
      const base = load<u32>(stack + ((<usize>(depth - 1)) << 4) + 4);
      const dot: u32 = base > 0 ? 1 : 0;
      const r = scanString(pathBuf + base + dot);
      if (r != JSON_OK) return r;
      if (strAt != pathBuf + base + dot) memory.copy(pathBuf + base + dot, strAt, strLen);
      if (dot != 0) store<u8>(pathBuf + base, 0x2e);
      pathLen = base + dot + strLen;
      pathCopy = 0;
      skipWs();
      if (peek() != 0x3a) return JSON_BAD;
      pos++;
      skipWs();
      c = peek();
      expectKey = false;
    }
    if (c == 0x7b || c == 0x5b) {
      if (depth >= maxDepth) return JSON_BAD;
      const frame = stack + ((<usize>depth) << 4);
      store<u32>(frame, c == 0x7b ? IN_OBJECT : IN_ARRAY);
      store<u32>(frame + 4, pathLen);
      if (c == 0x5b) store<u32>(frame + 8, ++arrays);
      else {
        // An object saves the element around it (its array in the frame's last word, its depth in
        // the array's: an element's depth is its array's plus one).
        store<u32>(frame + 8, elementNow);
        store<u32>(frame + 12, elementArray | (elementDepth << 20));
        const parent = stack + ((<usize>(depth - 1)) << 4);
        if (depth > 0 && load<u32>(parent) == IN_ARRAY) {
          elementNow = ++elements;
          elementArray = load<u32>(parent + 8);
          elementDepth = depth + 1;
        }
      }
      depth++;
      pos++;
      skipWs();
      const close = c == 0x7b ? 0x7d : 0x5d;
      if (peek() != close) {
        expectKey = c == 0x7b;
        continue;
      }
      // An empty container: fall through to close it.
    } else {
      inArray = load<u32>(stack + ((<usize>(depth - 1)) << 4)) == IN_ARRAY;
      depthNow = depth;
      const r = scalar(maxLeaves);
      if (r != JSON_OK) return r;
      skipWs();
    }
    // After a value: a comma continues the container, a bracket closes it (perhaps several).
    while (true) {
      const frame = stack + ((<usize>(depth - 1)) << 4);
      const kind = load<u32>(frame);
      const d = peek();
      if (d == 0x2c) {
        pos++;
        expectKey = kind == IN_OBJECT;
        break;
      }
      if ((kind == IN_OBJECT && d == 0x7d) || (kind == IN_ARRAY && d == 0x5d)) {
        pos++;
        pathLen = load<u32>(frame + 4);
        pathCopy = 0;
        if (kind == IN_OBJECT) {
          elementNow = load<u32>(frame + 8);
          elementArray = load<u32>(frame + 12) & 0xfffff;
          elementDepth = load<u32>(frame + 12) >>> 20;
        }
        depth--;
        if (depth == 0) {
          skipWs();
          return pos == end ? JSON_OK : JSON_BAD;
        }
        skipWs();
        continue;
      }
      return JSON_BAD;
    }
  }
  return JSON_BAD;
}
