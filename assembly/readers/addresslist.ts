// Recipient lists as Python's mail stack reads them (docs/bytecode.md §5.2 EMAIL): RFC 5322
// address lists (display names, groups, comments, quoted local parts, `,` or `;` between items)
// and what email.utils.getaddresses makes of a malformed one (`<bob@x>eve@y` reaches eve too).
// Every `local@domain` outside a comment is an address; a list the grammar does not hold is
// opaque besides, as is an encoded word (`=?utf-8?q?…?=`), which the mail stack decodes first.
import { SUBJ_EMAIL, SUBJ_RECIPIENT, SUBJ_OPAQUE } from "../../bytecode/format";
import { isSpace, lowerAscii, inSet } from "../abi/bytes";
import { addTarget, addTargetCopy, fail, TARGETS_OOM } from "./targettable";
import { scratch } from "./normalize_span";

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

const END: u32 = 0, WORD: u32 = 1, QUOTED: u32 = 2, LITERAL: u32 = 3, BAD: u32 = 4, DOT: u32 = 0x2e;

// RFC 5322's specials: ( ) < > [ ] : ; @ \ , . and the double quote.
const SPECIALS: usize = memory.data<u8>([0, 0, 0, 0, 0x04, 0x53, 0x00, 0x5c, 0x01, 0x00, 0x00, 0x38, 0x00, 0x00, 0x00, 0x00]);
@inline function isSpecial(c: u32): bool {
  return inSet(SPECIALS, c);
}

let src: usize = 0;
let srcLen: u32 = 0;
let pos: u32 = 0;
let tok: u32 = END;
let tokStart: u32 = 0;
let tokEnd: u32 = 0;
// Set by what Python's parsers read otherwise than RFC 5322 does (or than each other): an escape
// in a quoted string or comment, a line break, a domain literal, a domain with an empty label.
let odd = false;

// The next token after white space and comments: a word (an atom), a quoted string, a domain
// literal, a special (its byte), END, or BAD (an unclosed comment, quote or literal).
function next(): u32 {
  while (pos < srcLen) {
    const c = at(src, pos);
    if (isSpace(c)) {
      odd = odd || c == 0x0a || c == 0x0d; // compat32 ends an address at a line break
      pos++;
      continue;
    }
    if (c != 0x28) break;
    let depth: u32 = 0;
    do {
      const d = at(src, pos++);
      if (d == 0x5c) { pos++; odd = true; }
      else if (d == 0x28) depth++;
      else if (d == 0x29) depth--;
    } while (depth > 0 && pos < srcLen);
    if (depth > 0) return tok = BAD;
  }
  tokStart = pos;
  if (pos >= srcLen) return tok = END;
  const c = at(src, pos++);
  if (c == 0x22 || c == 0x5b) {
    const close = c == 0x22 ? c : 0x5d;
    while (pos < srcLen && at(src, pos) != close) {
      if (at(src, pos) == 0x5c) { pos++; odd = true; }
      pos++;
    }
    if (pos++ >= srcLen) return tok = BAD;
    tokEnd = pos;
    return tok = c == 0x22 ? QUOTED : LITERAL;
  }
  tokEnd = pos;
  if (isSpecial(c)) return tok = c;
  while (pos < srcLen && !isSpace(at(src, pos)) && !isSpecial(at(src, pos))) pos++;
  tokEnd = pos;
  return tok = WORD;
}

// A run of words and dots: how many words, whether two stood with no dot between (a display
// name, not a local part) or a dot stood first, last or next to another (no local part the
// mail stack reads alike), and the last unbroken run, [runStart, runEnd).
let words: u32 = 0;
let loose = false;
let dotty = false;
let runStart: u32 = 0;
let runEnd: u32 = 0;
function phrase(): void {
  words = 0;
  loose = false;
  dotty = false;
  let prevWord = false;
  runStart = tokStart;
  while (tok == WORD || tok == QUOTED || tok == DOT) {
    const word = tok != DOT;
    if (word && prevWord) { loose = true; runStart = tokStart; }
    if (!word && !prevWord) dotty = true;
    if (word) words++;
    prevWord = word;
    runEnd = tokEnd;
    next();
  }
  if (!prevWord) dotty = true;
}

// After an '@': a domain literal or dotted atoms, [domStart, domEnd); false when none.
let domStart: u32 = 0;
let domEnd: u32 = 0;
function domain(): bool {
  domStart = domEnd = tokStart;
  if (tok == LITERAL) {
    odd = true;
    domEnd = tokEnd;
    next();
    return true;
  }
  let any = false;
  while (tok == WORD) {
    any = true;
    domEnd = tokEnd;
    if (next() != DOT) break;
    odd = next() != WORD || odd;
  }
  return any;
}

let recipients = false;

// Whether [p, p+n) is a dot-atom: atoms of characters no special, space or control, joined by
// single dots.
function dotAtom(p: usize, n: u32): bool {
  if (n == 0) return false;
  for (let i: u32 = 0; i < n; i++) {
    const c = at(p, i);
    if (c == DOT ? i == 0 || i + 1 == n || at(p, i + 1) == DOT : c <= 0x20 || c == 0x7f || isSpecial(c)) return false;
  }
  return true;
}

// The tokens of [s, e) written to out, lower-cased: words and literals as they are, quoted
// strings' contents without their escapes, dots as '.'. Returns the length written.
function putTokens(out: usize, s: u32, e: u32): u32 {
  const saved = pos, savedTok = tok, savedStart = tokStart, savedEnd = tokEnd;
  pos = s;
  let n: u32 = 0;
  while (next() != END && tok != BAD && tokStart < e) {
    const q: u32 = tok == QUOTED ? 1 : 0;
    for (let i = tokStart + q; i < tokEnd - q; i++) {
      if (q != 0 && at(src, i) == 0x5c) i++;
      store<u8>(out + n++, <u8>lowerAscii(at(src, i)));
    }
  }
  pos = saved;
  tok = savedTok;
  tokStart = savedStart;
  tokEnd = savedEnd;
  return n;
}

// Adds the address local@domain in normal form: a quoted string's content without its quotes
// (`"bob"@x` is bob@x), the domain without trailing dots. A local part that is no dot-atom
// without its quotes (`"a b"@x`) is opaque besides: its normal form is not the policy's.
function emit(localStart: u32, localEnd: u32): void {
  const out = scratch(<usize>(localEnd - localStart + domEnd - domStart + 1));
  if (out == 0) { fail(TARGETS_OOM); return; }
  let n = putTokens(out, localStart, localEnd);
  if (!dotAtom(out, n)) addTargetCopy(SUBJ_OPAQUE, src, srcLen);
  store<u8>(out + n++, 0x40);
  n += putTokens(out + n, domStart, domEnd);
  addTarget(SUBJ_EMAIL, out, n);
  if (recipients) addTarget(SUBJ_RECIPIENT, out, n);
}

// Every `local@domain` of [p, p+len) outside comments, whatever the list around it; the last
// run of words before an '@' is its local part.
export function listAddresses(p: usize, len: u32, asRecipients: bool): void {
  src = p;
  srcLen = len;
  pos = 0;
  recipients = asRecipients;
  next();
  while (tok != END && tok != BAD) {
    phrase();
    if (tok != 0x40) { next(); continue; }
    const s = runStart, e = runEnd;
    next();
    if (words > 0 && domain()) emit(s, e);
  }
}

// Whether [p, p+len) holds an encoded word ("=?").
function encodedWord(p: usize, len: u32): bool {
  for (let i: u32 = 0; i + 1 < len; i++) if (at(p, i) == 0x3d && at(p, i + 1) == 0x3f) return true;
  return false;
}

// Whether the list is one RFC 5322 address list (`,` or `;` between items, empty items allowed):
// mailboxes (`local@domain`, or a display name and `<local@domain>`) and groups of them. An item
// with no '@' (`bob`, `"eve@y"`) is not: the mail stack delivers it to a mailbox of the server's
// choosing, or to the quoted string's content.
function wellFormed(): bool {
  pos = 0;
  odd = false;
  let group = false;
  next();
  while (true) {
    phrase();
    if (tok == 0x3a && !group && words > 0) { group = true; next(); continue; }
    if (tok == 0x3c) {
      next();
      phrase();
      if (tok != 0x40 || words == 0 || loose || dotty) return false;
      next();
      if (!domain() || tok != 0x3e) return false;
      next();
    } else if (tok == 0x40) {
      if (words == 0 || loose || dotty) return false;
      next();
      if (!domain()) return false;
    } else if (words > 0) {
      return false;
    }
    if (tok == 0x3b && group) group = false;
    else if (tok == END) return !odd;
    else if (tok != 0x2c && tok != 0x3b) return false;
    next();
  }
  return true;
}

// A recipient list (the EMAIL role, an `email:` target): each address it reaches, as an EMAIL
// (and a RECIPIENT when `asRecipients`); false when the list is not well formed.
export function readRecipientList(p: usize, len: u32, asRecipients: bool): bool {
  listAddresses(p, len, asRecipients);
  return !encodedWord(p, len) && wellFormed();
}
