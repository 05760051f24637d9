// Normal forms of docs/bytecode.md §6 for values taken from a call or a message: e-mail
// addresses, hosts, URLs and paths. Results are written to the per-call scratch arena and
// returned as (ptr << 32 | len); 0 means no value (empty, or memory exhausted).
import { CONFIGURE_FOLD_CASE } from "../../bytecode/format";
import { alloc, free, scratchAlloc } from "../abi/mem";
import { isSpace, lowerAscii } from "../abi/bytes";

// Set when a normal form could not be written for want of memory (0 alone cannot tell).
let outOfMemory = false;

@inline export function takeOutOfMemory(): bool {
  const o = outOfMemory;
  outOfMemory = false;
  return o;
}

function scratch(n: usize): usize {
  const p = scratchAlloc(n);
  if (p == 0) outOfMemory = true;
  return p;
}

const SLASH: u32 = 0x2f;
const TILDE: u32 = 0x7e;
const TILDE_FORM: usize = memory.data<u8>([0x7e]); // the root of "~/…" paths without a home

// The configured home and working directories (absolute, normal form), long-lived.
let home: usize = 0;
let homeLength: u32 = 0;
let cwd: usize = 0;
let cwdLength: u32 = 0;

export function homePtr(): usize { return home; }
export function homeLen(): u32 { return homeLength; }
export function cwdPtr(): usize { return cwd; }
export function cwdLen(): u32 { return cwdLength; }

@inline export function span(p: usize, len: u32): u64 {
  return ((<u64>p) << 32) | <u64>len;
}

@inline export function spanPtr(s: u64): usize {
  return <usize>(s >>> 32);
}

@inline export function spanLen(s: u64): u32 {
  return <u32>s;
}

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// [p+start, p+end) without leading and trailing ASCII white space, as (start << 32 | end).
function trimmed(p: usize, start: u32, end: u32): u64 {
  while (start < end && isSpace(at(p, start))) start++;
  while (end > start && isSpace(at(p, end - 1))) end--;
  return ((<u64>start) << 32) | <u64>end;
}

// ---- paths ----

// Rewrites the absolute path buf[0, n) in place to its normal form (`.`, `..`, repeated and
// trailing '/' resolved) and returns its new length. With `tildeRoot`, buf starts "~/" and
// "~" is the root that `..` cannot climb above (an unconfigured home).
function canonicalPath(buf: usize, n: u32, tildeRoot: bool): u32 {
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

// ---- Hermes homes ----
// The folders that are a Hermes home (HERMES_HOME first, then the root whose profiles/<name>
// folders are homes too): a policy path `$HERMES_HOME/…` stands for the same path in each (§6.5).
let hermes: usize = 0;
let hermesLength: u32 = 0;
const DOT_HERMES: usize = memory.data<u8>([0x2e, 0x68, 0x65, 0x72, 0x6d, 0x65, 0x73]); // ".hermes"

export function hermesPtr(): usize { return hermes; }
export function hermesLen(): u32 { return hermesLength; }

let keptLen: u32 = 0;

// Copies an absolute directory into long-lived memory in normal form (its length in keptLen);
// 0 when it is not absolute or memory is exhausted.
function keepDirectory(p: usize, len: u32): usize {
  if (len == 0 || at(p, 0) != SLASH) return 0;
  const buf = alloc(<usize>len);
  if (buf == 0) return 0;
  memory.copy(buf, p, len);
  keptLen = canonicalPath(buf, len, false);
  return buf;
}

// The Hermes homes of [p, p+len): absolute folders, one per line, each in normal form, kept
// as lines in long-lived memory (in keptLen: their length); 0 when one is not absolute. An
// empty list stands for home's `.hermes`.
function keepHermesHomes(p: usize, len: u32, homeDir: usize, homeDirLen: u32): usize {
  const defaultHome = len == 0;
  const size = defaultHome ? homeDirLen + 8 : len + 1;
  const buf = alloc(<usize>size);
  if (buf == 0) return 0;
  let n: u32 = 0;
  if (defaultHome) {
    memory.copy(buf, homeDir, homeDirLen);
    n = homeDirLen;
    if (!(homeDirLen == 1 && at(homeDir, 0) == SLASH)) { store<u8>(buf + n, SLASH); n++; }
    memory.copy(buf + n, DOT_HERMES, 7);
    keptLen = n + 7;
    return buf;
  }
  let i: u32 = 0;
  while (i < len) {
    let j = i;
    while (j < len && at(p, j) != 0x0a) j++;
    if (j == i || at(p, i) != SLASH) { free(buf); return 0; }
    memory.copy(buf + n, p + i, j - i);
    const m = canonicalPath(buf + n, j - i, false);
    n += m;
    if (j < len) { store<u8>(buf + n, 0x0a); n++; }
    i = j + 1;
  }
  keptLen = n;
  return buf;
}

// Whether paths compare ASCII case aside (configure's CONFIGURE_FOLD_CASE): every path's normal
// form is then ASCII lower-cased, the configured folders' too, and the compiler writes each path
// constant in its lower-case form beside the one the policy gives (§6.5).
let foldCase = false;

function lowerInPlace(p: usize, n: u32): void {
  for (let i: u32 = 0; i < n; i++) store<u8>(p + i, <u8>lowerAscii(at(p, i)));
}

// Sets the home and working directories (both must be absolute) and the Hermes homes (§6.5);
// false leaves all unchanged.
export function configureEnv(h: usize, hLen: u32, c: usize, cLen: u32, hh: usize, hhLen: u32, flags: u32): bool {
  if ((flags & ~CONFIGURE_FOLD_CASE) != 0) return false;
  const newHome = keepDirectory(h, hLen);
  const newHomeLen = keptLen;
  // An empty working directory is unknown (§8): relative paths may be below any directory.
  const newCwd = cLen == 0 ? <usize>0 : keepDirectory(c, cLen);
  const newCwdLen = cLen == 0 ? 0 : keptLen;
  const newHermes: usize = newHome == 0 ? 0 : keepHermesHomes(hh, hhLen, newHome, newHomeLen);
  if (newHome == 0 || (cLen != 0 && newCwd == 0) || newHermes == 0) {
    free(newHome);
    free(newCwd);
    free(newHermes);
    return false;
  }
  free(home);
  free(cwd);
  free(hermes);
  home = newHome;
  homeLength = newHomeLen;
  cwd = newCwd;
  cwdLength = newCwdLen;
  hermes = newHermes;
  hermesLength = keptLen;
  foldCase = (flags & CONFIGURE_FOLD_CASE) != 0;
  if (foldCase) {
    lowerInPlace(home, homeLength);
    lowerInPlace(cwd, cwdLength);
    lowerInPlace(hermes, hermesLength);
  }
  return true;
}

// ---- e-mail ----

// The address in [p, p+len): trimmed, the display name and angle brackets dropped (the last
// '<' outside double quotes wins), a "mailto:" dropped, ASCII lower-cased, no trailing dot.
export function normalizeEmail(p: usize, len: u32): u64 {
  const t = trimmed(p, 0, len);
  let start = <u32>(t >>> 32);
  let end = <u32>t;
  let quoted = false;
  let lt: i64 = -1;
  for (let i = start; i < end; i++) {
    const c = at(p, i);
    if (quoted && c == 0x5c) { i++; continue; }
    if (c == 0x22) quoted = !quoted;
    else if (c == 0x3c && !quoted) lt = i;
  }
  if (lt >= 0) {
    start = <u32>lt + 1;
    let j = start;
    while (j < end && at(p, j) != 0x3e) j++;
    end = j;
  }
  const u = trimmed(p, start, end);
  start = <u32>(u >>> 32);
  end = <u32>u;
  if (end - start >= 7 && lowerAscii(at(p, start)) == 0x6d && lowerAscii(at(p, start + 1)) == 0x61 &&
      lowerAscii(at(p, start + 2)) == 0x69 && lowerAscii(at(p, start + 3)) == 0x6c &&
      lowerAscii(at(p, start + 4)) == 0x74 && lowerAscii(at(p, start + 5)) == 0x6f && at(p, start + 6) == 0x3a) {
    start += 7;
  }
  while (end > start && at(p, end - 1) == 0x2e) end--;
  if (end <= start) return 0;
  const n = end - start;
  const out = scratch(<usize>n);
  if (out == 0) return 0;
  for (let i: u32 = 0; i < n; i++) store<u8>(out + i, <u8>lowerAscii(at(p, start + i)));
  return span(out, n);
}

// Whether [p, p+len) reads as one address: local@domain with one '@', a local part free of
// white space and of the ':' '/' '#' of other handles ("matrix:@user:server.org"), and a
// dotted domain of host characters.
export function isAddress(p: usize, len: u32): bool {
  let atSign: i32 = -1;
  let dot = false;
  for (let i: u32 = 0; i < len; i++) {
    const c = at(p, i);
    if (isSpace(c) || c == 0x2c || c == 0x3b || c == 0x3c || c == 0x3e || c == 0x3a || c == 0x2f || c == 0x23) return false;
    if (c == 0x40) {
      if (atSign >= 0) return false;
      atSign = <i32>i;
    } else if (c == 0x2e && atSign >= 0) {
      dot = true;
    }
  }
  return atSign > 0 && <u32>atSign + 1 < len && dot;
}

// ---- hosts and URLs ----

function hexDigit(c: u32): i32 {
  if (c - 0x30 < 10) return <i32>(c - 0x30);
  const l = c | 0x20;
  if (l - 0x61 < 6) return <i32>(l - 0x61 + 10);
  return -1;
}

// Writes the host [p, p+len) (no userinfo or port) to dst in normal form: %XX decoded, ASCII
// lower-cased, trailing dots dropped. Returns the length written.
function putHost(dst: usize, p: usize, len: u32): u32 {
  let n: u32 = 0;
  let i: u32 = 0;
  while (i < len) {
    let c = at(p, i);
    if (c == 0x25 && i + 2 < len && hexDigit(at(p, i + 1)) >= 0 && hexDigit(at(p, i + 2)) >= 0) {
      c = <u32>((hexDigit(at(p, i + 1)) << 4) | hexDigit(at(p, i + 2)));
      i += 3;
    } else {
      i++;
    }
    store<u8>(dst + n, <u8>lowerAscii(c));
    n++;
  }
  while (n > 0 && at(dst, n - 1) == 0x2e) n--;
  return n;
}

// The host inside authority [p+start, p+end): after the last '@', before the port; an IPv6
// literal keeps its brackets. Returned as (start << 32 | end).
function hostInAuthority(p: usize, start: u32, end: u32): u64 {
  for (let i = start; i < end; i++) if (at(p, i) == 0x40) start = i + 1;
  let stop = end;
  if (start < end && at(p, start) == 0x5b) {
    for (let i = start; i < end; i++) {
      if (at(p, i) == 0x5d) { stop = i + 1; break; }
    }
  } else {
    for (let i = start; i < end; i++) {
      if (at(p, i) == 0x3a) { stop = i; break; }
    }
  }
  return ((<u64>start) << 32) | <u64>stop;
}

// Where the scheme of [p, p+len) ends (the index of its ':'), or -1 when it has none.
function schemeEnd(p: usize, len: u32): i32 {
  if (len == 0 || (at(p, 0) | 0x20) - 0x61 >= 26) return -1;
  for (let i: u32 = 1; i < len; i++) {
    const c = at(p, i);
    if (c == 0x3a) return <i32>i;
    const ok = (c | 0x20) - 0x61 < 26 || c - 0x30 < 10 || c == 0x2b || c == 0x2d || c == 0x2e;
    if (!ok) return -1;
  }
  return -1;
}

// Where the authority of URL [p, p+len) starts: after "scheme://", after a leading "//", at 0
// for a URL written without a scheme ("example.com/x"); -1 when the URL has no authority
// ("mailto:…").
function authorityStart(p: usize, len: u32): i32 {
  const s = schemeEnd(p, len);
  if (s >= 0) {
    const i = <u32>s;
    if (i + 2 < len && at(p, i + 1) == SLASH && at(p, i + 2) == SLASH) return <i32>(i + 3);
    return -1;
  }
  if (len >= 2 && at(p, 0) == SLASH && at(p, 1) == SLASH) return 2;
  return 0;
}

// Where the authority that starts at `from` ends: '/', '?', '#' (RFC 3986), and with
// `backslashEnds` also '\\' (as browsers read http(s) URLs).
function authorityEnd(p: usize, len: u32, from: u32, backslashEnds: bool): u32 {
  for (let i = from; i < len; i++) {
    const c = at(p, i);
    if (c == SLASH || c == 0x3f || c == 0x23 || (backslashEnds && c == 0x5c)) return i;
  }
  return len;
}

// The host of URL [p, p+len) in normal form; 0 when it has none.
export function urlHost(p: usize, len: u32, backslashEnds: bool): u64 {
  const t = trimmed(p, 0, len);
  const s = <u32>(t >>> 32);
  const a = authorityStart(p + s, <u32>t - s);
  if (a < 0) return 0;
  const from = s + <u32>a;
  return copyHost(p, hostInAuthority(p, from, authorityEnd(p, <u32>t, from, backslashEnds)));
}

// The host range `h` of [p, …) copied into scratch in normal form; 0 when empty or out of memory.
function copyHost(p: usize, h: u64): u64 {
  const hs = <u32>(h >>> 32);
  const hn = <u32>h - hs;
  if (hn == 0) return 0;
  const out = scratch(<usize>hn);
  if (out == 0) return 0;
  const n = putHost(out, p + hs, hn);
  return n == 0 ? 0 : span(out, n);
}

// The length of a default port ":443" of https, ":80" of http at q+i (then the authority's
// end), else 0: the URL names the same place without it.
function defaultPortAt(q: usize, n: u32, i: u32, se: i32): u32 {
  if (i >= n || at(q, i) != 0x3a) return 0;
  let d = i + 1;
  while (d < n && at(q, d) - 0x30 < 10) d++;
  if (d < n && at(q, d) != 0x2f && at(q, d) != 0x3f && at(q, d) != 0x23) return 0;
  const digits = d - i - 1;
  const http = (se == 4 || se == 5) && (at(q, 0) | 0x20) == 0x68 && (at(q, 1) | 0x20) == 0x74 &&
    (at(q, 2) | 0x20) == 0x74 && (at(q, 3) | 0x20) == 0x70;
  const https = http && se == 5 && (at(q, 4) | 0x20) == 0x73;
  if (https && digits == 3 && at(q, i + 1) == 0x34 && at(q, i + 2) == 0x34 && at(q, i + 3) == 0x33) return 4;
  if (http && se == 4 && digits == 2 && at(q, i + 1) == 0x38 && at(q, i + 2) == 0x30) return 3;
  return 0;
}

// The URL [p, p+len) in normal form: trimmed, scheme and host lower-cased (the host also
// %-decoded, without trailing dots), a default port (https's 443, http's 80) dropped, everything
// else as given.
export function normalizeUrl(p: usize, len: u32): u64 {
  const t = trimmed(p, 0, len);
  const s = <u32>(t >>> 32);
  const e = <u32>t;
  if (e <= s) return 0;
  const q = p + s;
  const n = e - s;
  const out = scratch(<usize>n);
  if (out == 0) return 0;
  const se = schemeEnd(q, n);
  const a = authorityStart(q, n);
  let hs = n;
  let he = n;
  if (a >= 0) {
    const h = hostInAuthority(q, <u32>a, authorityEnd(q, n, <u32>a, false));
    hs = <u32>(h >>> 32);
    he = <u32>h;
  }
  for (let i: u32 = 0; i < hs; i++) {
    const c = at(q, i);
    store<u8>(out + i, <u8>(<i32>i < se ? lowerAscii(c) : c));
  }
  let o = hs;
  if (he > hs) o += putHost(out + hs, q + hs, he - hs);
  const rest = he + (a >= 0 && he > hs ? defaultPortAt(q, n, he, se) : 0);
  memory.copy(out + o, q + rest, n - rest);
  const pathStart = o;
  o += n - rest;
  return span(out, withoutDotSegments(out, pathStart, o));
}

// Removes a URL path's "." and ".." segments in place (RFC 3986 §5.2.4; `%2e` is a dot, as
// browsers read it), so "/article/../../logout" is "/logout", the page it reaches. The path ends
// at '?' or '#'. Returns the new length.
function withoutDotSegments(b: usize, start: u32, end: u32): u32 {
  let stop = start;
  while (stop < end && at(b, stop) != 0x3f && at(b, stop) != 0x23) stop++;
  if (stop == start || at(b, start) != SLASH) return end;
  let w = start; // bytes kept: "/seg/seg"
  let i = start;
  while (i < stop) {
    let j = i + 1;
    while (j < stop && at(b, j) != SLASH) j++;
    const dots = dotSegment(b, i + 1, j); // the segment after this '/'
    if (dots == 1) {
      if (j == stop) { store<u8>(b + w, SLASH); w++; }
    } else if (dots == 2) {
      while (w > start && at(b, w - 1) != SLASH) w--; // the last kept segment, and its '/'
      if (w > start) w--;
      if (j == stop) { store<u8>(b + w, SLASH); w++; }
    } else {
      memory.copy(b + w, b + i, j - i);
      w += j - i;
    }
    i = j;
  }
  if (w == start) { store<u8>(b + w, SLASH); w++; }
  memory.copy(b + w, b + stop, end - stop);
  return w + end - stop;
}

// 1 for ".", 2 for "..", each dot also written `%2e`; else 0.
function dotSegment(b: usize, s: u32, e: u32): u32 {
  let dots: u32 = 0;
  let i = s;
  while (i < e) {
    if (at(b, i) == 0x2e) { dots++; i++; }
    else if (i + 2 < e && at(b, i) == 0x25 && at(b, i + 1) == 0x32 && lowerAscii(at(b, i + 2)) == 0x65) { dots++; i += 3; }
    else return 0;
  }
  return dots <= 2 ? dots : 0;
}

// The host of a normalized URL as a range of its own bytes (no copy); 0 when it has none.
export function hostOfNormalUrl(p: usize, len: u32): u64 {
  const a = authorityStart(p, len);
  if (a < 0) return 0;
  const h = hostInAuthority(p, <u32>a, authorityEnd(p, len, <u32>a, false));
  const hs = <u32>(h >>> 32);
  const he = <u32>h;
  return he > hs ? span(p + hs, he - hs) : 0;
}

// Whether a normalized URL is no more than its host: no userinfo, port, path (beyond one '/'),
// query or fragment, so nothing in it can carry data to that host.
export function urlIsBareHost(p: usize, len: u32): bool {
  const a = authorityStart(p, len);
  if (a < 0) return false;
  const end = authorityEnd(p, len, <u32>a, true);
  const h = hostInAuthority(p, <u32>a, end);
  if (<u32>(h >>> 32) != <u32>a || <u32>h != end || end == <u32>a) return false;
  return end == len || (end + 1 == len && at(p, end) == SLASH);
}

// A host given on its own ("Example.COM.", "user@host:22", or a whole URL) in normal form.
export function normalizeHost(p: usize, len: u32): u64 {
  const t = trimmed(p, 0, len);
  const s = <u32>(t >>> 32);
  const e = <u32>t;
  for (let i = s; i + 2 < e; i++) {
    if (at(p, i) == 0x3a && at(p, i + 1) == SLASH && at(p, i + 2) == SLASH) return urlHost(p + s, e - s, false);
  }
  return copyHost(p, hostInAuthority(p, s, authorityEnd(p, e, s, false)));
}

// Whether [p, p+len) is "file://…", whose path a file URL names.
export function fileUrlPath(p: usize, len: u32): u64 {
  const t = trimmed(p, 0, len);
  const s = <u32>(t >>> 32);
  const e = <u32>t;
  if (e - s < 8) return 0;
  if ((at(p, s) | 0x20) != 0x66 || (at(p, s + 1) | 0x20) != 0x69 || (at(p, s + 2) | 0x20) != 0x6c ||
      (at(p, s + 3) | 0x20) != 0x65 || at(p, s + 4) != 0x3a || at(p, s + 5) != SLASH || at(p, s + 6) != SLASH) return 0;
  let i = s + 7;
  while (i < e && at(p, i) != SLASH) i++; // "file://host/path": the host is local
  let stop = i;
  while (stop < e && at(p, stop) != 0x3f && at(p, stop) != 0x23) stop++;
  return stop > i ? span(p + i, stop - i) : 0;
}
