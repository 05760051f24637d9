// Paths (docs/bytecode.md §6.5) and path patterns (§6.7) in normal form, and the configured home
// and working directory they resolve against.
import { lowerAscii } from "../abi/bytes";
import { span, spanPtr, spanLen, scratch, trimmed, SLASH } from "./normalize_span";

const TILDE: u32 = 0x7e;
const TILDE_FORM: usize = memory.data<u8>([0x7e]); // the root of "~/…" paths without a home

// The configured home and working directories (absolute, normal form), long-lived: this module's
// state, which configureEnv (normalize_env.ts) sets.
export let home: usize = 0;
export let homeLength: u32 = 0;
export let cwd: usize = 0;
export let cwdLength: u32 = 0;

export function homePtr(): usize { return home; }
export function homeLen(): u32 { return homeLength; }
export function cwdPtr(): usize { return cwd; }
export function cwdLen(): u32 { return cwdLength; }

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// Whether paths compare ASCII case aside (configure's CONFIGURE_FOLD_CASE): every path's normal
// form is then ASCII lower-cased, the configured folders' too, and the compiler writes each path
// constant in its lower-case form beside the one the policy gives (§6.5).
export let foldCase = false;

export function lowerInPlace(p: usize, n: u32): void {
  for (let i: u32 = 0; i < n; i++) store<u8>(p + i, <u8>lowerAscii(at(p, i)));
}

// Rewrites the absolute path buf[0, n) in place to its normal form (`.`, `..`, repeated and
// trailing '/' resolved) and returns its new length. With `tildeRoot`, buf starts "~/" and
// "~" is the root that `..` cannot climb above (an unconfigured home).
export function canonicalPath(buf: usize, n: u32, tildeRoot: bool): u32 {
  const floor: u32 = tildeRoot ? 1 : 0;
  let o = floor;
  let i = floor;
  while (i < n) {
    while (i < n && at(buf, i) == SLASH) i++;
    if (i >= n) break;
    let j = i;
    while (j < n && at(buf, j) != SLASH) j++;
    const segLen = j - i;
    if (segLen == 1 && at(buf, i) == 0x2e) {
      // "." names the directory itself
    } else if (segLen == 2 && at(buf, i) == 0x2e && at(buf, i + 1) == 0x2e) {
      while (o > floor && at(buf, o - 1) != SLASH) o--;
      if (o > floor) o--;
    } else {
      store<u8>(buf + o, SLASH);
      memory.copy(buf + o + 1, buf + i, segLen);
      o += 1 + segLen;
    }
    i = j;
  }
  if (o == floor) {
    if (tildeRoot) return 1;
    store<u8>(buf, SLASH);
    return 1;
  }
  return o;
}

function isHomeVar(p: usize, len: u32, i: u32, braced: bool): u32 {
  // "$HOME" or "${HOME}" at i, followed by the end or '/': returns its length, else 0.
  const n: u32 = braced ? 7 : 5;
  if (i + n > len) return 0;
  const off: u32 = braced ? 2 : 1;
  if (at(p, i) != 0x24) return 0;
  if (braced && (at(p, i + 1) != 0x7b || at(p, i + 6) != 0x7d)) return 0;
  if (at(p, i + off) != 0x48 || at(p, i + off + 1) != 0x4f || at(p, i + off + 2) != 0x4d || at(p, i + off + 3) != 0x45) return 0;
  if (i + n < len && at(p, i + n) != SLASH) return 0;
  return n;
}

// Whether resolvePath resolves [p, p+len) against its base: not `/…`, `~…`, `$HOME…`, `${HOME}…`.
export function isRelativePath(p: usize, len: u32): bool {
  const t = trimmed(p, 0, len);
  const i = <u32>(t >>> 32), end = <u32>t;
  if (i >= end) return false;
  const c = at(p, i);
  return c != SLASH && c != TILDE && isHomeVar(p, end, i, false) == 0 && isHomeVar(p, end, i, true) == 0;
}

// The absolute normal form of path [p, p+len): `~`, `~/…`, `$HOME`, `${HOME}` expand to the
// configured home (`~user` to a sibling of it, `~root` to /root), and a relative path resolves
// against `base` (absolute, normal), else "/". Without a configured home, `~` stays as the
// root of a "~/…" form, the form policy constants use.
export function resolvePath(p: usize, len: u32, base: usize, baseLen: u32): u64 {
  const t = trimmed(p, 0, len);
  let i = <u32>(t >>> 32);
  const end = <u32>t;
  if (i >= end) return 0;
  let prefix: usize = 0;
  let prefixLen: u32 = 0;
  let name: u32 = 0; // ~name: the user name's start; its length is nameLen
  let nameLen: u32 = 0;
  let tildeRoot = false;
  const c = at(p, i);
  if (c == TILDE) {
    let j = i + 1;
    while (j < end && at(p, j) != SLASH) j++;
    if (homeLength == 0) {
      if (j == i + 1) { prefix = TILDE_FORM; prefixLen = 1; tildeRoot = true; i = j; } // "~user" stays a relative name
    } else if (j == i + 1) {
      prefix = home;
      prefixLen = homeLength;
      i = j;
    } else {
      name = i + 1;
      nameLen = j - i - 1;
      i = j;
    }
  } else {
    const v = max(isHomeVar(p, end, i, false), isHomeVar(p, end, i, true));
    if (v != 0) {
      if (homeLength == 0) { prefix = TILDE_FORM; prefixLen = 1; tildeRoot = true; }
      else { prefix = home; prefixLen = homeLength; }
      i += v;
    } else if (c != SLASH) {
      prefix = base;
      prefixLen = baseLen;
      // A base in the "~" form (no home configured) keeps its "~" root.
      tildeRoot = baseLen > 0 && at(base, 0) == TILDE;
    }
  }
  // The home of user `name`: /root for root, else the configured home's sibling.
  let parentLen: u32 = 0;
  if (nameLen != 0) {
    const isRoot = nameLen == 4 && at(p, name) == 0x72 && at(p, name + 1) == 0x6f && at(p, name + 2) == 0x6f && at(p, name + 3) == 0x74;
    if (!isRoot) {
      parentLen = homeLength;
      while (parentLen > 0 && at(home, parentLen - 1) != SLASH) parentLen--;
      if (parentLen > 0) parentLen--;
    }
  }
  const restLen = end - i;
  const buf = scratch(<usize>prefixLen + <usize>parentLen + <usize>nameLen + <usize>restLen + 8);
  if (buf == 0) return 0;
  let n: u32 = 0;
  if (nameLen != 0) {
    memory.copy(buf, home, parentLen);
    n = parentLen;
    store<u8>(buf + n, SLASH);
    memory.copy(buf + n + 1, p + name, nameLen);
    n += 1 + nameLen;
  } else {
    memory.copy(buf, prefix, prefixLen);
    n = prefixLen;
  }
  store<u8>(buf + n, SLASH);
  n++;
  memory.copy(buf + n, p + i, end - i);
  n += end - i;
  const m = canonicalPath(buf, n, tildeRoot);
  if (foldCase) lowerInPlace(buf, m);
  return span(buf, m);
}

// ---- patterns (§6.7) ----

const STAR: u32 = 0x2a;
const QUESTION: u32 = 0x3f;

// Whether [p, p+n) holds a wildcard.
function hasWildcard(p: usize, n: u32): bool {
  for (let k: u32 = 0; k < n; k++) {
    const c = at(p, k);
    if (c == STAR || c == QUESTION) return true;
  }
  return false;
}

// Whether path segment [p, p+n) with wildcards can stand for "..": bash matches `.*` and `.?`
// against ".." where globskipdots is off. A `**` (an unknown expansion) can hold any path.
function segmentClimbs(p: usize, n: u32): bool {
  for (let k: u32 = 0; k + 1 < n; k++) if (at(p, k) == STAR && at(p, k + 1) == STAR) return true;
  if (n == 0 || at(p, 0) != 0x2e || !hasWildcard(p, n)) return false;
  // ".." matches: a '.' or a wildcard at each of two positions, with stars free to be empty.
  let dots: u32 = 0;
  for (let k: u32 = 0; k < n; k++) {
    const c = at(p, k);
    if (c == 0x2e || c == QUESTION) dots++;
    else if (c != STAR) return false;
  }
  return dots <= 2;
}

// The normal form of a path pattern (a word with wildcards, an unknown expansion written `**`):
// as resolvePath, unless a segment can climb out of where it stands (it holds `**`, or can be
// ".."), which makes everything before it unknown: the pattern is then `/**` followed by what
// comes after the last such segment (`/**` alone when that holds a ".." too). 0 as resolvePath.
export function resolvePattern(p: usize, len: u32, base: usize, baseLen: u32): u64 {
  let cut: i64 = -1; // the end of the last segment that can climb
  let segStart: u32 = 0;
  for (let k: u32 = 0; k <= len; k++) {
    if (k < len && at(p, k) != SLASH) continue;
    if (segmentClimbs(p + segStart, k - segStart)) cut = k;
    segStart = k + 1;
  }
  if (cut < 0) return resolvePath(p, len, base, baseLen);
  const folded = resolvePatternTail(p, len, <u32>cut);
  if (folded != 0 && foldCase) lowerInPlace(spanPtr(folded), spanLen(folded));
  return folded;
}

// `/**` and the segments of [p, p+len) after `cut` ("." and empty ones dropped; `/**` alone when
// one is "..").
function resolvePatternTail(p: usize, len: u32, cut: u32): u64 {
  // What follows the climbing segment: its own segments, "." and empty ones dropped.
  const rest = <u32>cut;
  const buf = scratch(<usize>(len - rest) + 4);
  if (buf == 0) return 0;
  store<u8>(buf, SLASH);
  store<u8>(buf + 1, STAR);
  store<u8>(buf + 2, STAR);
  let n: u32 = 3;
  let i = rest;
  while (i < len) {
    while (i < len && at(p, i) == SLASH) i++;
    let j = i;
    while (j < len && at(p, j) != SLASH) j++;
    const seg = j - i;
    if (seg == 2 && at(p, i) == 0x2e && at(p, i + 1) == 0x2e) return span(buf, 3);
    if (seg > 0 && !(seg == 1 && at(p, i) == 0x2e)) {
      store<u8>(buf + n, SLASH);
      memory.copy(buf + n + 1, p + i, seg);
      n += 1 + seg;
    }
    i = j;
  }
  return span(buf, n);
}
