// A session's intent (docs/bytecode.md §7): what the user's own messages named (e-mail
// addresses, URLs, domains, paths, channels and handles), which classes they prohibited and
// which their verbs granted, and apart from those the items derived from the output of calls
// the user pointed at (§7.1: kinds DERIVED + subject, read only by IN_DERIVED). One long-lived
// block per session, rebuilt (as the union) by each bind or derive, so a later message amends it:
//   header   size, item count, class words, slot count, items offset, items bytes, slots offset
//   bitset   the prohibited classes
//   bitset   the granted classes
//   bitset   the classes a narrowing (§7.2) asks about
//   bitset   the classes granted maybe (under a condition the fence cannot check)
//   items    (kind, class, length, attributes, bytes padded to 4); kinds PROHIBITED and GRANTED
//            hold the verb word; attributes say how the user's words named the item (§7.2)
//   slots    open-addressing index over the named items: item offset + 1, 0 empty
import {
  SUBJ_ARG, SUBJ_EMAIL, SUBJ_DOMAIN, SUBJ_URL, SUBJ_PATH, SUBJ_RECIPIENT, SUBJ_WRITE, SUBJ_OBJECT, SUBJ_AMOUNT,
  SET_MAX_INTENT_BYTES, INTENT_NAMED,
} from "./format";
import { NO, YES, MAYBE, either } from "./tri";
import { globMatch, globsMeet } from "./glob";
import { alloc, free, scratchAlloc } from "./mem";
import { fnv1a, indexOfByte, lowerAscii, equalsAscii, sameBytes } from "./bytes";
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
  itemsBegin, nextItem, itemStart, itemEnd, itemNext, itemIsWordHost, findVerbUses, verbUseValue, verbUseWord,
  verbUseWordLen, verbUseProhibits,
} from "./scan";
import { nextName, nameStart, nameEnd } from "./names";
import { bindObjects, objectNormal } from "./objects";
import { amountWithin } from "./amount";

const PROHIBITED: u32 = 0xff;
const GRANTED: u32 = 0xfe;
const NAME: u32 = 0xfd; // a name (names.ts), lower-cased
const ASKED: u32 = 0xfc; // a class a narrowing asks about; the item holds its source word
const GRANTED_MAYBE: u32 = 0xfb; // a class a verb granted under a condition; the item holds the verb
// Derived items are kept under kind DERIVED + subject, so no lookup of a named item (kind
// `subject`) can ever find one: tool output never widens what the user named.
const DERIVED: u32 = 0x80;
// Item attributes: how the user's words named the item. A destination of a plain request grants
// it as a target of writes and sends (IN_INTENT's destination reading, §7); one under a condition
// the fence cannot check, or a mention it could not place (a language the grammar does not know),
// grants it maybe. Any of the user's own words name it (the named reading), a condition maybe.
export const A_DEST: u32 = 1;
export const A_DEST_MAYBE: u32 = 2;
export const A_NAMED: u32 = 4;
export const A_NAMED_MAYBE: u32 = 8;
export const A_REVOKED: u32 = 16; // a later turn took its destination grant back
// A host named as itself ("example.com"), not only as the host of a URL the user named: it
// opens every URL on that host, where a named URL opens only itself and the paths below it.
export const A_BARE_HOST: u32 = 32;
const ITEM_HEAD: u32 = 16;

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

// What the reading `flavor` (INTENT_DESTINATION, INTENT_NAMED, or DERIVED_READING for derived
// items) makes of an item with attributes `a`.
const DERIVED_READING: u32 = 2;
function reading(a: u32, flavor: u32): u32 {
  if (flavor == DERIVED_READING) return YES;
  if (flavor == INTENT_NAMED) {
    if ((a & (A_DEST | A_NAMED)) != 0) return YES;
    return (a & (A_DEST_MAYBE | A_NAMED_MAYBE)) != 0 ? MAYBE : NO;
  }
  if ((a & A_DEST) != 0) return YES;
  return (a & A_DEST_MAYBE) != 0 ? MAYBE : NO;
}

// The record of (kind, [p, p+len)), 0 when none; `fnv` is the FNV-1a of the bytes.
function findHashed(intent: usize, kind: u32, p: usize, len: u32, fnv: u32): usize {
  if (intent == 0 || len == 0) return 0;
  const slotCount = field(intent, H_SLOTS);
  if (slotCount == 0) return 0;
  const items = intent + field(intent, H_ITEMS);
  const slots = intent + field(intent, H_SLOTS_AT);
  const mask = slotCount - 1;
  let s = slotHash(kind, fnv) & mask;
  while (true) {
    const entry = load<u32>(slots + ((<usize>s) << 2));
    if (entry == 0) return 0;
    const rec = items + <usize>(entry - 1);
    if (load<u32>(rec) == kind && load<u32>(rec + 8) == len && sameBytes(rec + ITEM_HEAD, p, len)) return rec;
    s = (s + 1) & mask;
  }
  return 0;
}

// What the reading makes of item (kind, bytes): NO when it is not there.
let flavorNow: u32 = 0;
function lookHashed(intent: usize, kind: u32, p: usize, len: u32, fnv: u32): u32 {
  const rec = findHashed(intent, kind, p, len, fnv);
  return rec == 0 ? NO : reading(load<u32>(rec + 12), flavorNow);
}

function findItem(intent: usize, kind: u32, p: usize, len: u32): u32 {
  return lookHashed(intent, kind, p, len, fnv1a(p, len));
}

// No host name is longer (RFC 1035); a longer value is never named, which also keeps the
// parent-domain walk below linear.
const MAX_HOST: u32 = 255;

// The host or one of its parent domains was named (base 0) or derived (base DERIVED).
function domainNamed(intent: usize, base: u32, p: usize, len: u32): u32 {
  if (len > MAX_HOST) return NO;
  let r = findItem(intent, base + SUBJ_DOMAIN, p, len);
  for (let i: u32 = 0; i + 1 < len && r != YES; i++) {
    if (load<u8>(p + i) == 0x2e) r = either(r, findItem(intent, base + SUBJ_DOMAIN, p + i + 1, len - i - 1));
  }
  return r;
}

// The path or a directory above it was named: "/a/b" by "/a/b", "/a" or "/"; "~/a" by "~".
// The prefixes' hashes grow with one pass over the path, so a path of many segments costs
// linear time.
function pathNamed(intent: usize, base: u32, p: usize, len: u32): u32 {
  let h: u32 = 0x811c9dc5;
  let r = NO;
  for (let i: u32 = 0; i < len && r != YES; i++) {
    const c = <u32>load<u8>(p + i);
    h = (h ^ c) * 0x01000193;
    // A directory ends before a '/' (the root "/" is its own first byte) and at the end.
    const ends = i + 1 == len || load<u8>(p + i + 1) == 0x2f || (i == 0 && c == 0x2f);
    if (ends) r = either(r, lookHashed(intent, base + SUBJ_PATH, p, i + 1, h));
  }
  return r;
}

// A recipient named as a recipient or an address, or (for a value without '#' or '@') as a name
// of the message or the channel or handle of that name.
function nameNamed(intent: usize, base: u32, p: usize, len: u32): u32 {
  if (len == 0) return NO;
  let r = either(findItem(intent, base + SUBJ_RECIPIENT, p, len), findItem(intent, base + SUBJ_EMAIL, p, len));
  const c = <u32>load<u8>(p);
  if (r == YES || c == 0x23 || c == 0x40) return r;
  r = either(r, findItem(intent, base + NAME, p, len));
  if (r == YES) return r;
  // An object the user named ("Acme Corp", an IBAN, with or without its spaces), §7.3.
  const o = objectNormal(p, len);
  if (o != 0) r = either(r, findItem(intent, base + SUBJ_OBJECT, spanPtr(o), spanLen(o)));
  if (r == YES) return r;
  const sigiled = scratchAlloc(<usize>len + 1);
  if (sigiled == 0) return r;
  memory.copy(sigiled + 1, p, len);
  store<u8>(sigiled, 0x23);
  r = either(r, findItem(intent, base + SUBJ_RECIPIENT, sigiled, len + 1));
  store<u8>(sigiled, 0x40);
  return either(r, findItem(intent, base + SUBJ_RECIPIENT, sigiled, len + 1));
}

// A recipient value as named, or "platform:target" (send_message's form) by its target.
function recipientNamed(intent: usize, base: u32, p: usize, len: u32): u32 {
  const r = nameNamed(intent, base, p, len);
  if (r == YES) return r;
  let colon: u32 = 0;
  while (colon < len) {
    const c = <u32>load<u8>(p + colon);
    if (c == 0x3a) break;
    if (!((c | 0x20) - 0x61 < 26 || c - 0x30 < 10 || c == 0x5f || c == 0x2d)) return r;
    colon++;
  }
  if (colon == 0 || colon + 1 >= len) return r;
  return either(r, nameNamed(intent, base, p + colon + 1, len - colon - 1));
}

// A URL's host grants the URL when the user named that host as itself (derived items: found in
// any form, for §7.1's front-page rule).
function hostNamed(intent: usize, base: u32, host: u64): u32 {
  if (host == 0) return NO;
  const p = spanPtr(host), len = spanLen(host);
  const rec = findHashed(intent, base + SUBJ_DOMAIN, p, len, fnv1a(p, len));
  if (rec == 0) return NO;
  const a = load<u32>(rec + 12);
  if (base != DERIVED && (a & A_BARE_HOST) == 0) return NO;
  return reading(a, flavorNow);
}

// A URL the user named opens itself, the paths below it and its fragments ("…/doc/1" opens
// "…/doc/1/edit" and "…/doc/1#p2", not "…/doc/12", "…/doc/1?x=" or another path of the host).
function urlPrefixNamed(intent: usize, base: u32, p: usize, len: u32): u32 {
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let r = NO;
  let off: u32 = 0;
  while (off < bytes && r != YES) {
    const rec = items + <usize>off;
    const l = load<u32>(rec + 8);
    off += ITEM_HEAD + padded(l);
    if (load<u32>(rec) != base + SUBJ_URL || l >= len || !sameBytes(rec + ITEM_HEAD, p, l)) continue;
    const next = <u32>load<u8>(p + l);
    const slashEnd = l > 0 && load<u8>(rec + ITEM_HEAD + l - 1) == 0x2f;
    if (slashEnd || next == 0x2f || next == 0x23) r = either(r, reading(load<u32>(rec + 12), flavorNow));
  }
  return r;
}

// Any named item equal to the value, whatever its kind.
function anyNamed(intent: usize, base: u32, p: usize, len: u32): u32 {
  let r = findItem(intent, base + SUBJ_EMAIL, p, len);
  r = either(r, findItem(intent, base + SUBJ_URL, p, len));
  r = either(r, findItem(intent, base + SUBJ_DOMAIN, p, len));
  r = either(r, findItem(intent, base + SUBJ_PATH, p, len));
  return either(r, findItem(intent, base + SUBJ_RECIPIENT, p, len));
}

// ---- objects and sums (§7.3) ----

const THE: usize = memory.data<u8>([0x74, 0x68, 0x65, 0x20]); // "the "
const yearless: usize = memory.data(7);

// An object value (§6.8) the user named as a whole: an item of any kind equal to it, or to it
// without a leading "the"; an ISO date by the date the user named (a yearless one by its month
// and day; a date with a time after it, maybe: the time was not named).
function wholeNamed(intent: usize, base: u32, p: usize, len: u32): u32 {
  let r = either(anyNamed(intent, base, p, len), findItem(intent, base + SUBJ_OBJECT, p, len));
  if (r != YES && len > 4 && sameBytes(p, THE, 4)) {
    r = either(r, either(anyNamed(intent, base, p + 4, len - 4), findItem(intent, base + SUBJ_OBJECT, p + 4, len - 4)));
  }
  if (r == YES || !isoDate(p, len)) return r;
  store<u16>(yearless, 0x2d2d);
  memory.copy(yearless + 2, p + 5, 5);
  let d = either(findItem(intent, base + SUBJ_OBJECT, p, 10), findItem(intent, base + SUBJ_OBJECT, yearless, 7));
  if (len > 10 && d == YES) d = MAYBE;
  return either(r, d);
}

// YYYY-MM-DD, alone or before a time ("T10:00", " 10:00").
function isoDate(p: usize, len: u32): bool {
  if (len < 10 || (len > 10 && load<u8>(p + 10) != 0x54 && load<u8>(p + 10) != 0x74 && load<u8>(p + 10) != 0x20)) return false;
  for (let i: u32 = 0; i < 10; i++) {
    const c = <u32>load<u8>(p + i);
    if (i == 4 || i == 7 ? c != 0x2d : c - 0x30 >= 10) return false;
  }
  return true;
}

@inline function isPartBreak(c: u32): bool {
  return c == 0x2c || c == 0x3b || c == 0x28 || c == 0x29;
}

// OBJECT (§7.3): named as a whole; else, for a value of parts ("hotel lumen, paris", "acme
// (berlin)"), named when each part is, maybe when its first part is (the rest qualifies it
// with words the user never said); a value that merely holds the user's words ("lumen scam
// inn") is not named.
function objectNamed(intent: usize, base: u32, p: usize, len: u32): u32 {
  const whole = wholeNamed(intent, base, p, len);
  if (whole == YES) return whole;
  let parts: u32 = 0;
  let all = true;
  let first = NO;
  let i: u32 = 0;
  while (i < len) {
    let j = i;
    while (j < len && !isPartBreak(load<u8>(p + j))) j++;
    let s = i, t = j;
    while (s < t && load<u8>(p + s) == 0x20) s++;
    while (t > s && load<u8>(p + t - 1) == 0x20) t--;
    if (t > s) {
      const r = wholeNamed(intent, base, p + s, t - s);
      if (parts == 0) first = r;
      if (r != YES) all = false;
      parts++;
    }
    i = j + 1;
  }
  if (parts < 2) return whole;
  if (all) return YES;
  return either(whole, first == NO ? NO : MAYBE);
}

// AMOUNT (§7.3): at most a sum the user named in the same currency (maybe when one of the two
// gives no currency).
function amountNamed(intent: usize, base: u32, p: usize, len: u32): u32 {
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let r = NO;
  let off: u32 = 0;
  while (off < bytes && r != YES) {
    const rec = items + <usize>off;
    const l = load<u32>(rec + 8);
    off += ITEM_HEAD + padded(l);
    if (load<u32>(rec) != base + SUBJ_AMOUNT) continue;
    const a = reading(load<u32>(rec + 12), flavorNow);
    if (a == NO) continue;
    const w = amountWithin(p, len, rec + ITEM_HEAD, l);
    r = either(r, w == YES ? a : w == MAYBE ? MAYBE : NO);
  }
  return r;
}

// §7's matching over the named items (base 0) or the derived ones (base DERIVED), under the
// reading flavorNow: whether value [p, p+len) of `subject` (a call's normalized target, or an
// ARG leaf's text) is granted.
function has(intent: usize, base: u32, subject: u32, p: usize, len: u32): u32 {
  if (intent == 0 || len == 0) return NO;
  switch (subject) {
    case SUBJ_EMAIL: return findItem(intent, base + SUBJ_EMAIL, p, len);
    case SUBJ_DOMAIN: return domainNamed(intent, base, p, len);
    case SUBJ_URL: {
      const exact = either(findItem(intent, base + SUBJ_URL, p, len), urlPrefixNamed(intent, base, p, len));
      if (exact == YES) return exact;
      // A host found in output opens only its bare front page: a path, query or userinfo
      // the model adds could carry data out to a host an injection chose.
      if (base == DERIVED && !urlIsBareHost(p, len)) return exact;
      let host = hostNamed(intent, base, hostOfNormalUrl(p, len));
      // Parsers disagree on a '\\' in the authority (userinfo to some, the path's start to a
      // browser): the host each of them would reach must be named.
      if (host != NO && indexOfByte(p, len, 0x5c, 0) >= 0) {
        const other = hostNamed(intent, base, urlHost(p, len, true));
        if (other == NO) host = NO;
        else if (other == MAYBE) host = MAYBE;
      }
      return either(exact, host);
    }
    case SUBJ_PATH:
    case SUBJ_WRITE: return pathNamed(intent, base, p, len);
    case SUBJ_RECIPIENT: return recipientNamed(intent, base, p, len);
    case SUBJ_OBJECT: return objectNamed(intent, base, p, len);
    case SUBJ_AMOUNT: return amountNamed(intent, base, p, len);
    case SUBJ_ARG: return anyNamed(intent, base, p, len);
  }
  return NO;
}

// IN_INTENT (§7): whether the user's words grant the value, under the reading `flavor`.
export function intentHas(intent: usize, subject: u32, p: usize, len: u32, flavor: u32): u32 {
  flavorNow = flavor;
  return has(intent, 0, subject, p, len);
}

// Whether the value was derived from the output of a call the user pointed at (§7.1, TEST_IN_DERIVED).
export function intentDerivedHas(intent: usize, subject: u32, p: usize, len: u32): bool {
  flavorNow = DERIVED_READING;
  return has(intent, DERIVED, subject, p, len) != NO;
}

// The item kinds a subject's values are looked up among.
function kindMatches(subject: u32, kind: u32): bool {
  if (subject == SUBJ_ARG) return kind <= <u32>SUBJ_RECIPIENT || kind == NAME;
  if (subject == SUBJ_OBJECT) return kind <= <u32>SUBJ_RECIPIENT || kind == SUBJ_OBJECT;
  if (subject == SUBJ_WRITE) return kind == SUBJ_PATH;
  return kind == subject;
}

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
    off += ITEM_HEAD + padded(l);
    if (kind < base || !kindMatches(subject, kind - base)) continue;
    if (!derived && reading(load<u32>(rec + 12), flavor) == NO) continue;
    const v = rec + ITEM_HEAD;
    if (globsMeet(pat, patLen, v, l)) return true;
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

// Bit `cls` of the bitset `which` (0 prohibited, 1 granted, 2 asked, 3 granted maybe) of an
// intent block.
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
    off += ITEM_HEAD + padded(load<u32>(rec + 8));
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
// ptr, len, attributes.
const FOUND: u32 = 20;
let found: usize = 0;
let foundCount: u32 = 0;
let foundCapacity: u32 = 0;
let foundBytes: u32 = 0;

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
  foundCount++;
  foundBytes += ITEM_HEAD + padded(spanLen(s));
  return true;
}

// An item the user's message names: a destination of a plain request, and named (§7); derived
// items and verb uses carry no attributes.
function collect(kind: u32, cls: u32, s: u64): bool {
  return collectWith(kind, cls, s, kind < DERIVED || kind == NAME ? A_DEST | A_NAMED : 0);
}

function itemAttributes(base: u32): u32 {
  return base == DERIVED ? 0 : A_DEST | A_NAMED;
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

// Collects the addresses, URLs, domains, paths, channels and handles text [p, p+len) names,
// as items of kind base + subject; false when out of memory.
function collectItems(p: usize, len: u32, base: u32): bool {
  const extensions = policyWords(intentExtensionSet());
  itemsBegin();
  let from: u32 = 0;
  let wordStart: u32 = 0; // the last PATH item's word: "example.com/docs" names that page
  let wordEnd: u32 = 0;
  while (true) {
    const kind = nextItem(p, len, from, extensions);
    if (kind == 0) break;
    from = itemNext;
    const s = p + itemStart;
    const n = itemEnd - itemStart;
    let ok = true;
    if (kind == SUBJ_EMAIL) ok = collect(base + SUBJ_EMAIL, 0, normalizeEmail(s, n));
    else if (kind == SUBJ_DOMAIN && itemIsWordHost) {
      // A host written with a path names that page (as https:// and http://), not the host.
      ok = collectWith(base + SUBJ_DOMAIN, 0, normalizeHost(s, n), itemAttributes(base)) &&
        collectSchemed(base, p + wordStart, wordEnd - wordStart);
    } else if (kind == SUBJ_DOMAIN) ok = collectWith(base + SUBJ_DOMAIN, 0, normalizeHost(s, n), itemAttributes(base) | A_BARE_HOST);
    else if (kind == SUBJ_PATH) {
      wordStart = itemStart;
      wordEnd = itemEnd;
      ok = collect(base + SUBJ_PATH, 0, resolvePath(s, n, cwdPtr(), cwdLen()));
    }
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
  if (!bindObjects(p, len, collect)) return false; // OBJECT and AMOUNT items (objects.ts)
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

// The bitset a verb-use kind sets, or -1 for an item kind.
function bitsetOf(kind: u32): i32 {
  if (kind == PROHIBITED) return 0;
  if (kind == GRANTED) return 1;
  if (kind == ASKED) return 2;
  return kind == GRANTED_MAYBE ? 3 : -1;
}

// Adds an item unless present, when its attributes join those it has (a prohibition or grant:
// unless its class has that bit already).
function insert(kind: u32, cls: u32, p: usize, len: u32, attributes: u32): void {
  const which = bitsetOf(kind);
  if (which >= 0) {
    if (cls >= field(building, H_CLASS_WORDS) << 5 || classBit(building, <u32>which, cls)) return;
    setClassBit(building, <u32>which, cls);
  } else {
    if (len == 0) return;
    const present = findBuilding(kind, p, len);
    if (present != 0) {
      store<u32>(present + 12, load<u32>(present + 12) | attributes);
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
  memory.copy(rec + ITEM_HEAD, p, len);
  buildUsed += ITEM_HEAD + padded(len);
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
  if (intent != 0) {
    const items = intent + field(intent, H_ITEMS);
    let off: u32 = 0;
    while (off < oldBytes) {
      const rec = items + <usize>off;
      const l = load<u32>(rec + 8);
      insert(load<u32>(rec), load<u32>(rec + 4), rec + ITEM_HEAD, l, load<u32>(rec + 12));
      off += ITEM_HEAD + padded(l);
    }
  }
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + <usize>k * FOUND;
    insert(load<u32>(rec), load<u32>(rec + 4), <usize>load<u32>(rec + 8), load<u32>(rec + 12), load<u32>(rec + 16));
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
      outBytes(rec + ITEM_HEAD, l);
      outByte(10);
    }
    off += ITEM_HEAD + padded(l);
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
      outBytes(rec + ITEM_HEAD, l);
      outByte(10);
    }
    off += ITEM_HEAD + padded(l);
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
  writeKind(intent, SUBJ_OBJECT, "object");
  writeKind(intent, SUBJ_AMOUNT, "amount");
  writeKind(intent, DERIVED + SUBJ_EMAIL, "derived-email");
  writeKind(intent, DERIVED + SUBJ_URL, "derived-url");
  writeKind(intent, DERIVED + SUBJ_DOMAIN, "derived-domain");
  writeKind(intent, DERIVED + SUBJ_PATH, "derived-path");
  writeKind(intent, DERIVED + SUBJ_RECIPIENT, "derived-recipient");
  writeVerbUses(intent, PROHIBITED, "prohibit");
  writeVerbUses(intent, GRANTED, "grant");
  writeVerbUses(intent, GRANTED_MAYBE, "grant-maybe");
  writeVerbUses(intent, ASKED, "ask");
}
