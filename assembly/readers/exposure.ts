// Settings that widen exposure (docs/bytecode.md §3.3 "exposure", docs/policy.md "classify"):
// public or private, a sharing role, who a link reaches, whether search finds it. Each setting has
// levels, narrow first; an argument value of a tool nobody mapped that CLASSIFY's `exposure_args`
// lists sets one level. The narrowest runs unstated; a wider one needs the request's words for it:
// a word of `exposure_words` in a user's message chooses a level ("public", "anyone with the
// link", "read-only"), and a negated one ("do not make it public") rules that level and the wider
// ones out. A level wider than the one the request chose is ruled out too.
//
// The binder's turn (`intent`) reads each message here too (exposureBind), into a small record
// per session; a decision reads it back (exposureCall, exposureTarget) and makes an OBJECT target
// of a wide value: "ARG=VALUE (ruled out by the request)" or "ARG=VALUE (not chosen by the request)", which
// the policy's rules block or ask about. A narrow value, or one the request chose, makes none.
import {
  G_CONJ, G_DETERMINER, G_SOURCE, G_RELATIVE, G_DEST, SUBJ_OBJECT, MOOD_QUESTION, MOOD_STATEMENT, MOOD_REQUEST, BOUND_QUOTED,
} from "../../bytecode/format";
import { readingAt, readingMood, readingRole } from "../intent/reader";
import { verbNow } from "../intent/reader_state";
import {
  setFind, classifyExposureArgSet, classifyExposureWordSet, intentNegationSet, intentCancelSet, intentGrammarSet,
} from "../policy/decode";
import { realloc, scratchAlloc } from "../abi/mem";
import { lowerAscii } from "../abi/bytes";
import { leafPath, leafPathLen, leafValue, leafValueLen } from "./json";
import { addTarget, fail, TARGETS_OOM } from "./targettable";

export const SETTINGS: u32 = 8;
// Per session slot: u32 handle, u8 stated[8] (level + 1 the request chose, the narrowest it
// stated; 0 none), u8 ruled[8] (the narrowest level ruled out + 1: it and every wider one; 0
// none), u8 wide[8] (the widest level it stated + 1: those between are asked about).
const ENTRY: usize = 28;
let table: usize = 0;
let tableSlots: u32 = 0;
// What one message says: the same two arrays.
const msgStated: usize = memory.data(8);
const msgRuled: usize = memory.data(8);
const msgWide: usize = memory.data(8);
// Whether the binder's reader read this message: then a word chooses only where the reader
// reads a request (readingAt), else nowhere.
let moodsRead = false;
let clauseAsks = false; // the clause being read ends in ? or ？
// Read in a message's first bytes only (a long message is a paste more than a request, and what
// it would choose past them is asked about, never allowed).
const READ_MAX: u32 = 4096;
const PHRASE_WORDS: u32 = 4;   // a phrase is at most this many words
const CJK_CHARS: u32 = 8;      // a word of a script without spaces: at most this many characters
const PHRASE_MAX: u32 = 96;    // bytes

@inline function slotOf(h: i32): u32 {
  return (<u32>h & 0xfffff) - 1;
}

function entryOf(h: i32, create: bool): usize {
  if (h <= 0) return 0;
  const slot = slotOf(h);
  if (slot >= tableSlots) {
    if (!create) return 0;
    const want = slot + 8;
    const grown = realloc(table, <usize>want * ENTRY);
    if (grown == 0) return 0;
    memory.fill(grown + <usize>tableSlots * ENTRY, 0, <usize>(want - tableSlots) * ENTRY);
    table = grown;
    tableSlots = want;
  }
  const e = table + <usize>slot * ENTRY;
  // A handle of an earlier session in the slot: its record is not this session's.
  if (load<u32>(e) != <u32>h) {
    if (!create) return 0;
    memory.fill(e, 0, ENTRY);
    store<u32>(e, <u32>h);
  }
  return e;
}

// ---- reading a message ----
@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// The byte length of the character at i (1 for a stray continuation byte).
function charLen(p: usize, len: u32, i: u32): u32 {
  const c = at(p, i);
  const n: u32 = c < 0xc0 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
  return min(n, len - i);
}

// 0 none, else the byte length of a clause break at i: . , ; : ! ? before white space or the end,
// a line break, a dash between spaces, and the full-width marks 。，、！？；： and – —.
function breakAt(p: usize, len: u32, i: u32): u32 {
  const c = at(p, i);
  if (c == 0x0a) return 1;
  if (c == 0x2e || c == 0x2c || c == 0x3b || c == 0x3a || c == 0x21 || c == 0x3f) {
    return i + 1 == len || at(p, i + 1) <= 0x20 ? 1 : 0;
  }
  if (c == 0xe3 && i + 2 < len && at(p, i + 1) == 0x80 && (at(p, i + 2) == 0x82 || at(p, i + 2) == 0x81)) return 3;
  if (c == 0xef && i + 2 < len && at(p, i + 1) == 0xbc && (at(p, i + 2) == 0x8c || at(p, i + 2) == 0x81 || at(p, i + 2) == 0x9f || at(p, i + 2) == 0x9b || at(p, i + 2) == 0x9a)) return 3;
  if (c == 0xe2 && i + 2 < len && at(p, i + 1) == 0x80 && (at(p, i + 2) == 0x93 || at(p, i + 2) == 0x94)) return 3;
  return 0;
}

// A byte of a word of a spaced script: ASCII letters and digits, ' and - inside, and the
// characters of two bytes from U+00C0 on (Latin, Greek, Cyrillic letters; not « » ¿ ¡ or a
// no-break space).
function wordByte(p: usize, len: u32, i: u32): u32 {
  const c = at(p, i);
  if ((c | 0x20) - 0x61 < 26 || c - 0x30 < 10 || c == 0x27 || c == 0x2d) return 1;
  if (c >= 0xc3 && c < 0xe0) return charLen(p, len, i);
  if (c == 0xe2 && i + 2 < len && at(p, i + 1) == 0x80 && at(p, i + 2) == 0x99) return 3; // ’
  return 0;
}

// A character of a script written without spaces (CJK, kana, hangul): 3 or 4 bytes, not a break,
// not punctuation of the general block (U+2000-U+206F) or ’.
function cjkAt(p: usize, len: u32, i: u32): u32 {
  const c = at(p, i);
  if (c < 0xe3) return 0;
  if (breakAt(p, len, i) != 0) return 0;
  return charLen(p, len, i);
}

// Tokens of the clause being read: start, end, kind (0 a word, 1 a run without spaces).
const TOKENS_MAX: u32 = 256;
const tokens: usize = memory.data(TOKENS_MAX * 12);
let tokenCount: u32 = 0;
const phrase: usize = memory.data(PHRASE_MAX + 4);
let phraseLen: u32 = 0;
let message: usize = 0;

// Appends token k's bytes to the phrase, lower-cased (ASCII and Latin-1's À..Þ; ’ as ').
function appendToken(k: u32): bool {
  const s = load<u32>(tokens + <usize>k * 12), e = load<u32>(tokens + <usize>k * 12 + 4);
  let i = s;
  while (i < e) {
    if (phraseLen + 2 > PHRASE_MAX) return false;
    const c = at(message, i);
    if (c == 0xe2 && i + 2 < e && at(message, i + 1) == 0x80 && at(message, i + 2) == 0x99) {
      store<u8>(phrase + phraseLen++, 0x27);
      i += 3;
      continue;
    }
    if (c == 0xc3 && i + 1 < e && at(message, i + 1) >= 0x80 && at(message, i + 1) <= 0x9e && at(message, i + 1) != 0x97) {
      store<u8>(phrase + phraseLen++, 0xc3);
      store<u8>(phrase + phraseLen++, <u8>(at(message, i + 1) + 0x20));
      i += 2;
      continue;
    }
    store<u8>(phrase + phraseLen++, <u8>lowerAscii(c));
    i++;
  }
  return true;
}

function tokenKind(k: u32): u32 {
  return load<u32>(tokens + <usize>k * 12 + 8);
}

// Whether word token k is a negation ("not", "don't", "nicht"; "n'" of "n'est"), not cancelled
// by the word after it ("don't forget").
function negates(k: u32): bool {
  phraseLen = 0;
  if (!appendToken(k)) return false;
  let found = setFind(intentNegationSet(), phrase, phraseLen) >= 0;
  if (!found) {
    for (let j: u32 = 1; j + 1 < phraseLen; j++) {
      if (load<u8>(phrase + j) == 0x27) { found = setFind(intentNegationSet(), phrase, j + 1) >= 0; break; }
    }
  }
  if (!found || k + 1 >= tokenCount || tokenKind(k + 1) != 0) return found;
  phraseLen = 0;
  if (!appendToken(k + 1)) return true;
  return setFind(intentCancelSet(), phrase, phraseLen) < 0;
}

// The grammar's categories of word token k (§7.3), -1 when it knows none.
function grammarOf(k: u32): i64 {
  phraseLen = 0;
  if (!appendToken(k)) return -1;
  return setFind(intentGrammarSet(), phrase, phraseLen);
}

function isConjunction(k: u32): bool {
  const g = grammarOf(k);
  return g >= 0 && (<u32>g & G_CONJ) != 0;
}

// Whether word token k is one neither the grammar nor the settings know: a noun of the request.
function plainWord(k: u32): bool {
  if (k >= tokenCount || tokenKind(k) != 0 || grammarOf(k) >= 0) return false;
  phraseLen = 0;
  return appendToken(k) && setFind(classifyExposureWordSet(), phrase, phraseLen) <= 0;
}

// Whether word token k is an article or a possessive ("the", "our").
function determiner(k: u32): bool {
  if (tokenKind(k) != 0) return false;
  const g = grammarOf(k);
  return g >= 0 && (<u32>g & G_DETERMINER) != 0;
}

// Whether the one-word choice at token k, in a noun phrase (an article before it or before the
// noun before it), is about something else: it modifies the noun after it ("the public holiday
// calendar", "a public API client"), a noun before it modifies it ("our newsletter editor"), or
// "of" ties it to another thing ("the owner of the vendor account"). What a setting is about is
// a phrase of its own ("a public repository", "owner access"), matched before this.
function modifiesAnother(k: u32): bool {
  if (k == 0) return false;
  if (k >= 2 && determiner(k - 2) && plainWord(k - 1)) return true;
  if (!determiner(k - 1)) return false;
  if (plainWord(k + 1)) return true;
  if (k + 1 >= tokenCount || tokenKind(k + 1) != 0) return false;
  const g = grammarOf(k + 1);
  return g >= 0 && (<u32>g & (G_SOURCE | G_RELATIVE)) != 0 && (<u32>g & G_DEST) == 0;
}

// How a word at byte pos is read by the binder's reader: in a question ("is it public?"),
// quoted, or in a message it did not read, it chooses nothing (0); in a statement, whose verb
// is no request ("she edits the newsletter", "he owns the plan"), it only narrows (1): the
// levels wider than its own are ruled out, its own is not chosen; elsewhere it chooses (2).
function chooses(pos: u32): u32 {
  if (!moodsRead) return 0;
  readingAt(pos);
  if (readingMood == MOOD_QUESTION || readingRole == BOUND_QUOTED) return 0;
  // A clause that ends in a question mark is a question unless the reader reads a request
  // there ("could you make it public?"): "¿Es público?" has no word that asks.
  if (clauseAsks && readingMood != MOOD_REQUEST) return 0;
  return readingMood == MOOD_STATEMENT && verbNow >= 0 ? 1 : 2;
}

// What a word the request says at token k chooses: per setting, the level it names (§3.3's
// nibbles). The narrowest level a message states is its choice: "so she can comment; she is
// an owner" chooses comments.
function note(nibbles: u32, negated: bool, k: u32): void {
  const reading = negated ? 2 : chooses(load<u32>(tokens + <usize>k * 12));
  if (reading == 0) return;
  for (let s: u32 = 0; s < SETTINGS; s++) {
    let n = (nibbles >>> (s * 4)) & 15;
    if (n == 0) continue;
    if (reading == 1) n++; // the next wider level
    if (negated || reading == 1) {
      // "Not private" rules nothing out: the narrowest level always runs.
      const r = <u32>load<u8>(msgRuled + s);
      if (n > 1 && (r == 0 || n < r)) store<u8>(msgRuled + s, <u8>n);
    } else {
      const st = <u32>load<u8>(msgStated + s);
      if (st == 0 || n < st) store<u8>(msgStated + s, <u8>n);
      if (n > <u32>load<u8>(msgWide + s)) store<u8>(msgWide + s, <u8>n);
    }
  }
}

// Whether [p, p+n) of a run without spaces holds a negation (不要, しないで, 마세요).
function cjkNegation(p: usize, n: u32): bool {
  let i: u32 = 0;
  while (i < n) {
    let j = i;
    for (let c: u32 = 0; c < 3 && j < n; c++) {
      j += charLen(p, n, j);
      if (setFind(intentNegationSet(), p + i, j - i) >= 0) return true;
    }
    i += charLen(p, n, i);
  }
  return false;
}

// Reads the words of the clause tokens[0, tokenCount).
function readClause(): void {
  const words = classifyExposureWordSet();
  let cjkNegated = false;
  for (let k: u32 = 0; k < tokenCount; k++) {
    if (tokenKind(k) != 1) continue;
    const s = load<u32>(tokens + <usize>k * 12), e = load<u32>(tokens + <usize>k * 12 + 4);
    if (cjkNegation(message + s, e - s)) cjkNegated = true;
  }
  let negated = false;
  let k: u32 = 0;
  while (k < tokenCount) {
    const s = load<u32>(tokens + <usize>k * 12), e = load<u32>(tokens + <usize>k * 12 + 4);
    if (tokenKind(k) == 1) {
      // The longest word of the set at each character.
      let i = s;
      while (i < e) {
        let j = i, best: u32 = 0, bestNibbles: u32 = 0;
        for (let c: u32 = 0; c < CJK_CHARS && j < e; c++) {
          j += charLen(message, e, j);
          const v = setFind(words, message + i, j - i);
          if (v > 0) { best = j; bestNibbles = <u32>v; }
        }
        if (best != 0) {
          note(bestNibbles, negated || cjkNegated, k);
          i = best;
        } else {
          i += charLen(message, e, i);
        }
      }
      k++;
      continue;
    }
    if (negates(k)) negated = true;
    // The longest phrase of the set that starts at word k.
    let bestK: u32 = 0, bestNibbles: u32 = 0;
    phraseLen = 0;
    for (let m: u32 = 0; m < PHRASE_WORDS && k + m < tokenCount && tokenKind(k + m) == 0; m++) {
      if (m > 0) store<u8>(phrase + phraseLen++, 0x20);
      if (!appendToken(k + m)) break;
      const v = setFind(words, phrase, phraseLen);
      if (v > 0) { bestK = m + 1; bestNibbles = <u32>v; }
    }
    if (bestK > 1 || (bestK == 1 && !modifiesAnother(k))) {
      note(bestNibbles, negated, k);
      k += bestK;
    } else {
      k++;
    }
  }
}

// Reads message [p, p+len) for the words that choose an exposure level, into msgStated/msgRuled;
// a byte `skip` marks (a byte per message byte, nonzero: quoted, pasted or forwarded, not the
// user's own words; 0: none marked) ends a clause and is not read.
function readMessage(p: usize, len: u32, skip: usize): void {
  message = p;
  tokenCount = 0;
  let i: u32 = 0;
  while (i < len) {
    const b = skip != 0 && load<u8>(skip + i) != 0 ? 1 : breakAt(p, len, i);
    if (b != 0) {
      clauseAsks = at(p, i) == 0x3f || (b == 3 && at(p, i + 2) == 0x9f);
      readClause();
      clauseAsks = false;
      tokenCount = 0;
      i += b;
      continue;
    }
    let kind: u32 = 0;
    let e = i;
    if (wordByte(p, len, i) != 0) {
      while (e < len && breakAt(p, len, e) == 0 && (skip == 0 || load<u8>(skip + e) == 0)) {
        const n = wordByte(p, len, e);
        if (n == 0) break;
        e += n;
      }
    } else if (cjkAt(p, len, i) != 0) {
      kind = 1;
      while (e < len && (skip == 0 || load<u8>(skip + e) == 0)) {
        const n = cjkAt(p, len, e);
        if (n == 0) break;
        e += n;
      }
    } else {
      i += charLen(p, len, i);
      continue;
    }
    // Strip the ' and - that wrap a word ("'public'", "-").
    let s = i, t = e;
    if (kind == 0) {
      while (s < t && (at(p, s) == 0x27 || at(p, s) == 0x2d)) s++;
      while (t > s && (at(p, t - 1) == 0x27 || at(p, t - 1) == 0x2d)) t--;
    }
    if (t > s) {
      if (tokenCount == TOKENS_MAX) { readClause(); tokenCount = 0; }
      const rec = tokens + <usize>tokenCount * 12;
      store<u32>(rec, s);
      store<u32>(rec + 4, t);
      store<u32>(rec + 8, kind);
      tokenCount++;
      // A conjunction ends a clause: "update the description and do not make it public".
      if (kind == 0 && isConjunction(tokenCount - 1)) {
        tokenCount--;
        readClause();
        tokenCount = 0;
      }
    }
    i = e;
  }
  readClause();
}

// The user's message [p, p+len), session h's next turn, with the binder's map of the bytes that
// are not the user's own words (`skip`, or 0): what it chooses or rules out amends what earlier
// turns did (a later choice replaces an earlier one and takes a ruling-out of it back, a later
// ruling-out takes an earlier choice back). Returns false when the session's record could not be made.
export function exposureBind(h: i32, p: usize, len: u32, skip: usize, read: bool): bool {
  memory.fill(msgStated, 0, 8);
  memory.fill(msgRuled, 0, 8);
  memory.fill(msgWide, 0, 8);
  moodsRead = read;
  readMessage(p, min(len, READ_MAX), skip);
  let any = false;
  for (let s: u32 = 0; s < SETTINGS; s++) any = any || load<u8>(msgStated + s) != 0 || load<u8>(msgRuled + s) != 0;
  if (!any) return true;
  const e = entryOf(h, true);
  if (e == 0) return false;
  for (let s: u32 = 0; s < SETTINGS; s++) {
    const stated = <u32>load<u8>(msgStated + s), ruled = <u32>load<u8>(msgRuled + s), wide = <u32>load<u8>(msgWide + s);
    let st = <u32>load<u8>(e + 4 + s), ru = <u32>load<u8>(e + 12 + s), wi = <u32>load<u8>(e + 20 + s);
    if (stated != 0) {
      // A later turn's choice replaces an earlier one: "actually, view access is enough" after
      // "as an editor", "keep it private for now" after "make it public".
      st = stated;
      wi = wide;
      if (ru != 0 && ru <= wide) ru = wide + 1;
    }
    if (ruled != 0) {
      ru = ru == 0 ? ruled : min(ru, ruled);
      if (st >= ru) st = ru - 1;
      if (wi >= ru) wi = ru - 1;
    }
    store<u8>(e + 4 + s, <u8>st);
    store<u8>(e + 12 + s, <u8>ru);
    store<u8>(e + 20 + s, <u8>wi);
  }
  return true;
}

// ---- the call ----
let callHandle: i32 = 0;

// The session whose call is decided next (0: none; then every wide value is not asked for).
export function exposureCall(h: i32): void {
  callHandle = h;
}

const RULED: string = " (ruled out by the request)";
const UNASKED: string = " (not chosen by the request)";

// Leaf i of a call of a tool nobody mapped, which no role reads: when its last key and value are
// an exposure setting's (§3.3), adds the OBJECT target its level makes (none for the narrowest, or
// for a level the request chose) and returns true; false when it is no exposure setting.
export function exposureTarget(i: u32): bool {
  const set = classifyExposureArgSet();
  const path = leafPath(i), plen = leafPathLen(i);
  let k = plen;
  while (k > 0 && load<u8>(path + k - 1) != 0x2e) k--;
  const key = path + k, keyLen = plen - k;
  const v = leafValue(i), vlen = leafValueLen(i);
  if (keyLen == 0 || vlen == 0 || keyLen + vlen > 256) return false;
  const buf = scratchAlloc(keyLen + 1 + vlen);
  if (buf == 0) { fail(TARGETS_OOM); return true; }
  for (let j: u32 = 0; j < keyLen; j++) store<u8>(buf + j, <u8>lowerAscii(load<u8>(key + j)));
  store<u8>(buf + keyLen, 0x3d);
  for (let j: u32 = 0; j < vlen; j++) store<u8>(buf + keyLen + 1 + j, <u8>lowerAscii(load<u8>(v + j)));
  const found = setFind(set, buf, keyLen + 1 + vlen);
  if (found < 0) return false;
  const setting = <u32>found >> 4, level = <u32>found & 15;
  if (level == 0) return true;
  const e = entryOf(callHandle, false);
  const stated: u32 = e == 0 ? 0 : <u32>load<u8>(e + 4 + setting);
  const ruled: u32 = e == 0 ? 0 : <u32>load<u8>(e + 12 + setting);
  const wide: u32 = e == 0 ? 0 : <u32>load<u8>(e + 20 + setting);
  let verdict: string;
  if (ruled != 0 && level + 1 >= ruled) verdict = RULED;
  else if (stated != 0 && level + 1 <= stated) return true;
  // Wider than the level the request chose: ruled out, unless it also stated this one.
  else verdict = stated != 0 && level + 1 > wide ? RULED : UNASKED;
  // The target: ARG=VALUE (lower-case), then the verdict.
  const n = <u32>verdict.length;
  const out = scratchAlloc(keyLen + 1 + vlen + n);
  if (out == 0) { fail(TARGETS_OOM); return true; }
  memory.copy(out, buf, keyLen + 1 + vlen);
  for (let j: u32 = 0; j < n; j++) store<u8>(out + keyLen + 1 + vlen + j, <u8>verdict.charCodeAt(j));
  addTarget(SUBJ_OBJECT, out, n + keyLen + 1 + vlen);
  return true;
}
