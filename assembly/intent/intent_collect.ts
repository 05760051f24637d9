// The items of one message, one tool output or one narrowing, collected in scratch (the `found`
// table) before the intent is rebuilt from them. This file owns that table and the turn being
// bound and alone writes them; intent_build.ts and intent_followups.ts read them.
import {
  SUBJ_EMAIL, SUBJ_DOMAIN, SUBJ_URL, SUBJ_PATH, SUBJ_RECIPIENT, SUBJ_OBJECT, SUBJ_AMOUNT, ROLE_AMOUNT, ROLE_TEXT, ROLE_HEADING, ROLE_DATA, ROLE_OBJECT, ROLE_RECIPIENT, BOUND_DESTINATION, BOUND_SOURCE, BOUND_QUOTED,
  MOOD_REQUEST, MOOD_QUESTION, MOOD_CONDITION, MOOD_NEGATED, MOOD_UNKNOWN, MOOD_UNCERTAIN, MOOD_STATEMENT,
} from "../../bytecode/format";
import { scratchAlloc } from "../abi/mem";
import { lowerAscii, sameBytes, isAsciiDigit, indexOfByte, foldPair } from "../abi/bytes";
import { intentExtensionSet, intentVerbClassStart, intentVerbClassCount, intentClass, intentActionVerbSet, setFind, classCount } from "../policy/decode";
import { policyWords } from "../readers/wordset";
import {
  span, spanPtr, spanLen, resolvePath, normalizeEmail, normalizeUrl, urlHost, normalizeHost, cwdPtr, cwdLen,
  takeOutOfMemory,
} from "../readers/normalize";
import { itemsBegin, nextItem, itemStart, itemEnd, itemNext, itemIsWordHost } from "../readers/scan";
import {
  readMessage, boundCount, boundKind, boundStart, boundEnd, boundRole, boundMood, boundNoteStart, boundNoteEnd,
  boundWordHost, useCount, useVerb, useWord, useWordLen, useEffect, useNoteStart, useNoteEnd, USE_PROHIBIT, USE_RESTRICT,
  USE_GRANT, USE_GRANT_MAYBE, USE_ACTION, messagePtr, readingAt, readingRole, readingMood, readingNoteStart, readingNoteEnd,
} from "./reader";
import { tokCount, tStart, tEnd, clauseStart, clauseEnd } from "./reader_state";
import { bindObjects, objectStart } from "./objects";
import {
  PROHIBITED, GRANTED, NAME, GRANTED_MAYBE, DERIVED, A_DEST, A_DEST_MAYBE, A_NAMED, A_BARE_HOST, A_SOURCE,
  A_SOURCE_MAYBE, A_RULED_OUT, A_RECORD, A_OWN_RECORD, A_DEST_ENTRY, READ_OWN, READ_ENTRIES_ONLY, READ_BY_DESTINATION, A_ADDRESS_HOST, A_GRANTS, TEXT, WORDS, ACTION, ITEM_HEAD, NOTE_HERE, padded, TURN_MAX, vetoes, NEGATED_ACTION, ANY_ACTION,
} from "./intent_record";
import { numberObject, objectNormal } from "./objects";
import {
  parseArgs, leafCount, leafValue, leafValueLen, leafIsString, leafPath, leafPathLen, leafElement, leafElementArray, leafOfElement, leafInArray, JSON_OK, JSON_OOM,
} from "../readers/json";
import { intentNamesObject, intentNamesRecipient, intentSharesWord } from "./intent_lookup";
import { lastWordRole } from "../decision/classify";
import { jsonDecimal, amountText, currencyOf } from "../readers/amount";
import { parentLen } from "../readers/targets";

// The items of one message, collected in scratch before the intent is rebuilt: kind, class,
// ptr, len, attributes, meta, note ptr, note len.
export const FOUND: u32 = 32;
export let found: usize = 0;
export let foundCount: u32 = 0;
let foundCapacity: u32 = 0;
export let foundBytes: u32 = 0;
export let turnNow: u32 = 0; // the turn being bound (1 for the first message)
let metaNow: u32 = 0; // role | mood << 4 of the value being collected
let noteP: usize = 0;
let noteL: u32 = 0;

export function collectWith(kind: u32, cls: u32, s: u64, attributes: u32): bool {
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
  foundBytes += ITEM_HEAD + padded(spanLen(s)) + (noteL > 0 ? NOTE_HERE + padded(noteL) : 0); // at most (intent_record.ts)
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
  if (kind == SUBJ_EMAIL) {
    // An address the user wrote names its host too, as a mention: a message may point to it
    // ("warn security that billing@scam.example is phishing"); nothing may reach it on that
    // account, and ruling the address out rules out no one else at its host.
    const email = normalizeEmail(s, n);
    if (!collectWith(base + SUBJ_EMAIL, 0, email, a)) return false;
    if ((a & A_GRANTS) == 0 || vetoes(a) || email == 0) return true;
    const at = indexOfByte(spanPtr(email), spanLen(email), 0x40, 0);
    return at < 0 || collectWith(base + SUBJ_DOMAIN, 0, normalizeHost(spanPtr(email) + at + 1, spanLen(email) - at - 1), A_NAMED | A_ADDRESS_HOST);
  }
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
export function collectDerived(p: usize, len: u32): bool {
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

// The fields of a record (tool output that is JSON: an object, or an array wrapped as one) that
// are values and not prose, as derived objects with A_RECORD (§7.1): a string of at most
// RECORD_WORDS words and RECORD_BYTES bytes whose key no role reads as text (a body, a note, a
// description: what others wrote), or a number. With `own` (a read of the user's own account),
// with A_OWN_RECORD too. Of a listing read from anything else (a search's results, a folder's
// files, a sheet's rows: every value inside a list), only the entries the user named by a field
// of their own ("#eng" of a list of channels) give their own fields, with A_DEST_ENTRY when the
// user named the entry as where the call goes; the other entries are whatever others put there,
// and the people inside an entry (its owner, who shared it) are others. False when out of memory.
const RECORD_WORDS: u32 = 4;
const RECORD_BYTES: u32 = 96;
let recordAttributes: u32 = A_RECORD;
// `how` holds READ_* bits: after a read that named nothing of the user's (a whole inbox, every
// channel), only such entries give anything, whatever the output's shape; after one asked for by
// a destination the user named, the record's own fields (outside its lists) are that
// destination's, with A_DEST_ENTRY.
export function collectRecord(intent: usize, p: usize, len: u32, maxDepth: u32, maxLeaves: u32, how: u32): bool {
  itemsBegin();
  const own = (how & READ_OWN) != 0, entriesOnly = (how & READ_ENTRIES_ONLY) != 0;
  recordAttributes = own ? A_RECORD | A_OWN_RECORD : A_RECORD;
  metaNow = 0;
  noteP = 0;
  noteL = 0;
  let doc = p, docLen = len;
  let i: u32 = 0;
  while (i < len && isJsonSpace(load<u8>(p + i))) i++;
  if (i < len && load<u8>(p + i) == 0x5b) { // an array: {"":[…]}
    doc = scratchAlloc(<usize>len + 6);
    if (doc == 0) return false;
    memory.copy(doc, WRAP, 4);
    memory.copy(doc + 4, p, len);
    store<u8>(doc + 4 + len, 0x7d);
    docLen = len + 5;
  }
  const status = parseArgs(doc, docLen, maxDepth, maxLeaves);
  if (status == JSON_OOM) return false;
  if (status != JSON_OK) {
    // One value alone (an id a lookup returns, bare or as a JSON string) is a record of one field.
    let s = i, t = len;
    while (t > s && isJsonSpace(load<u8>(p + t - 1))) t--;
    if (t - s >= 2 && load<u8>(p + s) == 0x22 && load<u8>(p + t - 1) == 0x22) { s++; t--; }
    if (t > s && t - s <= RECORD_BYTES && !wordsOver(p + s, t - s, 1)) {
      for (let j = s; j < t; j++) if (load<u8>(p + j) == 0x22 || load<u8>(p + j) == 0x5c) return true;
      return entriesOnly || collectWith(DERIVED + SUBJ_OBJECT, 0, objectNormal(p + s, t - s), recordAttributes);
    }
    // Block YAML whose first line is a list item ("- …") is a listing.
    if (!own && load<u8>(p + i) == 0x2d && (i + 1 == len || load<u8>(p + i + 1) <= 0x20)) return collectYamlEntries(intent, p, len);
    return entriesOnly || collectYaml(p, 0, len, -1);
  }
  const n = leafCount();
  const list = entriesOnly || (!own && listing(n));
  const chosen = chosenElements(intent, n);
  if (chosen == 0) return false;
  const base = recordAttributes;
  for (let k: u32 = 0; k < n; k++) {
    const role = lastWordRole(leafPath(k), leafPathLen(k));
    if (role < 0) return false;
    // What stands for a destination the user named: the id or name (a key the role map reads as
    // an object) of an entry they named as one, and the id, name or channel of the record read by
    // such a destination, outside its lists; not who wrote an entry, nor the people listed in it.
    let destination = false;
    if (list) {
      const mark = load<u8>(chosen + leafElement(k));
      if (!leafOfElement(k) || (mark & 1) == 0) continue;
      destination = (mark & 8) != 0 && role == ROLE_OBJECT;
    } else {
      if (!elementKept(chosen, k)) continue;
      destination = (how & READ_BY_DESTINATION) != 0 && leafElement(k) == 0 && !leafInArray(k) &&
        (role == ROLE_OBJECT || role == ROLE_RECIPIENT);
    }
    recordAttributes = destination ? base | A_DEST_ENTRY : base;
    if (!list && !collectRecordKeys(k)) return false;
    const v = leafValue(k), l = leafValueLen(k);
    if (l == 0) continue;
    if (!leafIsString(k)) {
      const c = load<u8>(v);
      if (c == 0x74 || c == 0x66 || c == 0x6e) continue; // true, false, null
      if (!collectWith(DERIVED + SUBJ_OBJECT, 0, numberObject(v, l), recordAttributes)) return false;
      if (role == ROLE_AMOUNT) { // a sum in minor units has no currency here to scale it by: not read
        const d = jsonDecimal(v, l, 0, false);
        if (d != 0 && !collectWith(DERIVED + SUBJ_AMOUNT, 0, amountText(d, recordCurrency(k)), recordAttributes)) return false;
      }
      continue;
    }
    if (l > RECORD_BYTES || wordsOver(v, l, RECORD_WORDS)) continue;
    if (role == ROLE_TEXT || role == ROLE_HEADING || role == ROLE_DATA) continue;
    if (!collectWith(DERIVED + SUBJ_OBJECT, 0, objectNormal(v, l), recordAttributes)) return false;
    // A field that is one address (a sender, an attendee) is that address.
    itemsBegin();
    if (nextItem(v, l, 0, 0) == SUBJ_EMAIL && itemStart == 0 && itemEnd == l &&
        !collectWith(DERIVED + SUBJ_EMAIL, 0, normalizeEmail(v, l), recordAttributes)) return false;
  }
  return true;
}
const WRAP: usize = memory.data<u8>([0x7b, 0x22, 0x22, 0x3a]); // {"":

// Whether the parsed record is a listing: it has a value, and each of its values (what a page,
// a count, a heading or prose says aside) stands inside a list.
function listing(n: u32): bool {
  let values: u32 = 0;
  for (let k: u32 = 0; k < n; k++) {
    if (leafValueLen(k) == 0) continue;
    const role = lastWordRole(leafPath(k), leafPathLen(k));
    if (role < 0) return true; // out of memory: nothing is read
    if (role == ROLE_DATA) continue;
    if (leafElement(k) == 0 && !leafInArray(k)) return false;
    values++;
  }
  return values > 0;
}

// The currency of record leaf k's sum: that of the nearest object enclosing it that states one
// (a `currency` field beside the `amount`), as a call's sums take theirs; 0 when none does.
function recordCurrency(k: u32): usize {
  const path = leafPath(k);
  const n = leafCount();
  let parent = parentLen(path, leafPathLen(k));
  while (true) {
    for (let j: u32 = 0; j < n; j++) {
      if (!leafIsString(j)) continue;
      const q = leafPath(j), ql = leafPathLen(j);
      if (parentLen(q, ql) != parent || !sameBytes(q, path, parent)) continue;
      if (lastWordRole(q, ql) != ROLE_AMOUNT) continue;
      const code = currencyOf(leafValue(j), leafValueLen(j));
      if (code != 0) return code;
    }
    if (parent == 0) return 0;
    parent = parentLen(path, parent);
  }
  return 0;
}

// A record keyed by id ("variants": {"8349118980": {…}}, "payment_methods": {"paypal_5727330":
// {…}}) names its entries by their keys: a key that holds a record of its own and carries a
// digit (no field's name is a number) is a value of the record as its fields are. Each key of
// leaf k's path is read at the first leaf under it. False when out of memory.
function collectRecordKeys(k: u32): bool {
  const path = leafPath(k), len = leafPathLen(k);
  const prev = k > 0 ? leafPath(k - 1) : 0, prevLen = k > 0 ? leafPathLen(k - 1) : 0;
  let s: u32 = 0;
  for (let j: u32 = 0; j < len; j++) {
    if (load<u8>(path + j) != 0x2e) continue;
    const seen = prevLen > j && sameBytes(prev, path, j + 1);
    if (!seen && j - s <= RECORD_BYTES && hasDigit(path + s, j - s) && !wordsOver(path + s, j - s, 1) &&
      !collectWith(DERIVED + SUBJ_OBJECT, 0, objectNormal(path + s, j - s), recordAttributes)) return false;
    s = j + 1;
  }
  return true;
}

function hasDigit(p: usize, len: u32): bool {
  for (let i: u32 = 0; i < len; i++) if (isAsciiDigit(load<u8>(p + i))) return true;
  return false;
}

// The elements of the record's arrays (objects in a list: an order's items) that a field of their
// own the user named picks out ("the desk lamp" of an order's items), and the arrays they belong
// to: a byte per ordinal, bit 0 the element chosen, bit 1 the array one of whose elements is, bit
// 2 an element a word of whose own fields the user wrote ("coffee" of "Coffee Maker" beside "the
// coffee machine": it may be the one meant), bit 3 a chosen element the user named where a
// call goes ("post in #eng": the channel named eng). 0 out of memory.
function chosenElements(intent: usize, n: u32): usize {
  let most: u32 = 0;
  for (let k: u32 = 0; k < n; k++) most = max(most, max(leafElement(k), leafElementArray(k)));
  const marks = scratchAlloc(<usize>most + 1);
  if (marks == 0) return 0;
  memory.fill(marks, 0, <usize>most + 1);
  for (let k: u32 = 0; k < n; k++) {
    const e = leafElement(k);
    if (e == 0 || !leafIsString(k) || !leafOfElement(k)) continue; // an item by its own fields, not its options
    const mark = fieldMark(intent, leafValue(k), leafValueLen(k));
    store<u8>(marks + e, load<u8>(marks + e) | mark);
    if ((mark & 1) == 0) continue;
    const a = leafElementArray(k);
    store<u8>(marks + a, load<u8>(marks + a) | 2);
  }
  return marks;
}

// What an element's own field [v, v+l) says of it, as chosenElements marks it: 1 the user named
// it, 9 named it where a call goes, 4 a word of it stands in the user's words, else 0.
function fieldMark(intent: usize, v: usize, l: u32): u8 {
  if (l == 0 || l > RECORD_BYTES || wordsOver(v, l, RECORD_WORDS)) return 0;
  const o = objectNormal(v, l);
  if (o == 0) return 0;
  if (intentNamesRecipient(intent, spanPtr(o), spanLen(o))) return 9;
  if (intentNamesObject(intent, spanPtr(o), spanLen(o))) return 1;
  return intentSharesWord(intent, spanPtr(o), spanLen(o)) ? 4 : 0;
}

// Whether leaf k is read from the record: it is no element's, or its element was chosen or may be
// the one meant, or no element of its array was chosen (the user named the order, not one of its
// items: every item is the task's).
function elementKept(marks: usize, k: u32): bool {
  const e = leafElement(k);
  return e == 0 || (load<u8>(marks + e) & 5) != 0 || (load<u8>(marks + leafElementArray(k)) & 2) == 0;
}

// A listing written as block YAML (entries "- key: value" from column 0, what many tools print
// for a search): as for a JSON listing, only an entry the user named by a field of its own gives
// anything, its own fields (not those of a list or map inside it). False when out of memory.
let yamlIntent: usize = 0;
let yamlNamed: u32 = 0; // while checking an entry: fieldMark's 1 and 8 of its fields
function collectYamlEntries(intent: usize, p: usize, len: u32): bool {
  const attributes = recordAttributes;
  let at: u32 = 0;
  while (at < len) {
    let end = at + 1;
    while (end < len && !(load<u8>(p + end - 1) == 0x0a && load<u8>(p + end) == 0x2d)) end++;
    yamlIntent = intent;
    yamlNamed = 0;
    if (!collectYaml(p, at, end, ENTRY_FIELD)) return false;
    const named = yamlNamed;
    yamlIntent = 0;
    if (named != 0) {
      recordAttributes = (named & 8) != 0 ? attributes | A_DEST_ENTRY : attributes;
      if (!collectYaml(p, at, end, ENTRY_FIELD)) return false;
      recordAttributes = attributes;
    }
    at = end;
  }
  return true;
}
const ENTRY_FIELD: i64 = 2; // the column of an entry's own keys ("- key" and "  key")

// A record written as block YAML (what many tools print): each line "key: value", "- value" or
// "- key: value" of [from, to) gives its value as a field, read as a JSON field is (recordField);
// with `level` 0 or more, only the lines whose key or value stands at that column. A line that is neither continues a value
// above it (folded prose) and gives nothing; so does a block scalar ("body: |") and every line
// indented under it.
function collectYaml(p: usize, from: u32, to: u32, level: i64): bool {
  const len = to;
  let at: u32 = from;
  let block: i64 = -1; // the indent of a block scalar's key: deeper lines are its text
  while (at < len) {
    const start = at;
    let end = at;
    while (end < len && load<u8>(p + end) != 0x0a) end++;
    at = end + 1;
    let s = start, t = end;
    while (s < t && load<u8>(p + s) == 0x20) s++;
    while (t > s && load<u8>(p + t - 1) <= 0x20) t--;
    if (t == s) continue;
    const indent = <i64>(s - start);
    if (block >= 0 && indent > block) continue;
    block = -1;
    let dashed = false;
    if (t - s >= 2 && load<u8>(p + s) == 0x2d && load<u8>(p + s + 1) == 0x20) { // "- "
      dashed = true;
      s += 2;
      while (s < t && load<u8>(p + s) == 0x20) s++;
    } else if (load<u8>(p + s) == 0x2d && t - s == 1) continue;
    if (level >= 0 && <i64>(s - start) != level) continue;
    // "key: value": the key is what stands before the first ": " (or a final ':').
    let colon: i64 = -1;
    for (let j = s; j < t; j++) {
      const c = load<u8>(p + j);
      if (c == 0x3a && (j + 1 == t || load<u8>(p + j + 1) == 0x20)) { colon = <i64>j; break; }
      if (c == 0x20 || c == 0x22 || c == 0x27) break; // a key has no space or quote
    }
    if (colon < 0) {
      // A list item's value, or (no dash) the rest of folded prose.
      if (!dashed) continue;
      if (!recordField(p, 0, 0, s, t)) return false;
      continue;
    }
    let v = <u32>colon + 1;
    while (v < t && load<u8>(p + v) == 0x20) v++;
    if (v == t) continue; // a nested map or list follows
    const c = load<u8>(p + v);
    if (c == 0x7c || c == 0x3e) { block = indent; continue; } // "|" or ">": a block of text
    if (!recordField(p, s, <u32>colon, v, t)) return false;
  }
  return true;
}

// One YAML field: value [v, t) of message p under key [k, kEnd) (none: a list item), unquoted;
// while yamlIntent is set, only what the user's words say of it is noted (fieldMark's 1 and 8).
function recordField(p: usize, k: u32, kEnd: u32, v: u32, t: u32): bool {
  if (t - v >= 2 && (load<u8>(p + v) == 0x27 || load<u8>(p + v) == 0x22) && load<u8>(p + t - 1) == load<u8>(p + v)) { v++; t--; }
  if (yamlIntent != 0) {
    yamlNamed |= fieldMark(yamlIntent, p + v, t - v) & 9;
    return true;
  }
  if (t == v) return true;
  const l = t - v;
  if (l > RECORD_BYTES || wordsOver(p + v, l, RECORD_WORDS)) return true;
  if (isYamlNull(p + v, l)) return true;
  const role = kEnd > k ? lastWordRole(p + k, kEnd - k) : 0; // a list item: no key, no role
  if (role < 0) return false;
  if (role == ROLE_TEXT || role == ROLE_HEADING || role == ROLE_DATA) return true;
  // As of a JSON entry: only an id or a name stands for the destination the entry is.
  const attributes = role == ROLE_OBJECT ? recordAttributes : recordAttributes & ~A_DEST_ENTRY;
  if (role == ROLE_AMOUNT) {
    const d = jsonDecimal(p + v, l, 0, false);
    if (d != 0 && !collectWith(DERIVED + SUBJ_AMOUNT, 0, amountText(d, 0), attributes)) return false;
  }
  if (!collectWith(DERIVED + SUBJ_OBJECT, 0, objectNormal(p + v, l), attributes)) return false;
  itemsBegin();
  return !(nextItem(p + v, l, 0, 0) == SUBJ_EMAIL && itemStart == 0 && itemEnd == l &&
    !collectWith(DERIVED + SUBJ_EMAIL, 0, normalizeEmail(p + v, l), attributes));
}

// YAML's null and booleans, which name nothing.
function isYamlNull(p: usize, l: u32): bool {
  const c = load<u8>(p) | 0x20;
  if (l == 1) return c == 0x7e; // ~
  if (l == 4) return (c == 0x6e && (load<u8>(p + 1) | 0x20) == 0x75) || (c == 0x6e && (load<u8>(p + 1) | 0x20) == 0x6f) ||
    (c == 0x74 && (load<u8>(p + 1) | 0x20) == 0x72); // null, none, true
  return l == 5 && c == 0x66 && (load<u8>(p + 1) | 0x20) == 0x61; // false
}

@inline function isJsonSpace(c: u32): bool {
  return c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09;
}

// Whether [p, p+len) holds more than `most` words (runs of bytes between spaces).
function wordsOver(p: usize, len: u32, most: u32): bool {
  let words: u32 = 0;
  let inWord = false;
  for (let i: u32 = 0; i < len; i++) {
    const space = load<u8>(p + i) <= 0x20;
    if (!space && !inWord && ++words > most) return true;
    inWord = !space;
  }
  return false;
}

// The classes a verb of the message being read grants, plainly or under a condition: a bit per
// class (the verifier keeps every class below classCount), made once for the message so that
// each restricting verb tests a bit rather than every verb again. 0: not made yet.
let grantedBits: usize = 0;
function markGrantedClasses(): bool {
  const bytes = <usize>((classCount() + 7) >> 3);
  grantedBits = scratchAlloc(max<usize>(bytes, 1));
  if (grantedBits == 0) return false;
  memory.fill(grantedBits, 0, bytes);
  for (let k: u32 = 0; k < useCount; k++) {
    const effect = useEffect(k);
    if (effect != USE_GRANT && effect != USE_GRANT_MAYBE) continue;
    const start = intentVerbClassStart(useVerb(k));
    const end = start + intentVerbClassCount(useVerb(k));
    for (let c = start; c < end; c++) {
      const cls = intentClass(c);
      const at = grantedBits + (cls >> 3);
      store<u8>(at, <u8>(<u32>load<u8>(at) | (1 << (cls & 7))));
    }
  }
  return true;
}

@inline function messageGrants(cls: u32): bool {
  return (load<u8>(grantedBits + (cls >> 3)) & (1 << (cls & 7))) != 0;
}

// The actions the verbs that grant class cls name: 0 when none grants it, -1 (every action) when
// one names none.
function grantActions(cls: u32): i64 {
  let all: i64 = 0;
  for (let k: u32 = 0; k < useCount; k++) {
    const effect = useEffect(k);
    if (effect != USE_GRANT && effect != USE_GRANT_MAYBE) continue;
    const start = intentVerbClassStart(useVerb(k));
    const end = start + intentVerbClassCount(useVerb(k));
    for (let c = start; c < end; c++) {
      if (intentClass(c) != cls) continue;
      const a = verbActions(useWord(k), useWordLen(k));
      if (a <= 0) return -1;
      all |= a;
    }
  }
  return all;
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

// Each clause of the message read (tokens between punctuation, §7.3) as a TEXT item with the
// reading of a value at its end: "update my address to 1234 Elm Street" names "1234 elm street",
// "Austin" and "Suite 641" as a request does, though no pass of objects.ts reads them as one
// object. Quoted and pasted clauses name nothing; a clause longer than CLAUSE_BYTES is a
// pasted text more than a request, and names nothing this way; nor does a clause with no digit,
// capital or non-ASCII letter, which names no id, number or proper name (a WORDS item).
const CLAUSE_BYTES: u32 = 512;
const CLAUSES_READ: u32 = 4096; // clauses past a message's first bytes: a paste more than a request
function collectClauses(p: usize, len: u32): bool {
  let k: u32 = 0;
  while (k < tokCount) {
    const cs = clauseStart(k), ce = clauseEnd(k);
    k = max(ce, k + 1);
    if (ce <= cs) continue;
    const from = tStart(cs), to = tEnd(ce - 1);
    if (from >= CLAUSES_READ) break;
    if (to <= from || to - from > CLAUSE_BYTES || to > len) continue;
    const marks = clauseMarks(p + from, to - from);
    if (marks == 0) continue; // no word to keep
    readingAt(tStart(ce - 1));
    const a = objectAttributes(readingRole, readingMood);
    if (a == 0) continue;
    const text = clauseText(p + from, to - from);
    if (text == 0) return false;
    metaNow = readingRole | (readingMood << 4);
    noteP = 0;
    noteL = 0;
    // A clause with no mark names no object, but its words may name a record's item ("return my
    // skateboard"): kept as WORDS, which only picks out the items of a record (collectRecord).
    if (!collectWith(marks == 2 ? TEXT : WORDS, 0, text, a)) return false;
  }
  return true;
}

// What [p, p+len) holds: 2 a digit, an ASCII capital or a byte of a non-ASCII character; else 1 a
// lower-case ASCII letter; else 0.
function clauseMarks(p: usize, len: u32): u32 {
  let marks: u32 = 0;
  for (let i: u32 = 0; i < len; i++) {
    const c = <u32>load<u8>(p + i);
    if (c - 0x30 < 10 || c - 0x41 < 26 || c >= 0x80) return 2;
    if (c - 0x61 < 26) marks = 1;
  }
  return marks;
}

// [p, p+len) lower-cased, with the bytes that stand between words (quotes, brackets, commas,
// colons, a full stop before a space) made one space.
function clauseText(p: usize, len: u32): u64 {
  const out = scratchAlloc(<usize>len + 2);
  if (out == 0) return 0;
  store<u8>(out, 0x20);
  let n: u32 = 1;
  for (let i: u32 = 0; i < len; i++) {
    let c = <u32>load<u8>(p + i);
    const next = i + 1 < len ? <u32>load<u8>(p + i + 1) : 0x20;
    const between = c <= 0x20 || c == 0x22 || c == 0x27 || c == 0x28 || c == 0x29 || c == 0x5b || c == 0x5d ||
      c == 0x7b || c == 0x7d || c == 0x3c || c == 0x3e || c == 0x2c || c == 0x3b || c == 0x3a || c == 0x21 || c == 0x3f ||
      (c == 0x2e && next <= 0x20);
    if (between) {
      if (load<u8>(out + n - 1) != 0x20) { store<u8>(out + n, 0x20); n++; }
      continue;
    }
    store<u8>(out + n, <u8>lowerAscii(c));
    n++;
  }
  if (load<u8>(out + n - 1) != 0x20) { store<u8>(out + n, 0x20); n++; }
  return n > 2 ? span(out, n) : 0;
}

// Collects what message [p, p+len) names, grants, prohibits and takes back (reader.ts);
// false when out of memory.
export function collectMessage(p: usize, len: u32): bool {
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
  if (!collectClauses(p, len)) return false;
  metaNow = 0;
  grantedBits = 0;
  for (let k: u32 = 0; k < useCount; k++) {
    const verb = useVerb(k);
    const effect = useEffect(k);
    const word = span(useWord(k), useWordLen(k));
    const actions = verbActions(useWord(k), useWordLen(k));
    if (actions < 0) return false;
    // The action a verb not negated names is the user's own, whatever its mood (§7.5).
    if (effect != USE_PROHIBIT && effect != USE_RESTRICT && actions != 0) {
      noteL = 0;
      if (!collectWith(ACTION, 0, word, <u32>actions)) return false;
    }
    if (effect == USE_ACTION) continue;
    const kind = effect == USE_PROHIBIT || effect == USE_RESTRICT ? PROHIBITED : effect == USE_GRANT_MAYBE ? GRANTED_MAYBE : GRANTED;
    noteP = p + useNoteStart(k);
    noteL = useNoteEnd(k) - useNoteStart(k);
    if (effect == USE_RESTRICT && grantedBits == 0 && !markGrantedClasses()) return false;
    const start = intentVerbClassStart(verb);
    const end = start + intentVerbClassCount(verb);
    for (let c = start; c < end; c++) {
      const cls = intentClass(c);
      // "Send it to ana, don't email carol": the request's class stays granted; carol, negated,
      // is no destination.
      if (effect == USE_RESTRICT && messageGrants(cls)) continue;
      // "Don't share the folder, just email the PDF": a negation reaches its own verb's actions;
      // the class another verb grants for actions beyond those stays granted.
      if (effect == USE_PROHIBIT && actions > 0 && (grantActions(cls) & ~actions) > 0) {
        noteL = 0;
        if (!collectWith(NEGATED_ACTION, 0, word, <u32>actions)) return false;
        continue;
      }
      if (!collectWith(kind, cls, word, actions == 0 ? ANY_ACTION : 0)) return false;
    }
  }
  noteL = 0;
  return true;
}

// The actions the verb word [w, w+n) asks for (§7.5), folded as the grammar folds it (ASCII and
// Latin-1 and Cyrillic capitals); 0 when it names none, -1 out of memory.
function verbActions(w: usize, n: u32): i64 {
  const lower = scratchAlloc(max<usize>(<usize>n, 1));
  if (lower == 0) return -1;
  for (let i: u32 = 0; i < n; i++) {
    const c = <u32>load<u8>(w + i);
    if (c - 0xc0 < 0x20 && i + 1 < n) { // a two-byte character
      const f = foldPair(c, <u32>load<u8>(w + i + 1));
      store<u8>(lower + i, <u8>(f >> 8));
      store<u8>(lower + ++i, <u8>f);
    } else store<u8>(lower + i, <u8>lowerAscii(c));
  }
  const v = setFind(intentActionVerbSet(), lower, n);
  return v < 0 ? 0 : v;
}

// Begins the items of turn `turn` (the turn being bound, turnNow).
export function collectBegin(turn: u32): void {
  foundCount = 0;
  foundCapacity = 0;
  foundBytes = 0;
  metaNow = 0;
  noteL = 0;
  takeOutOfMemory();
  turnNow = turn;
}
