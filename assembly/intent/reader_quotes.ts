// Which of the message's bytes are not the user's own words: block quotes, fenced and inline
// code, chat transcripts, pasted and forwarded mail, quotations of a sentence, tagged blocks and
// pasted JSON (markQuotes, into `quoted`).
import {
  G_QUOTE_MARKER, G_HEADER, G_VERB, G_DETERMINER, G_DEST, G_SOURCE, G_RELATIVE, G_MENTION, OBJECT_SOURCE, OBJECT_CONVERTED,
  OBJECT_DESTINATION, OBJECT_INCLUDED,
} from "../../bytecode/format";
import { isAsciiAlpha, isAsciiDigit } from "../abi/bytes";
import { cjkLen } from "../readers/scan";
import { pyWhitespace } from "../readers/v4a";
import {
  at, msg, msgLen, quoted, lookup, NAME_KIND, T_PUNCT, P_COLON, P_SEMI, P_STOP, P_QUESTION, P_LINE, tokCount, tType, tA,
  tEnd, isPunct, isThing, wordHas, boundKind, verbIndexOf,
} from "./reader_state";
import { objectOf } from "./reader_verbs";

function markQuoted(from: u32, to: u32): void {
  if (to > from) memory.fill(quoted + from, 1, to - from);
}

function lineEnd(i: u32): u32 {
  while (i < msgLen && at(msg, i) != 0x0a) i++;
  return i;
}

function skipSpaces(i: u32, end: u32): u32 {
  while (i < end && (at(msg, i) == 0x20 || at(msg, i) == 0x09)) i++;
  return i;
}

// The first word of [i, end) lower-cased into the scratch word buffer: its length (0: none).
const lineWord: usize = memory.data(64);
function firstWordOf(i: u32, end: u32): u32 {
  let n: u32 = 0;
  while (i < end && n < 64) {
    const c = at(msg, i);
    if (isAsciiAlpha(c)) { store<u8>(lineWord + n, <u8>(c | 0x20)); n++; i++; continue; }
    if (c >= 0x80 && cjkLen(msg, msgLen, i) == 0 && pyWhitespace(msg, msgLen, i) == 0) { store<u8>(lineWord + n, <u8>c); n++; i++; continue; }
    break;
  }
  return n < 64 ? n : 0;
}

// Whether line [s, e) starts with a mail header: a HEADER word, then ':'.
function isHeaderLine(s: u32, e: u32): bool {
  const i = skipSpaces(s, e);
  const n = firstWordOf(i, e);
  if (n == 0) return false;
  const j = skipSpaces(i + n, e);
  if (j >= e || at(msg, j) != 0x3a) return false;
  return (lookup(lineWord, n) & G_HEADER) != 0;
}

// Whether line [s, e) announces pasted mail: a QUOTE_MARKER word in a line that starts with a
// rule of dashes or a bracket, or ends with ':' ("---------- Forwarded message ---------",
// "Begin forwarded message:", "On Tue, Jun 3, 2025 Dana <d@x> wrote:", "[BEGIN PASTED TEXT]").
function isMarkerLine(s: u32, e: u32): bool {
  const i = skipSpaces(s, e);
  let t = e;
  while (t > i && (at(msg, t - 1) == 0x20 || at(msg, t - 1) == 0x0d || at(msg, t - 1) == 0x09)) t--;
  if (t <= i) return false;
  const first = at(msg, i);
  const shaped = first == 0x2d || first == 0x5f || first == 0x3d || first == 0x5b || first == 0x2a || at(msg, t - 1) == 0x3a ||
    at(msg, t - 1) == 0x2d || at(msg, t - 1) == 0x5d;
  if (!shaped) return false;
  let k = i;
  while (k < t) {
    while (k < t && !isAsciiAlpha(at(msg, k)) && at(msg, k) < 0x80) k++;
    const n = firstWordOf(k, t);
    if (n == 0) { k++; continue; }
    if ((lookup(lineWord, n) & G_QUOTE_MARKER) != 0) return true;
    k += n;
  }
  return false;
}

// A chat transcript line: "[10:02] alice: …" or "10:02 alice: …".
function isChatLine(s: u32, e: u32): bool {
  let i = skipSpaces(s, e);
  if (i < e && at(msg, i) == 0x5b) i++;
  let d: u32 = 0;
  while (i < e && isAsciiDigit(at(msg, i))) { i++; d++; }
  return d >= 1 && d <= 2 && i + 2 < e && at(msg, i) == 0x3a && isAsciiDigit(at(msg, i + 1)) && isAsciiDigit(at(msg, i + 2));
}

// Whether line [i, e) (its leading spaces skipped) is three or more of one of - = _ and nothing else.
function ruleLine(i: u32, e: u32): bool {
  let t = e;
  while (t > i && at(msg, t - 1) <= 0x20) t--;
  if (t - i < 3) return false;
  const c = at(msg, i);
  if (c != 0x2d && c != 0x3d && c != 0x5f) return false;
  for (let j = i; j < t; j++) if (at(msg, j) != c) return false;
  return true;
}

function startsWith3(i: u32, e: u32, c: u32): bool {
  return i + 3 <= e && at(msg, i) == c && at(msg, i + 1) == c && at(msg, i + 2) == c;
}

// Marks every quoted byte: block quotes, fenced code, chat transcripts, pasted mail (from its
// marker or header block to the end), then inline code, tagged blocks and pasted JSON.
export function markQuotes(): void {
  memory.fill(quoted, 0, msgLen);
  let fence = false;
  let s: u32 = 0;
  while (s < msgLen) {
    const e = lineEnd(s);
    const i = skipSpaces(s, e);
    // A fence of backquotes or tildes, or a rule of dashes, equals signs or underscores on a line
    // of its own ("---" before a pasted text): what stands between two of them, or after one to
    // the end, is material.
    if (startsWith3(i, e, 0x60) || startsWith3(i, e, 0x7e) || ruleLine(i, e)) {
      fence = !fence;
      markQuoted(s, e);
    } else if (fence || (i < e && at(msg, i) == 0x3e) || isChatLine(s, e)) {
      markQuoted(s, e);
    } else if (isMarkerLine(s, e) || (isHeaderLine(s, e) && e + 1 < msgLen && isHeaderLine(e + 1, lineEnd(e + 1)))) {
      markQuoted(s, msgLen);
      break;
    }
    s = e + 1;
  }
  let i: u32 = 0;
  while (i < msgLen) {
    if (load<u8>(quoted + i) != 0) { i++; continue; }
    const c = at(msg, i);
    if (c == 0x60) i = inlineCode(i);
    else if (c == 0x22 || (c == 0x27 && (i == 0 || !isAsciiAlpha(at(msg, i - 1)))) || isOpeningQuote(i)) i = inlineQuote(i);
    else if (c == 0x3c) i = taggedBlock(i);
    else if (c == 0x7b || c == 0x5b) i = pastedJson(i);
    else i++;
  }
}

function inlineCode(i: u32): u32 {
  let j = i + 1;
  while (j < msgLen && at(msg, j) != 0x60 && at(msg, j) != 0x0a) j++;
  if (j < msgLen && at(msg, j) == 0x60 && j > i + 1) {
    markQuoted(i, j + 1);
    return j + 1;
  }
  return i + 1;
}

// “ (E2 80 9C) and « (C2 AB): quotes that open.
function isOpeningQuote(i: u32): bool {
  const c = at(msg, i);
  if (c == 0xe2) return i + 2 < msgLen && at(msg, i + 1) == 0x80 && at(msg, i + 2) == 0x9c;
  return c == 0xc2 && i + 1 < msgLen && at(msg, i + 1) == 0xab;
}

// A quotation in a line ("…", '…', “…”, «…») that holds a sentence, four words or more, is
// material the user brought (a message to check, a paragraph to proofread), not their request;
// a short one ("the 'Hotel Lumen'") names what it quotes.
function inlineQuote(i: u32): u32 {
  const c = at(msg, i);
  const open: u32 = c == 0xe2 ? 3 : c == 0xc2 ? 2 : 1;
  let j = i + open;
  let words: u32 = 0;
  let inWord = false;
  while (j < msgLen && at(msg, j) != 0x0a) {
    const d = at(msg, j);
    if (open == 1 && d == c && (c == 0x22 || j + 1 >= msgLen || !isAsciiAlpha(at(msg, j + 1)))) break;
    if (open == 3 && d == 0xe2 && j + 2 < msgLen && at(msg, j + 1) == 0x80 && at(msg, j + 2) == 0x9d) break; // ”
    if (open == 2 && d == 0xc2 && j + 1 < msgLen && at(msg, j + 1) == 0xbb) break; // »
    const space = d == 0x20 || d == 0x09;
    if (!space && !inWord) words++;
    inWord = !space;
    j++;
  }
  if (j >= msgLen || at(msg, j) == 0x0a || words < 4) return i + open;
  const close: u32 = open == 1 ? 1 : open;
  markQuoted(i, j + close);
  return j + close;
}

function isTagByte(c: u32): bool {
  return isAsciiAlpha(c) || isAsciiDigit(c) || c == 0x2d || c == 0x5f;
}

// `<name …>` … `</name>`: a pasted document; the tags' attributes are quoted too.
function taggedBlock(i: u32): u32 {
  let j = i + 1;
  if (j >= msgLen || !isAsciiAlpha(at(msg, j))) return i + 1;
  while (j < msgLen && isTagByte(at(msg, j))) j++;
  const nameLen = j - i - 1;
  if (j >= msgLen || !(at(msg, j) == 0x3e || at(msg, j) == 0x20 || at(msg, j) == 0x2f || at(msg, j) == 0x0a)) return i + 1;
  // The closing tag, ASCII case aside.
  for (let k = j; k + nameLen + 3 <= msgLen; k++) {
    if (at(msg, k) != 0x3c || at(msg, k + 1) != 0x2f) continue;
    let same = true;
    for (let n: u32 = 0; n < nameLen && same; n++) same = (at(msg, k + 2 + n) | 0x20) == (at(msg, i + 1 + n) | 0x20);
    if (!same || at(msg, k + 2 + nameLen) != 0x3e) continue;
    markQuoted(i, k + 3 + nameLen);
    return k + 3 + nameLen;
  }
  return i + 1;
}

// `{"…": …}` or `["…", …]`: pasted data, to its balancing bracket (strings respected).
function pastedJson(i: u32): u32 {
  const open = at(msg, i);
  let j = i + 1;
  while (j < msgLen && (at(msg, j) == 0x20 || at(msg, j) == 0x0a || at(msg, j) == 0x0d || at(msg, j) == 0x09)) j++;
  if (j >= msgLen) return i + 1;
  const n = at(msg, j);
  if (!(n == 0x22 || (open == 0x5b && n == 0x7b))) return i + 1;
  let depth: u32 = 0;
  let inString = false;
  for (let k = i; k < msgLen; k++) {
    const c = at(msg, k);
    if (inString) {
      if (c == 0x5c) k++;
      else if (c == 0x22) inString = false;
      continue;
    }
    if (c == 0x22) inString = true;
    else if (c == 0x7b || c == 0x5b) depth++;
    else if (c == 0x7d || c == 0x5d) {
      depth--;
      if (depth == 0) {
        markQuoted(i, k + 1);
        return k + 1;
      }
    }
  }
  markQuoted(i, msgLen); // an unbalanced paste runs to the end
  return msgLen;
}

// A colon that ends a clause whose verb reads or converts its object, the object not named before
// it ("Summarize this email for me: …", "Translate this to French: …", "Resume esto: …"): what
// follows is the material the verb acts on, which the user brought, not their request (as a
// quotation is). The byte the material starts at, or -1. Needs the tokens; a name may stand
// between (a language, a person), a value the verb could act on may not ("Review x.py: …"), and
// a sentence must follow.
export function materialStart(): i64 {
  for (let k: u32 = 0; k < tokCount; k++) {
    if (!isPunct(k, P_COLON) || !sentenceAfter(k)) continue;
    let valueAfter = false; // a value the verb reached could act on stands before the colon
    for (let j = k; j > 0;) {
      j--;
      if (tType(j) == T_PUNCT) {
        const code = tA(j);
        if (code == P_STOP || code == P_QUESTION || code == P_LINE || code == P_SEMI || code == P_COLON) break;
        continue;
      }
      if (isThing(j)) {
        if (boundKind(tA(j)) != NAME_KIND) valueAfter = true;
        continue;
      }
      // A verb's word after a determiner is a noun ("this email", "the post").
      if (!wordHas(j, G_VERB) || verbIndexOf(j) == 0 || (j > 0 && wordHas(j - 1, G_DETERMINER))) continue;
      const object = objectOf(j);
      if (object == OBJECT_SOURCE || object == OBJECT_CONVERTED) {
        if (valueAfter) break;
        return <i64>tEnd(k);
      }
      // "Send this to bob@x: …": a verb whose object is a bare determiner points at what the
      // colon brings; "summarize this and send it to bob@x: …": a verb that sends on what an
      // earlier one read is passed over, and the earlier one decides.
      if (object != OBJECT_DESTINATION && object != OBJECT_INCLUDED) break;
      if (pointsAhead(j)) return <i64>tEnd(k);
      valueAfter = false; // the values after it are its destinations
    }
  }
  return -1;
}

// Whether verb j's object is a determiner standing alone ("send this to …", "forward it:"):
// what it stands for comes after the colon.
function pointsAhead(j: u32): bool {
  if (j + 1 >= tokCount || !wordHas(j + 1, G_DETERMINER)) return false;
  const n = j + 2;
  return n >= tokCount || tType(n) == T_PUNCT || isThing(n) || wordHas(n, G_DEST | G_SOURCE | G_RELATIVE | G_MENTION);
}

// Whether a sentence follows colon k, four words or more, as a quotation needs: one value alone
// ("her website: www.dora.example") is what the clause pointed at, not material.
function sentenceAfter(k: u32): bool {
  let words: u32 = 0;
  for (let j = k + 1; j < tokCount && words < 4; j++) if (tType(j) != T_PUNCT) words++;
  return words >= 4;
}

// Marks the bytes from `from` to the message's end quoted.
export function quoteFrom(from: u32): void {
  markQuoted(from, msgLen);
}
