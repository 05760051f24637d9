// A session's intent (docs/bytecode.md §7): the tests a decision asks of it and the binding of
// the user's turns into it. The layout, IN_INTENT's lookups, an ask's condition and the summary
// are in the intent_*.ts files beside it, re-exported here.
import {
  SUBJ_ARG, SUBJ_EMAIL, SUBJ_DOMAIN, SUBJ_URL, SUBJ_PATH, SUBJ_RECIPIENT, SUBJ_WRITE, SUBJ_OBJECT, SUBJ_AMOUNT,
  SET_MAX_INTENT_BYTES, INTENT_NAMED, INTENT_SOURCE, INTENT_EXACT, BOUND_DESTINATION, BOUND_SOURCE, BOUND_QUOTED, MOOD_REQUEST,
  MOOD_QUESTION, MOOD_CONDITION, MOOD_NEGATED, MOOD_UNKNOWN, MOOD_UNCERTAIN, MOOD_STATEMENT,
} from "../../bytecode/format";
import { NO, YES, MAYBE, either } from "../decision/tri";
import { globMatch, globsMeet } from "../readers/glob";
import { alloc, free, scratchAlloc } from "../abi/mem";
import { fnv1a, indexOfByte, lowerAscii, equalsAscii, sameBytes } from "../abi/bytes";
import {
  settingValue, classCount, classCapability, strPtr, strLen, intentNegationSet, intentNothingSet,
  intentExtensionSet, intentVerbSet, intentCancelSet, intentVerbClassStart, intentVerbClassCount, intentClass,
} from "../policy/decode";
import { outAscii, outByte, outBytes, Text } from "../abi/out";
import { policyWords } from "../readers/wordset";
import {
  span, spanPtr, spanLen, resolvePath, normalizeEmail, normalizeUrl, urlHost, normalizeHost,
  hostOfNormalUrl, urlIsBareHost, cwdPtr, cwdLen, takeOutOfMemory,
} from "../readers/normalize";
import { itemsBegin, nextItem, itemStart, itemEnd, itemNext, itemIsWordHost } from "../readers/scan";
import {
  readMessage, boundCount, boundKind, boundStart, boundEnd, boundRole, boundMood, boundNoteStart, boundNoteEnd,
  boundWordHost, useCount, useVerb, useWord, useWordLen, useEffect, useNoteStart, useNoteEnd, USE_PROHIBIT, USE_RESTRICT,
  USE_GRANT, USE_GRANT_MAYBE, opCount, opCode, opMatch, opA, opB, OP_REVOKE_ALL, OP_KEEP, OP_EXCLUDE, OP_RESTORE, MATCH_BOUND,
  MATCH_WORD, insteadSeen, messagePtr, readingAt, readingRole, readingMood, readingNoteStart, readingNoteEnd,
} from "./reader";
import { bindObjects, objectNormal, objectStart } from "./objects";
import { amountWithin } from "../readers/amount";
import {
  PROHIBITED, GRANTED, NAME, ASKED, GRANTED_MAYBE, DERIVED, A_DEST, A_DEST_MAYBE, A_NAMED, A_REVOKED, A_BARE_HOST,
  A_SOURCE, A_SOURCE_MAYBE, A_RULED_OUT, A_GRANTS, vetoes, ITEM_HEAD, recSize, noteOf, HEADER, H_SIZE, H_COUNT,
  H_CLASS_WORDS, H_SLOTS, H_ITEMS, H_ITEMS_BYTES, H_SLOTS_AT, H_TURN, field, padded, hashOf, TURN_MAX, kindMatches,
  classBit, setClassBit,
} from "./intent_record";
import { reading } from "./intent_lookup";

export {
  A_DEST, A_DEST_MAYBE, A_NAMED, A_NAMED_MAYBE, A_REVOKED, A_BARE_HOST, A_SOURCE, A_SOURCE_MAYBE, A_RULED_OUT,
} from "./intent_record";
export { intentHas, intentDerivedHas } from "./intent_lookup";
export { intentConditionOf, conditionLen, CONDITION_OF_CLASS } from "./intent_condition";
export { intentWriteSummary } from "./intent_summary";

// Whether pattern [pat, pat+patLen) (§6.7) may stand for a value the intent grants (a named item
// under the reading `flavor`, a derived one with `derived`): an item, or for a path one below it,
// or for a host one of its subdomains, that some value of the pattern is.
export function intentMeetsPattern(intent: usize, derived: bool, subject: u32, pat: usize, patLen: u32, flavor: u32): bool {
  if (intent == 0) return false;
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  const base: u32 = derived ? DERIVED : 0;
  let off: u32 = 0;
  while (off < bytes) {
    const rec = items + <usize>off;
    const kind = load<u32>(rec), l = load<u32>(rec + 8);
    off += recSize(rec);
    if (kind < base || !kindMatches(subject, kind - base)) continue;
    if (!derived && reading(load<u32>(rec + 12), flavor) == NO) continue;
    const v = rec + ITEM_HEAD;
    if (globsMeet(pat, patLen, v, l)) return true;
    if (!derived && flavor == INTENT_EXACT) continue; // the value itself, not one below it
    const tail = scratchAlloc(<usize>l + 3);
    if (tail == 0) return true; // out of memory: the safe answer is "may"
    const path = kind - base == SUBJ_PATH;
    if (path) {
      memory.copy(tail, v, l);
      store<u8>(tail + l, 0x2f);
      store<u8>(tail + l + 1, 0x2a);
      store<u8>(tail + l + 2, 0x2a);
    } else {
      store<u8>(tail, 0x2a);
      store<u8>(tail + 1, 0x2a);
      store<u8>(tail + 2, 0x2e);
      memory.copy(tail + 3, v, l);
    }
    if ((path || kind - base == SUBJ_DOMAIN) && globsMeet(pat, patLen, tail, l + 3)) return true;
  }
  return false;
}

export function intentProhibits(intent: usize, classIdx: u32): bool {
  return intent != 0 && classBit(intent, 0, classIdx);
}

// Whether the user's own messages named any item of the subject's kind that the reading
// `flavor` grants, yes or maybe (§7, TEST_INTENT_ANY).
export function intentNamesKind(intent: usize, subject: u32, flavor: u32): bool {
  if (intent == 0) return false;
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let off: u32 = 0;
  while (off < bytes) {
    const rec = items + <usize>off;
    if (kindMatches(subject, load<u32>(rec)) && load<u32>(rec) != NAME && reading(load<u32>(rec + 12), flavor) != NO) return true;
    off += recSize(rec);
  }
  return false;
}

// Whether a verb of the user's own messages, not negated, granted the class (§7, TEST_GRANTED):
// YES in a plain request, MAYBE under a condition the fence cannot check.
export function intentGrants(intent: usize, classIdx: u32): u32 {
  if (intent == 0) return NO;
  if (classBit(intent, 1, classIdx)) return YES;
  return classBit(intent, 3, classIdx) ? MAYBE : NO;
}

// Whether a narrowing asks about the class (§7.2): an allow becomes an ask.
export function intentAsks(intent: usize, classIdx: u32): bool {
  return intent != 0 && classBit(intent, 2, classIdx);
}

export function intentFree(intent: usize): void {
  free(intent);
}

// ---- binding ----

// The items of one message, collected in scratch before the intent is rebuilt: kind, class,
// ptr, len, attributes, meta, note ptr, note len.
const FOUND: u32 = 32;
let found: usize = 0;
let foundCount: u32 = 0;
let foundCapacity: u32 = 0;
let foundBytes: u32 = 0;
let turnNow: u32 = 0; // the turn being bound (1 for the first message)
let metaNow: u32 = 0; // role | mood << 4 of the value being collected
let noteP: usize = 0;
let noteL: u32 = 0;

function collectWith(kind: u32, cls: u32, s: u64, attributes: u32): bool {
  if (takeOutOfMemory()) return false;
  if (s == 0) return true;
  if (foundCount == foundCapacity) {
    const more = foundCapacity == 0 ? 64 : foundCapacity << 1;
    const table = scratchAlloc(<usize>more * FOUND);
    if (table == 0) return false;
    if (foundCount > 0) memory.copy(table, found, <usize>foundCount * FOUND);
    found = table;
    foundCapacity = more;
  }
  const rec = found + <usize>foundCount * FOUND;
  store<u32>(rec, kind);
  store<u32>(rec + 4, cls);
  store<u32>(rec + 8, <u32>spanPtr(s));
  store<u32>(rec + 12, spanLen(s));
  store<u32>(rec + 16, attributes);
  store<u32>(rec + 20, metaNow | (min(turnNow, TURN_MAX) << 8));
  store<u32>(rec + 24, <u32>noteP);
  store<u32>(rec + 28, noteL);
  foundCount++;
  foundBytes += ITEM_HEAD + padded(spanLen(s)) + padded(noteL);
  return true;
}

// What the user's words grant a value of this role and mood (§7.3).
function attributesOf(role: u32, mood: u32): u32 {
  if (role == BOUND_QUOTED) return 0;
  if (mood == MOOD_UNKNOWN) return A_DEST_MAYBE | A_SOURCE_MAYBE | A_NAMED;
  if (mood == MOOD_UNCERTAIN) return role == BOUND_DESTINATION ? A_DEST_MAYBE | A_SOURCE | A_NAMED : A_NAMED;
  if (mood == MOOD_NEGATED) return A_RULED_OUT;
  if (mood == MOOD_STATEMENT) return A_NAMED;
  if (mood == MOOD_QUESTION) return A_SOURCE | A_NAMED;
  if (mood == MOOD_CONDITION) {
    if (role == BOUND_DESTINATION) return A_DEST_MAYBE | A_SOURCE_MAYBE | A_NAMED;
    return role == BOUND_SOURCE ? A_SOURCE_MAYBE | A_NAMED : A_NAMED;
  }
  if (role == BOUND_DESTINATION) return A_DEST | A_SOURCE | A_NAMED;
  return role == BOUND_SOURCE ? A_SOURCE | A_NAMED : A_NAMED;
}

let attrsNow: u32 = 0; // what the value being collected is granted (derived items: 0)

function itemAttributes(base: u32): u32 {
  return base == DERIVED ? 0 : attrsNow;
}

const HTTPS: usize = memory.data<u8>([0x68, 0x74, 0x74, 0x70, 0x73, 0x3a, 0x2f, 0x2f]); // "https://"

// The URLs "https://WORD" and "http://WORD" of a host written with its path.
function collectSchemed(base: u32, p: usize, len: u32): bool {
  const buf = scratchAlloc(<usize>len + 8);
  if (buf == 0) return false;
  memory.copy(buf, HTTPS, 8);
  memory.copy(buf + 8, p, len);
  if (!collectWith(base + SUBJ_URL, 0, normalizeUrl(buf, len + 8), itemAttributes(base))) return false;
  memory.copy(buf + 1, HTTPS, 4); // "http" + "://WORD", one byte on
  return collectWith(base + SUBJ_URL, 0, normalizeUrl(buf + 1, len + 7), itemAttributes(base));
}

function lowerCopy(p: usize, len: u32): u64 {
  const out = scratchAlloc(max<usize>(<usize>len, 1));
  if (out == 0) return 0;
  for (let i: u32 = 0; i < len; i++) store<u8>(out + i, <u8>lowerAscii(load<u8>(p + i)));
  return span(out, len);
}

// One item of kind `kind` (SUBJ_*) at [s, s+n) of text p; wordStart/wordEnd: the word of the
// last PATH item ("example.com/docs" names that page).
let wordStart: u32 = 0;
let wordEnd: u32 = 0;
function collectOne(p: usize, base: u32, kind: u32, start: u32, end: u32, wordHost: bool): bool {
  const s = p + start;
  const n = end - start;
  const a = itemAttributes(base);
  if (kind == SUBJ_EMAIL) return collectWith(base + SUBJ_EMAIL, 0, normalizeEmail(s, n), a);
  if (kind == SUBJ_DOMAIN && wordHost) {
    // A host written with a path names that page (as https:// and http://), not the host.
    return collectWith(base + SUBJ_DOMAIN, 0, normalizeHost(s, n), a) && collectSchemed(base, p + wordStart, wordEnd - wordStart);
  }
  if (kind == SUBJ_DOMAIN) return collectWith(base + SUBJ_DOMAIN, 0, normalizeHost(s, n), a | (a != 0 ? A_BARE_HOST : 0));
  if (kind == SUBJ_PATH) {
    wordStart = start;
    wordEnd = end;
    return collectWith(base + SUBJ_PATH, 0, resolvePath(s, n, cwdPtr(), cwdLen()), a);
  }
  if (kind == SUBJ_RECIPIENT || kind == NAME) {
    const r = lowerCopy(s, n);
    return r != 0 && collectWith(kind == NAME ? NAME : base + SUBJ_RECIPIENT, 0, r, a);
  }
  if (kind == SUBJ_URL) {
    return collectWith(base + SUBJ_URL, 0, normalizeUrl(s, n), a) && collectWith(base + SUBJ_DOMAIN, 0, urlHost(s, n, false), a);
  }
  return true;
}

// Collects the addresses, URLs, domains, paths, channels and handles text [p, p+len) names,
// as derived items (kind DERIVED + subject); false when out of memory.
function collectDerived(p: usize, len: u32): bool {
  const extensions = policyWords(intentExtensionSet());
  itemsBegin();
  metaNow = 0;
  noteP = 0;
  noteL = 0;
  let from: u32 = 0;
  while (true) {
    const kind = nextItem(p, len, from, extensions);
    if (kind == 0) break;
    from = itemNext;
    if (!collectOne(p, DERIVED, kind, itemStart, itemEnd, itemIsWordHost)) return false;
  }
  return true;
}

// Whether a verb of the message being read grants class `cls`, plainly or under a condition.
function messageGrants(cls: u32): bool {
  for (let k: u32 = 0; k < useCount; k++) {
    const effect = useEffect(k);
    if (effect != USE_GRANT && effect != USE_GRANT_MAYBE) continue;
    const start = intentVerbClassStart(useVerb(k));
    const end = start + intentVerbClassCount(useVerb(k));
    for (let c = start; c < end; c++) if (intentClass(c) == cls) return true;
  }
  return false;
}

// What the user's words grant an object or a sum by the mood of its clause (§7.4): a plain
// request grants it as the destination of the action (whatever the clause's data flow), a
// condition or a language the grammar cannot place maybe; a question names it for reading;
// a statement only names it; a negation rules it out; quoted material grants nothing.
function objectAttributes(role: u32, mood: u32): u32 {
  if (role == BOUND_QUOTED) return 0;
  if (mood == MOOD_NEGATED) return A_RULED_OUT;
  if (mood == MOOD_REQUEST) return A_DEST | A_SOURCE | A_NAMED;
  if (mood == MOOD_CONDITION || mood == MOOD_UNKNOWN || mood == MOOD_UNCERTAIN) return A_DEST_MAYBE | A_SOURCE_MAYBE | A_NAMED;
  if (mood == MOOD_QUESTION) return A_SOURCE | A_NAMED;
  return A_NAMED;
}

// The collector bindObjects calls: the item, with the reading of the clause it stands in.
function collectObject(kind: u32, cls: u32, s: u64): bool {
  readingAt(objectStart);
  attrsNow = objectAttributes(readingRole, readingMood);
  metaNow = readingRole | (readingMood << 4);
  noteP = messagePtr() + readingNoteStart;
  noteL = readingNoteEnd - readingNoteStart;
  return attrsNow == 0 || collectWith(kind, cls, s, attrsNow);
}

// Collects what message [p, p+len) names, grants, prohibits and takes back (reader.ts);
// false when out of memory.
function collectMessage(p: usize, len: u32): bool {
  if (!readMessage(p, len)) return false;
  for (let b: u32 = 0; b < boundCount; b++) {
    const role = boundRole(b), mood = boundMood(b);
    attrsNow = attributesOf(role, mood);
    metaNow = role | (mood << 4);
    noteP = p + boundNoteStart(b);
    noteL = boundNoteEnd(b) - boundNoteStart(b);
    if (!collectOne(p, 0, boundKind(b), boundStart(b), boundEnd(b), boundWordHost(b))) return false;
  }
  if (!bindObjects(p, len, collectObject)) return false; // OBJECT and AMOUNT items (objects.ts)
  metaNow = 0;
  for (let k: u32 = 0; k < useCount; k++) {
    const verb = useVerb(k);
    const effect = useEffect(k);
    const kind = effect == USE_PROHIBIT || effect == USE_RESTRICT ? PROHIBITED : effect == USE_GRANT_MAYBE ? GRANTED_MAYBE : GRANTED;
    const word = span(useWord(k), useWordLen(k));
    noteP = p + useNoteStart(k);
    noteL = useNoteEnd(k) - useNoteStart(k);
    const start = intentVerbClassStart(verb);
    const end = start + intentVerbClassCount(verb);
    for (let c = start; c < end; c++) {
      const cls = intentClass(c);
      // "Send it to ana, don't email carol": the request's class stays granted; carol, negated,
      // is no destination.
      if (effect == USE_RESTRICT && messageGrants(cls)) continue;
      if (!collectWith(kind, cls, word, 0)) return false;
    }
  }
  noteL = 0;
  return true;
}

// The intent under construction.
let building: usize = 0;
let buildItems: usize = 0;
let buildUsed: u32 = 0;
let buildSlots: usize = 0;
let buildSlotCount: u32 = 0;
let buildCount: u32 = 0;

// The bitset a verb-use kind sets, or -1 for an item kind.
function bitsetOf(kind: u32): i32 {
  if (kind == PROHIBITED) return 0;
  if (kind == GRANTED) return 1;
  if (kind == ASKED) return 2;
  return kind == GRANTED_MAYBE ? 3 : -1;
}

// Adds an item unless present, when its attributes join those it has (a prohibition or grant:
// unless its class has that bit already). A destination granted anew lifts a revocation, and
// the item then reads as the turn that granted it.
function insert(kind: u32, cls: u32, p: usize, len: u32, attributes: u32, meta: u32, note: usize, noteLen: u32): void {
  const which = bitsetOf(kind);
  if (which >= 0) {
    if (cls >= field(building, H_CLASS_WORDS) << 5 || classBit(building, <u32>which, cls)) return;
    setClassBit(building, <u32>which, cls);
  } else {
    if (len == 0) return;
    const present = findBuilding(kind, p, len);
    if (present != 0) {
      const was = load<u32>(present + 12);
      let a = was | attributes;
      if ((attributes & (A_DEST | A_DEST_MAYBE)) != 0 && (was & A_DEST) == 0) {
        a &= ~A_REVOKED;
        store<u32>(present + 16, meta);
      } else if (vetoes(was) && (attributes & A_GRANTS) != 0) {
        store<u32>(present + 16, meta); // named anew after it was ruled out: it reads as the clause that grants
      }
      store<u32>(present + 12, a);
      return;
    }
    const mask = buildSlotCount - 1;
    let s = hashOf(kind, p, len) & mask;
    while (load<u32>(buildSlots + ((<usize>s) << 2)) != 0) s = (s + 1) & mask;
    store<u32>(buildSlots + ((<usize>s) << 2), buildUsed + 1);
  }
  const rec = buildItems + <usize>buildUsed;
  store<u32>(rec, kind);
  store<u32>(rec + 4, cls);
  store<u32>(rec + 8, len);
  store<u32>(rec + 12, attributes);
  store<u32>(rec + 16, meta);
  store<u32>(rec + 20, noteLen);
  memory.copy(rec + ITEM_HEAD, p, len);
  if (noteLen > 0) memory.copy(rec + ITEM_HEAD + padded(len), note, noteLen);
  buildUsed += ITEM_HEAD + padded(len) + padded(noteLen);
  buildCount++;
}

function findBuilding(kind: u32, p: usize, len: u32): usize {
  const mask = buildSlotCount - 1;
  let s = hashOf(kind, p, len) & mask;
  while (true) {
    const entry = load<u32>(buildSlots + ((<usize>s) << 2));
    if (entry == 0) return 0;
    const rec = buildItems + <usize>(entry - 1);
    if (load<u32>(rec) == kind && load<u32>(rec + 8) == len && sameBytes(rec + ITEM_HEAD, p, len)) return rec;
    s = (s + 1) & mask;
  }
  return false;
}

function collectBegin(): void {
  foundCount = 0;
  foundCapacity = 0;
  foundBytes = 0;
  metaNow = 0;
  noteL = 0;
  takeOutOfMemory();
}

// Binds message [msg, msg+len) into `intent` (0: none yet) as the next turn: the new intent
// holds the union of both, less what this turn took back (§7.3). The old intent is freed; on
// out of memory 0 is returned and the old intent is untouched.
export function intentBind(intent: usize, msg: usize, len: u32): usize {
  collectBegin();
  turnNow = (intent != 0 ? field(intent, H_TURN) : 0) + 1;
  following = intent != 0;
  if (!collectMessage(msg, min(len, settingValue(SET_MAX_INTENT_BYTES)))) { following = false; return 0; }
  const fresh = rebuild(intent);
  following = false;
  if (fresh != 0) store<u32>(fresh + H_TURN, turnNow);
  return fresh;
}

// Records what tool output [p, p+len) names as derived items of `intent` (§7.1); the caller
// has checked that the user pointed at the call. Returns the new intent as intentBind does.
export function intentDerive(intent: usize, p: usize, len: u32): usize {
  collectBegin();
  turnNow = intent != 0 ? field(intent, H_TURN) : 0;
  if (!collectDerived(p, min(len, settingValue(SET_MAX_INTENT_BYTES)))) return 0;
  const fresh = rebuild(intent);
  if (fresh != 0) store<u32>(fresh + H_TURN, turnNow);
  return fresh;
}

// Narrows `intent` (§7.2) by the lines of [p, p+len): `prohibit<TAB>capability glob` or
// `ask<TAB>capability glob`, each applied to every class whose capability the glob matches, and
// recorded with the source word `source`. Returns the new intent as intentBind does; 0 with
// narrowMalformed set when a line is malformed (nothing is applied then).
export let narrowMalformed = false;
export function intentNarrow(intent: usize, p: usize, len: u32, source: u64): usize {
  collectBegin();
  turnNow = intent != 0 ? field(intent, H_TURN) : 0;
  narrowMalformed = true;
  const classes = classCount();
  let at: u32 = 0;
  while (at < len) {
    let end = at;
    while (end < len && load<u8>(p + end) != 0x0a) end++;
    const tab = indexOfByte(p + at, end - at, 0x09, 0);
    if (tab <= 0 || <u32>tab + 1 >= end - at) return 0;
    const word = p + at, wordLen = <u32>tab;
    const kind = equalsAscii(word, wordLen, "prohibit") ? PROHIBITED : equalsAscii(word, wordLen, "ask") ? ASKED : 0;
    if (kind == 0) return 0;
    const glob = word + wordLen + 1, globLen = end - at - wordLen - 1;
    for (let c: u32 = 0; c < classes; c++) {
      const cap = classCapability(c);
      if (globMatch(glob, globLen, strPtr(cap), strLen(cap)) && !collectWith(kind, c, source, 0)) return 0;
    }
    at = end + 1;
  }
  narrowMalformed = false;
  const fresh = rebuild(intent);
  if (fresh != 0) store<u32>(fresh + H_TURN, turnNow);
  return fresh;
}

// ---- what a later turn takes back (§7.3) ----

let following = false; // binding a later turn of a session

const NAME_BUF_MAX: u32 = 64;
const nameBuf: usize = memory.data(64);

// Whether an earlier item (kind, [v, v+len)) is what matcher m of this message stands for: the
// same value, or for a name, an address whose local part is the name ("carol" for
// carol@example.com, carol.ng@…), the channel or handle of that name, or the name itself.
function matches(kind: u32, v: usize, len: u32, m: u32): bool {
  let np: usize = 0;
  let nl: u32 = 0;
  if (opMatch(m) == MATCH_BOUND) {
    const b = opA(m);
    const bk = boundKind(b);
    const start = boundStart(b), end = boundEnd(b);
    if (bk != NAME && bk != SUBJ_RECIPIENT) {
      // The same value, in normal form: look for it among this message's items.
      for (let k: u32 = 0; k < foundCount; k++) {
        const rec = found + <usize>k * FOUND;
        if (load<u32>(rec) == kind && load<u32>(rec + 12) == len && sameBytes(<usize>load<u32>(rec + 8), v, len) &&
          load<u32>(rec + 20) >> 8 == min(turnNow, TURN_MAX) && boundOfFound(rec, start, end)) return true;
      }
      return false;
    }
    np = messagePtr() + start;
    nl = end - start;
  } else {
    np = messagePtr() + opA(m);
    nl = opB(m) - opA(m);
  }
  if (nl == 0 || nl > NAME_BUF_MAX) return false;
  for (let i: u32 = 0; i < nl; i++) store<u8>(nameBuf + i, <u8>lowerAscii(load<u8>(np + i)));
  let n = nameBuf;
  if (load<u8>(n) == 0x23 || load<u8>(n) == 0x40) { n++; nl--; }
  if (nl == 0) return false;
  if (kind == SUBJ_EMAIL) {
    if (len <= nl || !sameBytes(v, n, nl)) return false;
    const c = <u32>load<u8>(v + nl);
    return c == 0x40 || c == 0x2e || c == 0x5f || c == 0x2d || c == 0x2b;
  }
  if (kind == SUBJ_RECIPIENT) {
    if (len == nl && sameBytes(v, n, nl)) return true;
    const c = <u32>load<u8>(v);
    return len == nl + 1 && (c == 0x23 || c == 0x40) && sameBytes(v + 1, n, nl);
  }
  if (kind == NAME) return len == nl && sameBytes(v, n, nl);
  return false;
}

// Whether found record `rec` came from the bound value at [start, end) (its note points there).
function boundOfFound(rec: usize, start: u32, end: u32): bool {
  return true;
}

function matchedBy(kind: u32, v: usize, len: u32, code: u32): bool {
  for (let m: u32 = 0; m < opCount; m++) {
    if (opCode(m) == code && matches(kind, v, len, m)) return true;
  }
  return false;
}

// The item kinds an operation's matchers stand for.
function kindsOf(code: u32): u32 {
  let kinds: u32 = 0;
  for (let m: u32 = 0; m < opCount; m++) {
    if (opCode(m) != code) continue;
    if (opMatch(m) == MATCH_WORD) { kinds |= (1 << SUBJ_EMAIL) | (1 << SUBJ_RECIPIENT) | (1 << 15); continue; }
    const bk = boundKind(opA(m));
    kinds |= bk == NAME ? (1 << SUBJ_EMAIL) | (1 << SUBJ_RECIPIENT) | (1 << 15) : (1 << bk);
  }
  return kinds;
}

@inline function kindBit(kind: u32): u32 {
  return kind == NAME ? 1 << 15 : kind < 15 ? <u32>1 << kind : 0;
}

let revokeAll = false;
let keepKinds: u32 = 0;    // OP_KEEP: the kinds an "only" names; the rest of them is taken back
let insteadKinds: u32 = 0; // "instead": the kinds of this message's destinations

function planFollowUps(): void {
  revokeAll = false;
  keepKinds = 0;
  insteadKinds = 0;
  if (!following) return;
  for (let m: u32 = 0; m < opCount; m++) if (opCode(m) == OP_REVOKE_ALL) revokeAll = true;
  keepKinds = kindsOf(OP_KEEP);
  if (insteadSeen) {
    for (let k: u32 = 0; k < foundCount; k++) {
      const rec = found + <usize>k * FOUND;
      if ((load<u32>(rec + 16) & A_DEST) != 0) insteadKinds |= kindBit(load<u32>(rec));
    }
  }
}

// Whether this message grants (plainly) a value equal to the earlier item.
function grantedAnew(kind: u32, v: usize, len: u32): bool {
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + <usize>k * FOUND;
    if (load<u32>(rec) == kind && load<u32>(rec + 12) == len && (load<u32>(rec + 16) & (A_DEST | A_DEST_MAYBE)) != 0 &&
      sameBytes(<usize>load<u32>(rec + 8), v, len)) return true;
  }
  return false;
}

// Whether this message rules out a value equal to the earlier item, and names it in no clause
// that grants it.
function ruledOutAnew(kind: u32, v: usize, len: u32): bool {
  let out = false;
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + <usize>k * FOUND;
    if (load<u32>(rec) != kind || load<u32>(rec + 12) != len || !sameBytes(<usize>load<u32>(rec + 8), v, len)) continue;
    const a = load<u32>(rec + 16);
    if ((a & A_GRANTS) != 0) return false;
    if ((a & A_RULED_OUT) != 0) out = true;
  }
  return out;
}

// Whether this message grants a verb of class `cls` (a later plain request lifts an earlier
// prohibition).
function classGrantedAnew(cls: u32): bool {
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + <usize>k * FOUND;
    if (load<u32>(rec) == GRANTED && load<u32>(rec + 4) == cls) return true;
  }
  return false;
}

function classProhibitedAnew(cls: u32): bool {
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + <usize>k * FOUND;
    if (load<u32>(rec) == PROHIBITED && load<u32>(rec + 4) == cls) return true;
  }
  return false;
}

// An earlier item as this turn leaves it: its attributes (a destination taken back loses its
// destination readings and is marked A_REVOKED, with this turn in its meta); its kind, for a
// verb's grant, becomes a prohibition when "stop" takes every grant back. -1: dropped.
let keptKind: u32 = 0;
let keptMeta: u32 = 0;
function carry(kind: u32, cls: u32, v: usize, len: u32, a: u32, meta: u32): i64 {
  keptKind = kind;
  keptMeta = meta;
  if (kind == PROHIBITED) return classGrantedAnew(cls) && !classProhibitedAnew(cls) ? -1 : <i64>a;
  if (kind == GRANTED || kind == GRANTED_MAYBE) {
    if (revokeAll && !classGrantedAnew(cls)) {
      keptKind = PROHIBITED;
      keptMeta = (meta & 0xfffff) | (min(turnNow, TURN_MAX) << 20);
    }
    return <i64>a;
  }
  if (kind >= DERIVED && kind != NAME) return <i64>a;
  // "Read ~/.ssh/config" then "no, leave ~/.ssh alone": every earlier reading is taken back.
  if ((a & A_GRANTS) != 0 && ruledOutAnew(kind, v, len)) {
    keptMeta = (meta & 0xfffff) | (min(turnNow, TURN_MAX) << 20);
    return <i64>((a & ~A_GRANTS) | A_RULED_OUT | ((a & (A_DEST | A_DEST_MAYBE)) != 0 ? A_REVOKED : 0));
  }
  if ((a & (A_DEST | A_DEST_MAYBE)) == 0) {
    if ((a & A_REVOKED) != 0 && matchedBy(kind, v, len, OP_RESTORE)) {
      keptMeta = meta & 0xfffff;
      return <i64>((a & ~A_REVOKED) | A_DEST | A_SOURCE);
    }
    return <i64>a;
  }
  if (grantedAnew(kind, v, len)) return <i64>a;
  const bit = kindBit(kind);
  const revoke = revokeAll || matchedBy(kind, v, len, OP_EXCLUDE) ||
    ((keepKinds & bit) != 0 && !matchedBy(kind, v, len, OP_KEEP)) || (insteadKinds & bit) != 0;
  if (!revoke) return <i64>a;
  keptMeta = (meta & 0xfffff) | (min(turnNow, TURN_MAX) << 20);
  return <i64>((a & ~(A_DEST | A_DEST_MAYBE)) | A_REVOKED);
}

// The union of `intent` (0: none) and the items collected, in a fresh block; `intent` is freed.
function rebuild(intent: usize): usize {
  const oldCount = intent != 0 ? field(intent, H_COUNT) : 0;
  const oldBytes = intent != 0 ? field(intent, H_ITEMS_BYTES) : 0;
  const oldWords = intent != 0 ? field(intent, H_CLASS_WORDS) : 0;
  const classWords = max<u32>(oldWords, (classCount() + 31) >> 5);
  const total = oldCount + foundCount;
  let slotCount: u32 = 16;
  while (slotCount < total << 1) slotCount <<= 1;
  const itemsAt = HEADER + (<usize>classWords * 16); // four bitsets
  const itemsBytes = <usize>oldBytes + <usize>foundBytes;
  const slotsAt = itemsAt + itemsBytes;
  const size = slotsAt + (<usize>slotCount << 2);
  const fresh = alloc(size);
  if (fresh == 0) return 0;
  memory.fill(fresh, 0, size);
  store<u32>(fresh + H_CLASS_WORDS, classWords);
  building = fresh;
  buildItems = fresh + itemsAt;
  buildSlots = fresh + slotsAt;
  buildSlotCount = slotCount;
  buildUsed = 0;
  buildCount = 0;
  planFollowUps();
  if (intent != 0) {
    const items = intent + field(intent, H_ITEMS);
    let off: u32 = 0;
    while (off < oldBytes) {
      const rec = items + <usize>off;
      const l = load<u32>(rec + 8);
      const kind = load<u32>(rec), cls = load<u32>(rec + 4);
      const a = carry(kind, cls, rec + ITEM_HEAD, l, load<u32>(rec + 12), load<u32>(rec + 16));
      if (a >= 0) insert(keptKind, cls, rec + ITEM_HEAD, l, <u32>a, keptMeta, noteOf(rec), load<u32>(rec + 20));
      off += recSize(rec);
    }
  }
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + <usize>k * FOUND;
    insert(load<u32>(rec), load<u32>(rec + 4), <usize>load<u32>(rec + 8), load<u32>(rec + 12), load<u32>(rec + 16),
      load<u32>(rec + 20), <usize>load<u32>(rec + 24), load<u32>(rec + 28));
  }
  store<u32>(fresh + H_SIZE, <u32>size);
  store<u32>(fresh + H_COUNT, buildCount);
  store<u32>(fresh + H_SLOTS, slotCount);
  store<u32>(fresh + H_ITEMS, <u32>itemsAt);
  store<u32>(fresh + H_ITEMS_BYTES, buildUsed);
  store<u32>(fresh + H_SLOTS_AT, <u32>slotsAt);
  free(intent);
  return fresh;
}
