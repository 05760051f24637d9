// Hosts and URLs in normal form (docs/bytecode.md §6): a URL's host, a host given on its own, a
// URL's default port and dot segments dropped, and the path a file URL names.
import { lowerAscii, hexDigit } from "../abi/bytes";
import { span, scratch, trimmed, SLASH } from "./normalize_span";

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
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
