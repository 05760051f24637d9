// A session's intent (docs/bytecode.md §7): what the user's own messages named (e-mail
// addresses, URLs, domains, paths, channels and handles), which classes they prohibited and
// which their verbs granted, and apart from those the items derived from the output of calls
// the user pointed at (§7.1: kinds DERIVED + subject, read only by IN_DERIVED). One long-lived
// block per session, rebuilt (as the union) by each bind or derive, so a later message amends it:
//   header   size, item count, class words, slot count, items offset, items bytes, slots offset
//   bitset   the prohibited classes
//   bitset   the granted classes
//   bitset   the classes a narrowing (§7.2) asks about
//   items    (kind, class, length, bytes padded to 4); kinds PROHIBITED and GRANTED hold the verb word
//   slots    open-addressing index over the named items: item offset + 1, 0 empty
import {
  SUBJ_ARG, SUBJ_EMAIL, SUBJ_DOMAIN, SUBJ_URL, SUBJ_PATH, SUBJ_RECIPIENT, SET_MAX_INTENT_BYTES,
} from "./format";
import { alloc, free, scratchAlloc } from "./mem";
import { fnv1a, indexOfByte, lowerAscii, equalsAscii, sameBytes } from "./bytes";
import { globMatch } from "./glob";
import {
  settingValue, classCount, classCapability, strPtr, strLen, intentNegationSet, intentNothingSet,
  intentExtensionSet, intentVerbSet, intentCancelSet, intentVerbClassStart, intentVerbClassCount, intentClass,
} from "./decode";
import { outAscii, outByte, outBytes, Text } from "./out";
import { policyWords } from "./wordset";
import {
  span, spanPtr, spanLen, resolvePath, normalizeEmail, normalizeUrl, urlHost, normalizeHost,
  hostOfNormalUrl, urlIsBareHost, cwdPtr, cwdLen, takeOutOfMemory,
} from "./normalize";
import {
  itemsBegin, nextItem, itemStart, itemEnd, itemNext, findVerbUses, verbUseValue, verbUseWord,
  verbUseWordLen, verbUseProhibits,
} from "./scan";
import { nextName, nameStart, nameEnd } from "./names";

const PROHIBITED: u32 = 0xff;
const GRANTED: u32 = 0xfe;
const NAME: u32 = 0xfd; // a name (names.ts), lower-cased
const ASKED: u32 = 0xfc; // a class a narrowing asks about; the item holds its source word
// Derived items are kept under kind DERIVED + subject, so no lookup of a named item (kind
// `subject`) can ever find one: tool output never widens what the user named.
const DERIVED: u32 = 0x80;
const HEADER: usize = 32;
const H_SIZE: usize = 0;
const H_COUNT: usize = 4;
const H_CLASS_WORDS: usize = 8;
const H_SLOTS: usize = 12;
const H_ITEMS: usize = 16;
const H_ITEMS_BYTES: usize = 20;
const H_SLOTS_AT: usize = 24;

@inline function field(intent: usize, f: usize): u32 {
  return load<u32>(intent + f);
}

function padded(len: u32): u32 {
  return (len + 3) & ~3;
}

// The index hash of an item: its bytes' FNV-1a (bytes.ts), mixed with its kind.
@inline function slotHash(kind: u32, fnv: u32): u32 {
  return (fnv ^ kind) * 0x01000193;
}

function hashOf(kind: u32, p: usize, len: u32): u32 {
  return slotHash(kind, fnv1a(p, len));
}

// ---- lookups ----

// Whether (kind, [p, p+len)) is named; `fnv` is the FNV-1a of the bytes.
function findHashed(intent: usize, kind: u32, p: usize, len: u32, fnv: u32): bool {
  if (intent == 0 || len == 0) return false;
  const slotCount = field(intent, H_SLOTS);
  if (slotCount == 0) return false;
  const items = intent + field(intent, H_ITEMS);
  const slots = intent + field(intent, H_SLOTS_AT);
  const mask = slotCount - 1;
  let s = slotHash(kind, fnv) & mask;
  while (true) {
    const entry = load<u32>(slots + ((<usize>s) << 2));
    if (entry == 0) return false;
    const rec = items + <usize>(entry - 1);
    if (load<u32>(rec) == kind && load<u32>(rec + 8) == len && sameBytes(rec + 12, p, len)) return true;
    s = (s + 1) & mask;
  }
  return false;
}

function findItem(intent: usize, kind: u32, p: usize, len: u32): bool {
  return findHashed(intent, kind, p, len, fnv1a(p, len));
}

// No host name is longer (RFC 1035); a longer value is never named, which also keeps the
// parent-domain walk below linear.
const MAX_HOST: u32 = 255;

// The host or one of its parent domains was named (base 0) or derived (base DERIVED).
function domainNamed(intent: usize, base: u32, p: usize, len: u32): bool {
  if (len > MAX_HOST) return false;
  if (findItem(intent, base + SUBJ_DOMAIN, p, len)) return true;
  for (let i: u32 = 0; i + 1 < len; i++) {
    if (load<u8>(p + i) == 0x2e && findItem(intent, base + SUBJ_DOMAIN, p + i + 1, len - i - 1)) return true;
  }
  return false;
}

// The path or a directory above it was named: "/a/b" by "/a/b", "/a" or "/"; "~/a" by "~".
// The prefixes' hashes grow with one pass over the path, so a path of many segments costs
// linear time.
function pathNamed(intent: usize, base: u32, p: usize, len: u32): bool {
  let h: u32 = 0x811c9dc5;
  for (let i: u32 = 0; i < len; i++) {
    const c = <u32>load<u8>(p + i);
    h = (h ^ c) * 0x01000193;
    // A directory ends before a '/' (the root "/" is its own first byte) and at the end.
    const ends = i + 1 == len || load<u8>(p + i + 1) == 0x2f || (i == 0 && c == 0x2f);
    if (ends && findHashed(intent, base + SUBJ_PATH, p, i + 1, h)) return true;
  }
  return false;
}

// A recipient named as a recipient or an address, or (for a value without '#' or '@') as a name
// of the message or the channel or handle of that name.
function nameNamed(intent: usize, base: u32, p: usize, len: u32): bool {
  if (len == 0) return false;
  if (findItem(intent, base + SUBJ_RECIPIENT, p, len) || findItem(intent, base + SUBJ_EMAIL, p, len)) return true;
  const c = <u32>load<u8>(p);
  if (c == 0x23 || c == 0x40) return false;
  if (findItem(intent, base + NAME, p, len)) return true;
  const sigiled = scratchAlloc(<usize>len + 1);
  if (sigiled == 0) return false;
  memory.copy(sigiled + 1, p, len);
  store<u8>(sigiled, 0x23);
  if (findItem(intent, base + SUBJ_RECIPIENT, sigiled, len + 1)) return true;
  store<u8>(sigiled, 0x40);
  return findItem(intent, base + SUBJ_RECIPIENT, sigiled, len + 1);
}

// A recipient value as named, or "platform:target" (send_message's form) by its target.
function recipientNamed(intent: usize, base: u32, p: usize, len: u32): bool {
  if (nameNamed(intent, base, p, len)) return true;
  let colon: u32 = 0;
  while (colon < len) {
    const c = <u32>load<u8>(p + colon);
    if (c == 0x3a) break;
    if (!((c | 0x20) - 0x61 < 26 || c - 0x30 < 10 || c == 0x5f || c == 0x2d)) return false;
    colon++;
  }
  return colon > 0 && colon + 1 < len && nameNamed(intent, base, p + colon + 1, len - colon - 1);
}

// Whether the intent grants value [p, p+len) of `subject` (a call's normalized target, or an
// ARG leaf's text), as §7's IN_INTENT says.
function hostNamed(intent: usize, base: u32, host: u64): bool {
  return host != 0 && findItem(intent, base + SUBJ_DOMAIN, spanPtr(host), spanLen(host));
}

// §7's matching over the named items (base 0) or the derived ones (base DERIVED).
function has(intent: usize, base: u32, subject: u32, p: usize, len: u32): bool {
  if (intent == 0 || len == 0) return false;
  switch (subject) {
    case SUBJ_EMAIL: return findItem(intent, base + SUBJ_EMAIL, p, len);
    case SUBJ_DOMAIN: return domainNamed(intent, base, p, len);
    case SUBJ_URL: {
      if (findItem(intent, base + SUBJ_URL, p, len)) return true;
      // A host found in output opens only its bare front page: a path, query or userinfo
      // the model adds could carry data out to a host an injection chose.
      if (base == DERIVED && !urlIsBareHost(p, len)) return false;
      if (!hostNamed(intent, base, hostOfNormalUrl(p, len))) return false;
      // Parsers disagree on a '\\' in the authority (userinfo to some, the path's start to a
      // browser): the host each of them would reach must be named.
      return indexOfByte(p, len, 0x5c, 0) < 0 || hostNamed(intent, base, urlHost(p, len, true));
    }
    case SUBJ_PATH: return pathNamed(intent, base, p, len);
    case SUBJ_RECIPIENT: return recipientNamed(intent, base, p, len);
    case SUBJ_ARG:
      return findItem(intent, base + SUBJ_EMAIL, p, len) || findItem(intent, base + SUBJ_URL, p, len) ||
        findItem(intent, base + SUBJ_DOMAIN, p, len) || findItem(intent, base + SUBJ_PATH, p, len) ||
        findItem(intent, base + SUBJ_RECIPIENT, p, len);
  }
  return false;
}

export function intentHas(intent: usize, subject: u32, p: usize, len: u32): bool {
  return has(intent, 0, subject, p, len);
}

// Whether the value was derived from the output of a call the user pointed at (§7.1, TEST_IN_DERIVED).
export function intentDerivedHas(intent: usize, subject: u32, p: usize, len: u32): bool {
  return has(intent, DERIVED, subject, p, len);
}

// Bit `cls` of the bitset `which` (0 prohibited, 1 granted, 2 asked) of an intent block.
@inline function classBit(intent: usize, which: u32, cls: u32): bool {
  const words = field(intent, H_CLASS_WORDS);
  if (cls >= words << 5) return false;
  const at = intent + HEADER + ((<usize>(which * words + (cls >> 5))) << 2);
  return (load<u32>(at) & (1 << (cls & 31))) != 0;
}

function setClassBit(intent: usize, which: u32, cls: u32): void {
  const at = intent + HEADER + ((<usize>(which * field(intent, H_CLASS_WORDS) + (cls >> 5))) << 2);
  store<u32>(at, load<u32>(at) | (1 << (cls & 31)));
}

export function intentProhibits(intent: usize, classIdx: u32): bool {
  return intent != 0 && classBit(intent, 0, classIdx);
}

// Whether the user's own messages named any item of `kind` (§7, TEST_INTENT_ANY).
export function intentNamesKind(intent: usize, kind: u32): bool {
  if (intent == 0) return false;
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let off: u32 = 0;
  while (off < bytes) {
    const rec = items + <usize>off;
    if (load<u32>(rec) == kind) return true;
    off += 12 + padded(load<u32>(rec + 8));
  }
  return false;
}

// Whether a verb of the user's own messages, not negated, granted the class (§7, TEST_GRANTED).
export function intentGrants(intent: usize, classIdx: u32): bool {
  return intent != 0 && classBit(intent, 1, classIdx);
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
// ptr, len.
let found: usize = 0;
let foundCount: u32 = 0;
let foundCapacity: u32 = 0;
let foundBytes: u32 = 0;

function collect(kind: u32, cls: u32, s: u64): bool {
  if (takeOutOfMemory()) return false;
  if (s == 0) return true;
  if (foundCount == foundCapacity) {
    const more = foundCapacity == 0 ? 64 : foundCapacity << 1;
    const table = scratchAlloc(<usize>more << 4);
    if (table == 0) return false;
    if (foundCount > 0) memory.copy(table, found, <usize>foundCount << 4);
    found = table;
    foundCapacity = more;
  }
  const rec = found + (<usize>foundCount << 4);
  store<u32>(rec, kind);
  store<u32>(rec + 4, cls);
  store<u32>(rec + 8, <u32>spanPtr(s));
  store<u32>(rec + 12, spanLen(s));
  foundCount++;
  foundBytes += 12 + padded(spanLen(s));
  return true;
}

function lowerCopy(p: usize, len: u32): u64 {
  const out = scratchAlloc(max<usize>(<usize>len, 1));
  if (out == 0) return 0;
  for (let i: u32 = 0; i < len; i++) store<u8>(out + i, <u8>lowerAscii(load<u8>(p + i)));
  return span(out, len);
}

// Collects the addresses, URLs, domains, paths, channels and handles text [p, p+len) names,
// as items of kind base + subject; false when out of memory.
function collectItems(p: usize, len: u32, base: u32): bool {
  const extensions = policyWords(intentExtensionSet());
  itemsBegin();
  let from: u32 = 0;
  while (true) {
    const kind = nextItem(p, len, from, extensions);
    if (kind == 0) break;
    from = itemNext;
    const s = p + itemStart;
    const n = itemEnd - itemStart;
    let ok = true;
    if (kind == SUBJ_EMAIL) ok = collect(base + SUBJ_EMAIL, 0, normalizeEmail(s, n));
    else if (kind == SUBJ_DOMAIN) ok = collect(base + SUBJ_DOMAIN, 0, normalizeHost(s, n));
    else if (kind == SUBJ_PATH) ok = collect(base + SUBJ_PATH, 0, resolvePath(s, n, cwdPtr(), cwdLen()));
    else if (kind == SUBJ_RECIPIENT) {
      const r = lowerCopy(s, n);
      ok = r != 0 && collect(base + SUBJ_RECIPIENT, 0, r);
    } else if (kind == SUBJ_URL) {
      ok = collect(base + SUBJ_URL, 0, normalizeUrl(s, n)) && collect(base + SUBJ_DOMAIN, 0, urlHost(s, n, false));
    }
    if (!ok) return false;
  }
  return true;
}

// Collects what message [p, p+len) names, grants and prohibits; false when out of memory.
function collectMessage(p: usize, len: u32): bool {
  if (!collectItems(p, len, 0)) return false;
  let at: u32 = 0;
  while (nextName(p, len, at)) {
    const r = lowerCopy(p + nameStart, nameEnd - nameStart);
    if (r == 0 || !collect(NAME, 0, r)) return false;
    at = nameEnd;
  }
  const count = findVerbUses(p, len, policyWords(intentNegationSet()), policyWords(intentNothingSet()),
    policyWords(intentVerbSet()), policyWords(intentCancelSet()));
  if (count < 0) return false;
  for (let k: u32 = 0; k < <u32>count; k++) {
    const verb = verbUseValue(k);
    const word = span(verbUseWord(k), verbUseWordLen(k));
    const kind = verbUseProhibits(k) ? PROHIBITED : GRANTED;
    const start = intentVerbClassStart(verb);
    const end = start + intentVerbClassCount(verb);
    for (let c = start; c < end; c++) {
      if (!collect(kind, intentClass(c), word)) return false;
    }
  }
  return true;
}

// The intent under construction.
let building: usize = 0;
let buildItems: usize = 0;
let buildUsed: u32 = 0;
let buildSlots: usize = 0;
let buildSlotCount: u32 = 0;
let buildCount: u32 = 0;

// Adds an item unless present (a prohibition or grant: unless its class has that bit already).
function insert(kind: u32, cls: u32, p: usize, len: u32): void {
  if (kind == PROHIBITED || kind == GRANTED || kind == ASKED) {
    const which: u32 = kind == PROHIBITED ? 0 : kind == GRANTED ? 1 : 2;
    if (cls >= field(building, H_CLASS_WORDS) << 5 || classBit(building, which, cls)) return;
    setClassBit(building, which, cls);
  } else {
    if (len == 0 || findBuilding(kind, p, len)) return;
    const mask = buildSlotCount - 1;
    let s = hashOf(kind, p, len) & mask;
    while (load<u32>(buildSlots + ((<usize>s) << 2)) != 0) s = (s + 1) & mask;
    store<u32>(buildSlots + ((<usize>s) << 2), buildUsed + 1);
  }
  const rec = buildItems + <usize>buildUsed;
  store<u32>(rec, kind);
  store<u32>(rec + 4, cls);
  store<u32>(rec + 8, len);
  memory.copy(rec + 12, p, len);
  buildUsed += 12 + padded(len);
  buildCount++;
}

function findBuilding(kind: u32, p: usize, len: u32): bool {
  const mask = buildSlotCount - 1;
  let s = hashOf(kind, p, len) & mask;
  while (true) {
    const entry = load<u32>(buildSlots + ((<usize>s) << 2));
    if (entry == 0) return false;
    const rec = buildItems + <usize>(entry - 1);
    if (load<u32>(rec) == kind && load<u32>(rec + 8) == len && sameBytes(rec + 12, p, len)) return true;
    s = (s + 1) & mask;
  }
  return false;
}

function collectBegin(): void {
  foundCount = 0;
  foundCapacity = 0;
  foundBytes = 0;
  takeOutOfMemory();
}

// Binds message [msg, msg+len) into `intent` (0: none yet): the new intent holds the union of
// both. The old intent is freed; on out of memory 0 is returned and the old intent is untouched.
export function intentBind(intent: usize, msg: usize, len: u32): usize {
  collectBegin();
  if (!collectMessage(msg, min(len, settingValue(SET_MAX_INTENT_BYTES)))) return 0;
  return rebuild(intent);
}

// Records what tool output [p, p+len) names as derived items of `intent` (§7.1); the caller
// has checked that the user pointed at the call. Returns the new intent as intentBind does.
export function intentDerive(intent: usize, p: usize, len: u32): usize {
  collectBegin();
  if (!collectItems(p, min(len, settingValue(SET_MAX_INTENT_BYTES)), DERIVED)) return 0;
  return rebuild(intent);
}

// Narrows `intent` (§7.2) by the lines of [p, p+len): `prohibit<TAB>capability glob` or
// `ask<TAB>capability glob`, each applied to every class whose capability the glob matches, and
// recorded with the source word `source`. Returns the new intent as intentBind does; 0 with
// narrowMalformed set when a line is malformed (nothing is applied then).
export let narrowMalformed = false;
export function intentNarrow(intent: usize, p: usize, len: u32, source: u64): usize {
  collectBegin();
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
      if (globMatch(glob, globLen, strPtr(cap), strLen(cap)) && !collect(kind, c, source)) return 0;
    }
    at = end + 1;
  }
  narrowMalformed = false;
  return rebuild(intent);
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
  const itemsAt = HEADER + (<usize>classWords * 12); // three bitsets
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
  if (intent != 0) {
    const items = intent + field(intent, H_ITEMS);
    let off: u32 = 0;
    while (off < oldBytes) {
      const rec = items + <usize>off;
      const l = load<u32>(rec + 8);
      insert(load<u32>(rec), load<u32>(rec + 4), rec + 12, l);
      off += 12 + padded(l);
    }
  }
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + (<usize>k << 4);
    insert(load<u32>(rec), load<u32>(rec + 4), <usize>load<u32>(rec + 8), load<u32>(rec + 12));
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

// ---- the summary (§8) ----

function writeKind(intent: usize, kind: u32, name: Text): void {
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let off: u32 = 0;
  while (off < bytes) {
    const rec = items + <usize>off;
    const l = load<u32>(rec + 8);
    if (load<u32>(rec) == kind) {
      outAscii(name);
      outByte(9);
      outBytes(rec + 12, l);
      outByte(10);
    }
    off += 12 + padded(l);
  }
}

function writeVerbUses(intent: usize, kind: u32, name: Text): void {
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  const classes = classCount();
  let off: u32 = 0;
  while (off < bytes) {
    const rec = items + <usize>off;
    const l = load<u32>(rec + 8);
    const cls = load<u32>(rec + 4);
    if (load<u32>(rec) == kind && cls < classes) {
      const cap = classCapability(cls);
      outAscii(name);
      outByte(9);
      outBytes(strPtr(cap), strLen(cap));
      outByte(9);
      outBytes(rec + 12, l);
      outByte(10);
    }
    off += 12 + padded(l);
  }
}

// Appends the summary lines: `kind<TAB>value`, then `prohibit<TAB>capability<TAB>verb`, then
// `grant<TAB>capability<TAB>verb`, then `ask<TAB>capability<TAB>source`.
export function intentWriteSummary(intent: usize): void {
  if (intent == 0) return;
  writeKind(intent, SUBJ_EMAIL, "email");
  writeKind(intent, SUBJ_URL, "url");
  writeKind(intent, SUBJ_DOMAIN, "domain");
  writeKind(intent, SUBJ_PATH, "path");
  writeKind(intent, SUBJ_RECIPIENT, "recipient");
  writeKind(intent, NAME, "name");
  writeKind(intent, DERIVED + SUBJ_EMAIL, "derived-email");
  writeKind(intent, DERIVED + SUBJ_URL, "derived-url");
  writeKind(intent, DERIVED + SUBJ_DOMAIN, "derived-domain");
  writeKind(intent, DERIVED + SUBJ_PATH, "derived-path");
  writeKind(intent, DERIVED + SUBJ_RECIPIENT, "derived-recipient");
  writeVerbUses(intent, PROHIBITED, "prohibit");
  writeVerbUses(intent, GRANTED, "grant");
  writeVerbUses(intent, ASKED, "ask");
}
