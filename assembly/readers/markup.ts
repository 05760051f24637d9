// A body that will be rendered (HTML, CSS, markdown), read for what makes its reader's client
// fetch: the hosts of src, srcset, href, background, CSS url(…) and a refresh's url= as a browser
// resolves them (WHATWG URL: `//host`, `https:/host`, `https:\\host`, `HTTPS:host`), after
// character references are decoded, and the text a client links once tags are taken out.
import { scratchAlloc } from "../abi/mem";
import { isAsciiAlpha, hexDigit, inSet } from "../abi/bytes";
import { Text, textLen, textPtr } from "../abi/out";

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// Named character references whose character can shape a URL, each name followed by it.
const NAMED: Text = "Tab\tNewLine\ncolon:sol/bsol\\period.commat@percnt%lpar(rpar)quot\"apos'amp&lt<gt>num#quest?equals=lowbar_";

let decoded: usize = 0;

// [p, p+len) with its character references decoded (numeric ones, and the names of NAMED, with
// or without the ';'; one beyond ASCII as U+FFFD), and with `joined` tab, line feed and
// carriage return dropped inside tags, as the URL parser drops them from an attribute's value
// (a srcset splits its candidates at them first: read both ways); in scratch, its length
// returned (decoded is 0 when out of memory). Never longer.
export function decodeMarkup(p: usize, len: u32, joined: bool): u32 {
  const out = scratchAlloc(max<usize>(<usize>len, 1));
  decoded = out;
  if (out == 0) return 0;
  let n: u32 = 0;
  let i: u32 = 0;
  let tag = false;
  while (i < len) {
    let c = at(p, i++);
    if (c == 0x3c) tag = i < len && isAsciiAlpha(at(p, i));
    else if (c == 0x3e) tag = false;
    if (c == 0x26 && i < len) { // '&'
      let j = i;
      let v: i32 = -1;
      if (at(p, j) == 0x23) { // "&#" digits, "&#x" hex digits
        const base: u32 = j + 1 < len && (at(p, j + 1) | 0x20) == 0x78 ? 16 : 10;
        j += base == 16 ? 2 : 1;
        const from = j;
        let code: u32 = 0;
        while (j < len && j - from < 7) {
          const d = hexDigit(at(p, j));
          if (d < 0 || <u32>d >= base) break;
          code = code * base + <u32>d;
          j++;
        }
        if (j > from && code > 0 && code < 0x110000) v = <i32>code;
      } else {
        while (j < len && isAsciiAlpha(at(p, j))) j++;
        v = namedChar(p + i, j - i);
      }
      if (v >= 0) {
        if (j < len && at(p, j) == 0x3b) j++;
        i = j;
        if (v >= 0x80) { // any other character: U+FFFD, which no ASCII name or host holds
          store<u16>(out + n, 0xbfef);
          store<u8>(out + n + 2, 0xbd);
          n += 3;
          continue;
        }
        c = <u32>v;
      }
    }
    if (!joined || !tag || (c != 0x09 && c != 0x0a && c != 0x0d)) store<u8>(out + n++, <u8>c);
  }
  return n;
}

export function decodedPtr(): usize {
  return decoded;
}

function namedChar(p: usize, n: u32): i32 {
  const t = textPtr(NAMED), tn = textLen(NAMED);
  let k: u32 = 0;
  while (k < tn) {
    let e = k;
    while (isAsciiAlpha(at(t, e))) e++;
    if (e - k == n && memory.compare(t + k, p, n) == 0) return <i32>at(t, e);
    k = e + 1;
  }
  return -1;
}

// Takes the tags (`<` and a letter, '/', '!' or '?', to the next `>`) out of [p, p+len) in
// place: the text a client shows, and links. Returns the new length.
export function stripTags(p: usize, len: u32): u32 {
  let n: u32 = 0;
  for (let i: u32 = 0; i < len; i++) {
    const c = at(p, i);
    if (c == 0x3c && i + 1 < len) {
      const d = at(p, i + 1);
      if (isAsciiAlpha(d) || d == 0x2f || d == 0x21 || d == 0x3f) {
        let j = i + 1;
        while (j < len && at(p, j) != 0x3e) j++;
        i = j;
        continue;
      }
    }
    store<u8>(p + n++, <u8>c);
  }
  return n;
}

@inline function isSlash(c: u32): bool {
  return c == 0x2f || c == 0x5c;
}

// Bytes that end an authority: the URL's own ('/', '\\', '?', '#'), and those that end the value
// it is written in (white space and controls, quotes, '<', '>', a CSS url's ')', '`').
const ENDS_AUTHORITY: usize = memory.data<u8>([0xff, 0xff, 0xff, 0xff, 0x8d, 0x82, 0x00, 0xd0, 0x00, 0x00, 0x00, 0x10, 0x01, 0x00, 0x00, 0x00]);

// Bytes a scheme-relative URL can follow: the start of an attribute's value (white space, a quote,
// '='), of a CSS url( ), of a srcset candidate (','), of a markdown link's target ('[', '`', '>').
const STARTS_VALUE: usize = memory.data<u8>([0xff, 0xff, 0xff, 0xff, 0x85, 0x11, 0x00, 0x60, 0x00, 0x00, 0x00, 0x08, 0x01, 0x00, 0x00, 0x00]);

export let authorityEnd: u32 = 0;

// The start of the next authority a browser would fetch from in [p, p+len) at or after `from`
// (its end in authorityEnd), or -1: after "http:" or "https:" (any case) and any number of '/'
// or '\\', and after two of them at the start of a value ("//host", "\\\\host").
export function nextAuthority(p: usize, len: u32, from: u32): i32 {
  for (let i = from; i < len; i++) {
    let s: u32 = 0;
    if (at(p, i) == 0x3a && i >= 4 && httpBefore(p, i)) s = i + 1;
    else if (i + 1 < len && isSlash(at(p, i)) && isSlash(at(p, i + 1)) && (i == 0 || inSet(STARTS_VALUE, at(p, i - 1)))) s = i;
    else continue;
    while (s < len && isSlash(at(p, s))) s++;
    let e = s;
    while (e < len && !inSet(ENDS_AUTHORITY, at(p, e))) e++;
    if (e == s) continue;
    authorityEnd = e;
    return <i32>s;
  }
  return -1;
}

// Whether "http" or "https" (any case) ends at the ':' at i.
function httpBefore(p: usize, i: u32): bool {
  let k = i;
  if ((at(p, k - 1) | 0x20) == 0x73) k--;
  return k >= 4 && (at(p, k - 4) | 0x20) == 0x68 && (at(p, k - 3) | 0x20) == 0x74 &&
    (at(p, k - 2) | 0x20) == 0x74 && (at(p, k - 1) | 0x20) == 0x70;
}
