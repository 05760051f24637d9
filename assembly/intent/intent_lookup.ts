// §7's matching: whether an intent's items grant a value (IN_INTENT, IN_DERIVED), walking a
// path's directories, a host's parents and a URL's prefixes, and matching objects and sums
// (§7.4). flavorNow, the reading in force, is set only by intentHas and intentDerivedHas here.
import {
  SUBJ_ARG, SUBJ_EMAIL, SUBJ_DOMAIN, SUBJ_URL, SUBJ_PATH, SUBJ_RECIPIENT, SUBJ_WRITE, SUBJ_OBJECT, SUBJ_AMOUNT,
  INTENT_DESTINATION, INTENT_NAMED, INTENT_SOURCE, INTENT_EXACT, INTENT_RULED_OUT, BOUND_DESTINATION,
} from "../../bytecode/format";
import { NO, YES, MAYBE, either } from "../decision/tri";
import { scratchAlloc } from "../abi/mem";
import { fnv1a, indexOfByte, sameBytes } from "../abi/bytes";
import { spanPtr, spanLen, urlHost, hostOfNormalUrl, urlIsBareHost } from "../readers/normalize";
import { objectNormal } from "./objects";
import { isIban } from "./objects_normal";
import { amountWithin } from "../readers/amount";
import {
  NAME, DERIVED, TEXT, WORDS, A_DEST, A_DEST_MAYBE, A_NAMED, A_NAMED_MAYBE, A_BARE_HOST, A_SOURCE, A_SOURCE_MAYBE, A_GRANTS, A_RECORD, A_OWN_RECORD, A_DEST_ENTRY, addressHostOnly, vetoes, ITEM_HEAD,
  recSize, H_SLOTS, H_ITEMS, H_ITEMS_BYTES, H_SLOTS_AT, field, slotHash,
} from "./intent_record";

// What the reading `flavor` (INTENT_DESTINATION, INTENT_NAMED, INTENT_SOURCE, INTENT_EXACT,
// INTENT_RULED_OUT, or DERIVED_READING for derived items) makes of an item with attributes `a`. EXACT reads an item as
// NAMED does: it differs in which items may grant a value (only the value itself, has()).
const DERIVED_READING: u32 = 0xff;
export function reading(a: u32, flavor: u32): u32 {
  if (flavor == DERIVED_READING) return YES;
  if (flavor == INTENT_RULED_OUT) return vetoes(a) ? YES : NO;
  if (flavor == INTENT_NAMED || flavor == INTENT_EXACT) {
    if ((a & (A_DEST | A_NAMED | A_SOURCE)) != 0) return YES;
    return (a & (A_DEST_MAYBE | A_NAMED_MAYBE | A_SOURCE_MAYBE)) != 0 ? MAYBE : NO;
  }
  if (flavor == INTENT_SOURCE) {
    if ((a & (A_DEST | A_SOURCE)) != 0) return YES;
    return (a & (A_DEST_MAYBE | A_SOURCE_MAYBE)) != 0 ? MAYBE : NO;
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

// What the reading makes of item (kind, bytes): NO when it is not there. `vetoed` says whether
// the item rules the value out (for the walks over a path's directories and a host's parents).
let flavorNow: u32 = 0;
let vetoed = false;
function lookHashed(intent: usize, kind: u32, p: usize, len: u32, fnv: u32): u32 {
  return lookRecord(findHashed(intent, kind, p, len, fnv));
}

function lookRecord(rec: usize): u32 {
  vetoed = false;
  if (rec == 0) return NO;
  const a = load<u32>(rec + 12);
  vetoed = vetoes(a);
  return reading(a, flavorNow);
}

function findItem(intent: usize, kind: u32, p: usize, len: u32): u32 {
  return lookHashed(intent, kind, p, len, fnv1a(p, len));
}

// No host name is longer (RFC 1035); a longer value is never named, which also keeps the
// parent-domain walk below linear.
const MAX_HOST: u32 = 255;

// The host or one of its parent domains was named (base 0) or derived (base DERIVED); under the
// exact reading, the host itself. A host the user ruled out stops the walk: its parents grant
// none of it ("fetch from example.com but not evil.example.com").
function domainNamed(intent: usize, base: u32, p: usize, len: u32): u32 {
  if (len > MAX_HOST) return NO;
  let r = findItem(intent, base + SUBJ_DOMAIN, p, len);
  if (vetoed || flavorNow == INTENT_EXACT) return r;
  for (let i: u32 = 0; i + 1 < len && r != YES; i++) {
    if (load<u8>(p + i) != 0x2e) continue;
    const rec = findHashed(intent, base + SUBJ_DOMAIN, p + i + 1, len - i - 1, fnv1a(p + i + 1, len - i - 1));
    const parent = rec != 0 && addressHostOnly(load<u32>(rec + 12)) ? NO : lookRecord(rec);
    if (vetoed) return r;
    r = either(r, parent);
  }
  return r;
}

// The path or a directory above it was named: "/a/b" by "/a/b", "/a" or "/"; "~/a" by "~"; under
// the exact reading, the path itself. A path the user ruled out takes itself and what lies below
// it back from the directories above it ("write into docs/ but leave docs/private alone"): the
// deepest of the path's named directories that rules it out decides, unless one below it grants.
// The prefixes' hashes grow with one pass over the path, so a path of many segments costs
// linear time.
function pathNamed(intent: usize, base: u32, p: usize, len: u32): u32 {
  if (flavorNow == INTENT_EXACT) return findItem(intent, base + SUBJ_PATH, p, len);
  if (flavorNow == INTENT_RULED_OUT) return pathRuledOut(intent, base, p, len);
  let h: u32 = 0x811c9dc5;
  let r = NO;
  for (let i: u32 = 0; i < len; i++) {
    const c = <u32>load<u8>(p + i);
    h = (h ^ c) * 0x01000193;
    // A directory ends before a '/' (the root "/" is its own first byte) and at the end.
    const ends = i + 1 == len || load<u8>(p + i + 1) == 0x2f || (i == 0 && c == 0x2f);
    if (!ends) continue;
    const d = lookHashed(intent, base + SUBJ_PATH, p, i + 1, h);
    r = vetoed ? NO : either(r, d);
  }
  return r;
}

// The ruled-out reading (INTENT_RULED_OUT): the deepest of the path and its directories the user
// spoke of decides, YES when it rules the path out, NO when it grants it ("write into docs/ but
// leave docs/private alone": docs/private/x is ruled out, docs/x is not).
function pathRuledOut(intent: usize, base: u32, p: usize, len: u32): u32 {
  let h: u32 = 0x811c9dc5;
  let r = NO;
  for (let i: u32 = 0; i < len; i++) {
    const c = <u32>load<u8>(p + i);
    h = (h ^ c) * 0x01000193;
    const ends = i + 1 == len || load<u8>(p + i + 1) == 0x2f || (i == 0 && c == 0x2f);
    if (!ends) continue;
    const rec = findHashed(intent, base + SUBJ_PATH, p, i + 1, h);
    if (rec == 0) continue;
    const a = load<u32>(rec + 12);
    if (vetoes(a)) r = YES;
    else if ((a & A_GRANTS) != 0) r = NO;
  }
  return r;
}

// The object item [p, p+len) as findItem reads it, when the user named it in a receiver's role
// (its clause's role, in the item's meta); derived objects have no role.
function receivingObject(intent: usize, base: u32, p: usize, len: u32): u32 {
  const rec = findHashed(intent, base + SUBJ_OBJECT, p, len, fnv1a(p, len));
  const r = lookRecord(rec);
  return rec != 0 && base != DERIVED && (load<u32>(rec + 16) & 0xf) != BOUND_DESTINATION ? NO : r;
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
  // An object the user named where a receiver stands ("pay Acme Corp", an IBAN, with or without
  // its spaces), §7.4; one named otherwise ("add logging to the Payment module") receives nothing.
  const o = objectNormal(p, len);
  if (o != 0) r = either(r, receivingObject(intent, base, spanPtr(o), spanLen(o)));
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
// A URL above the value that the user ruled out takes it back from the shorter ones (and from its
// host: urlVetoed).
let urlVetoed = false;
function urlAbove(rec: usize, kind: u32, p: usize, len: u32): bool {
  const l = load<u32>(rec + 8);
  if (load<u32>(rec) != kind || l >= len || !sameBytes(rec + ITEM_HEAD, p, l)) return false;
  const next = <u32>load<u8>(p + l);
  return (l > 0 && load<u8>(rec + ITEM_HEAD + l - 1) == 0x2f) || next == 0x2f || next == 0x23;
}
function urlPrefixNamed(intent: usize, base: u32, p: usize, len: u32): u32 {
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let vetoLen: i64 = -1;
  let off: u32 = 0;
  while (off < bytes) {
    const rec = items + <usize>off;
    off += recSize(rec);
    if (vetoes(load<u32>(rec + 12)) && urlAbove(rec, base + SUBJ_URL, p, len)) vetoLen = max(vetoLen, <i64>load<u32>(rec + 8));
  }
  urlVetoed = vetoLen >= 0;
  let r = NO;
  off = 0;
  while (off < bytes && r != YES) {
    const rec = items + <usize>off;
    off += recSize(rec);
    if (<i64>load<u32>(rec + 8) > vetoLen && urlAbove(rec, base + SUBJ_URL, p, len)) r = either(r, reading(load<u32>(rec + 12), flavorNow));
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

// ---- objects and sums (§7.4) ----

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
  if (r != YES && base == 0) r = either(r, inClauseText(intent, p, len));
  if (r == YES || !isoDate(p, len)) return r;
  store<u16>(yearless, 0x2d2d);
  memory.copy(yearless + 2, p + 5, 5);
  let d = either(findItem(intent, base + SUBJ_OBJECT, p, 10), findItem(intent, base + SUBJ_OBJECT, yearless, 7));
  if (len > 10 && d == YES) d = MAYBE;
  return either(r, d);
}

// A call's object may be a plain word the request chose ("stay in economy": cabin "economy"),
// so deciding a call reads the clauses of lower-case words too (WORDS items); picking a record's
// items the user named does not, where a plain word would name every element that shares it.
let plainWords = false;

// Whether the words of value [p, p+len) stand together in a clause of the user's own (TEXT
// items, and WORDS items while plainWords), under that clause's reading; never for a value the user ruled out, nor for a piece of
// a name the user wrote as one ("Lumen" of "Hotel Lumen": another place), nor under the exact or
// ruled-out readings (which name values, not words).
function inClauseText(intent: usize, p: usize, len: u32): u32 {
  if (flavorNow == INTENT_EXACT || flavorNow == INTENT_RULED_OUT || len == 0) return NO;
  // Ruled out as an object, or as the id or handle it was named by ("not #W1001").
  const h = fnv1a(p, len);
  const own = findHashed(intent, SUBJ_OBJECT, p, len, h), id = findHashed(intent, SUBJ_RECIPIENT, p, len, h);
  if ((own != 0 && vetoes(load<u32>(own + 12))) || (id != 0 && vetoes(load<u32>(id + 12)))) return NO;
  if (intentObjectWithin(intent, p, len)) return NO;
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let r = NO;
  let off: u32 = 0;
  while (off < bytes && r != YES) {
    const item = items + <usize>off;
    off += recSize(item);
    const kind = load<u32>(item);
    if (kind != TEXT && (kind != WORDS || !plainWords)) continue;
    const a = reading(load<u32>(item + 12), flavorNow);
    if (a == NO || a == r) continue;
    const t = item + ITEM_HEAD, l = load<u32>(item + 8);
    // The text starts and ends with a space: the value must stand between two of its spaces.
    for (let i: u32 = 1; i + len < l; i++) {
      if (load<u8>(t + i - 1) == 0x20 && load<u8>(t + i + len) == 0x20 && sameBytes(t + i, p, len)) { r = either(r, a); break; }
    }
  }
  return r;
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

// OBJECT (§7.4): named as a whole; else, for a value of parts ("hotel lumen, paris", "acme
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

// Whether value [p, p+len) is a derived item of `kind` read from the task's own records (with a
// bit of `from` beside A_RECORD), under a reading that records can serve (not the exact or the
// ruled-out one, which name values).
function inRecords(intent: usize, kind: u32, p: usize, len: u32, from: u32): bool {
  if (flavorNow == INTENT_EXACT || flavorNow == INTENT_RULED_OUT) return false;
  const rec = findHashed(intent, kind, p, len, fnv1a(p, len));
  if (rec == 0) return false;
  const a = load<u32>(rec + 12);
  return (a & A_RECORD) != 0 && (a & from) != 0;
}

// An object read from the task's own records (A_RECORD, §7.1) stands for what the user's words
// point at ("my order", "the card on file"), under every reading but the exact and the ruled-out
// ones, unless the user ruled it out or named another value of its shape: "cancel #W123" names
// the order acted on, and #W456 from the same profile is its neighbour, not the task's. A value
// shorter than NEIGHBOUR_MIN bytes is a count or a small number more than an id: "add two
// activities" says nothing of file 3; one with no digit is a word, of no series ("Chicago"
// named says nothing of the passenger "Omar" on the same record).
const NEIGHBOUR_MIN: u32 = 4;
function objectFromRecord(intent: usize, p: usize, len: u32): u32 {
  // An account number is where money goes: only the user's own account makes one the task's
  // (their saved payee); one in any other record was written by whoever wrote the record.
  if (!inRecords(intent, DERIVED + SUBJ_OBJECT, p, len, isIban(p, len) ? A_OWN_RECORD : A_RECORD)) return NO;
  const own = findHashed(intent, SUBJ_OBJECT, p, len, fnv1a(p, len));
  if (own != 0 && vetoes(load<u32>(own + 12))) return NO;
  if (len < NEIGHBOUR_MIN || !hasDigit(p, len)) return YES;
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let off: u32 = 0;
  while (off < bytes) {
    const item = items + <usize>off;
    off += recSize(item);
    const kind = load<u32>(item);
    if ((kind != SUBJ_OBJECT && kind != SUBJ_RECIPIENT) || (load<u32>(item + 12) & A_GRANTS) == 0) continue;
    const l = load<u32>(item + 8);
    if (sameShape(item + ITEM_HEAD, l, p, len) && !(l == len && sameBytes(item + ITEM_HEAD, p, len))) return NO;
  }
  return YES;
}

// A recipient or an address read from the user's own account or profile (A_OWN_RECORD, §7.1):
// their own contact, their own saved payee; or a recipient (not an address) of the entry of a
// listing the user named where the call goes (A_DEST_ENTRY: the id of the channel "#eng"). One
// any other record holds (a message's sender or Reply-To, a file's owner, a row of a sheet) is
// what someone else wrote there, and receives nothing the user did not name. An address receives only
// where the user's words name no receiver of their own (no destination address, channel, handle
// or name, and for an address no address of anyone's): one they name is who receives, and a
// record's other people are beside it. A name or
// channel, where they name none of its shape ("Add Charlie to the External channel": the channel
// external_0 is no neighbour of Charlie; Bob would be).
function recipientFromRecord(intent: usize, kind: u32, p: usize, len: u32): u32 {
  // An address the user wrote themselves ("the email from alice@corp.com") is theirs in any
  // record that holds it, however the record was found: its bytes are the user's, not the writer's.
  const own = kind == DERIVED + SUBJ_EMAIL ? findHashed(intent, SUBJ_EMAIL, p, len, fnv1a(p, len)) : 0;
  const wrote = own != 0 && (load<u32>(own + 12) & A_GRANTS) != 0;
  // An account number is where money goes: only the user's own account gives one, as for objects
  // (an invoice read by the number the user named holds its writer's account, not the user's).
  const from = kind == DERIVED + SUBJ_EMAIL ? (wrote ? A_RECORD : A_OWN_RECORD) : isIban(p, len) ? A_OWN_RECORD : A_OWN_RECORD | A_DEST_ENTRY;
  if (!inRecords(intent, kind, p, len, from)) return NO;
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let off: u32 = 0;
  while (off < bytes) {
    const item = items + <usize>off;
    off += recSize(item);
    const k = load<u32>(item);
    if (k != SUBJ_EMAIL && k != SUBJ_RECIPIENT && k != NAME) continue;
    const a = load<u32>(item + 12);
    const l = load<u32>(item + 8);
    if ((a & (A_DEST | A_DEST_MAYBE)) != 0 && (kind == DERIVED + SUBJ_EMAIL || sameShape(item + ITEM_HEAD, l, p, len))) return NO;
    if (vetoes(a) && l == len && sameBytes(item + ITEM_HEAD, p, len)) return NO;
    // An address the user wrote in any role ("the email from alice@corp.com") says who the
    // person is: the record's other addresses (its Reply-To, its Cc, a line of its body) are
    // others beside them, written by whoever wrote the record; the address itself is theirs.
    if (kind == DERIVED + SUBJ_EMAIL && k == SUBJ_EMAIL && (a & A_GRANTS) != 0 && !(l == len && sameBytes(item + ITEM_HEAD, p, len))) return NO;
  }
  return YES;
}

// Whether an object the user named holds value [p, p+len) as whole words ("Yusuf" of "Yusuf
// Rossi"): what a read may be asked by (§7.1), never what a change acts on.
export function intentObjectWithin(intent: usize, p: usize, len: u32): bool {
  if (intent == 0 || len == 0) return false;
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let off: u32 = 0;
  while (off < bytes) {
    const item = items + <usize>off;
    off += recSize(item);
    const l = load<u32>(item + 8);
    if (load<u32>(item) != SUBJ_OBJECT || (load<u32>(item + 12) & A_GRANTS) == 0 || l <= len) continue;
    const v = item + ITEM_HEAD;
    for (let i: u32 = 0; i + len <= l; i++) {
      if ((i == 0 || load<u8>(v + i - 1) == 0x20) && (i + len == l || load<u8>(v + i + len) == 0x20) && sameBytes(v + i, p, len)) return true;
    }
  }
  return false;
}

// Whether two values have one shape: the same runs of letters, of digits (of the same length)
// and of other bytes, in order ("#w123" and "#w456"; not "#w123" and "123", nor "12" and "1234").
function sameShape(a: usize, al: u32, b: usize, bl: u32): bool {
  let i: u32 = 0, j: u32 = 0;
  while (i < al && j < bl) {
    const ca = shapeOf(load<u8>(a + i)), cb = shapeOf(load<u8>(b + j));
    if (ca != cb) return false;
    let ni = i + 1, nj = j + 1;
    if (ca != 0) {
      while (ni < al && shapeOf(load<u8>(a + ni)) == ca) ni++;
      while (nj < bl && shapeOf(load<u8>(b + nj)) == cb) nj++;
      if (ca == 2 && ni - i != nj - j) return false;
    } else if (load<u8>(a + i) != load<u8>(b + j)) return false;
    i = ni;
    j = nj;
  }
  return i == al && j == bl;
}

// Whether [p, p+len) holds a digit: an id or a number is one of a series ("#W123", "#W456"); a
// value of words (a person's name, a city, a cabin) is no neighbour of another word.
function hasDigit(p: usize, len: u32): bool {
  for (let i: u32 = 0; i < len; i++) if (load<u8>(p + i) - 0x30 < 10) return true;
  return false;
}

// 1 a letter (any byte of a multibyte character too), 2 a digit, 0 anything else.
@inline function shapeOf(c: u32): u32 {
  if (c - 0x30 < 10) return 2;
  return (c | 0x20) - 0x61 < 26 || c >= 0x80 ? 1 : 0;
}

// AMOUNT (§7.4): at most a sum the user named in the same currency (maybe when one of the two
// gives no currency).
function amountNamed(intent: usize, base: u32, p: usize, len: u32): u32 {
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let r = NO;
  let off: u32 = 0;
  // A sum the user ruled out ("it's 200 EUR, not 300") is no sum of the request, whatever an
  // earlier turn said: the same number, in the same currency or where one of the two gives none.
  if (flavorNow != INTENT_RULED_OUT) {
    while (off < bytes) {
      const rec = items + <usize>off;
      off += recSize(rec);
      if (load<u32>(rec) != base + SUBJ_AMOUNT || !vetoes(load<u32>(rec + 12))) continue;
      const v = rec + ITEM_HEAD, l = load<u32>(rec + 8);
      if (amountWithin(p, len, v, l) != NO && amountWithin(v, l, p, len) != NO) return NO;
    }
    off = 0;
  }
  while (off < bytes && r != YES) {
    const rec = items + <usize>off;
    const l = load<u32>(rec + 8);
    off += recSize(rec);
    if (load<u32>(rec) != base + SUBJ_AMOUNT) continue;
    const a = reading(load<u32>(rec + 12), flavorNow);
    if (a == NO) continue;
    const w = amountWithin(p, len, rec + ITEM_HEAD, l);
    r = either(r, w == YES ? a : w == MAYBE ? MAYBE : NO);
  }
  if (r == YES || base != 0 || flavorNow == INTENT_EXACT || flavorNow == INTENT_RULED_OUT) return r;
  // A sum read from the task's own records (the price of the item the user named, §7.1) when the
  // user's words name no sum of their own: one they name is the bound.
  off = 0;
  let record = NO;
  while (off < bytes) {
    const rec = items + <usize>off;
    const l = load<u32>(rec + 8);
    off += recSize(rec);
    const kind = load<u32>(rec);
    if (kind == SUBJ_AMOUNT && (load<u32>(rec + 12) & A_GRANTS) != 0) return r;
    if (record != YES && kind == DERIVED + SUBJ_AMOUNT && (load<u32>(rec + 12) & A_RECORD) != 0 &&
        amountWithin(p, len, rec + ITEM_HEAD, l) == YES) record = YES;
  }
  return either(r, record);
}

// §7's matching over the named items (base 0) or the derived ones (base DERIVED), under the
// reading flavorNow: whether value [p, p+len) of `subject` (a call's normalized target, or an
// ARG leaf's text) is granted.
function has(intent: usize, base: u32, subject: u32, p: usize, len: u32): u32 {
  if (intent == 0 || len == 0) return NO;
  switch (subject) {
    case SUBJ_EMAIL: {
      const r = findItem(intent, base + SUBJ_EMAIL, p, len);
      return r == YES || vetoed || base != 0 ? r : either(r, recipientFromRecord(intent, DERIVED + SUBJ_EMAIL, p, len));
    }
    case SUBJ_DOMAIN: return domainNamed(intent, base, p, len);
    case SUBJ_URL: {
      const self = findItem(intent, base + SUBJ_URL, p, len);
      if (vetoed || flavorNow == INTENT_EXACT) return self;
      const exact = either(self, urlPrefixNamed(intent, base, p, len));
      if (exact == YES) return exact;
      // A host found in output opens only its bare front page: a path, query or userinfo
      // the model adds could carry data out to a host an injection chose.
      if (base == DERIVED && !urlIsBareHost(p, len)) return exact;
      if (urlVetoed) return exact;
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
    case SUBJ_RECIPIENT: {
      const r = recipientNamed(intent, base, p, len);
      if (r == YES || base != 0) return r;
      const o = objectNormal(p, len);
      if (o == 0) return r;
      return either(r, either(recipientFromRecord(intent, DERIVED + SUBJ_EMAIL, spanPtr(o), spanLen(o)),
        recipientFromRecord(intent, DERIVED + SUBJ_OBJECT, spanPtr(o), spanLen(o))));
    }
    case SUBJ_OBJECT: {
      plainWords = true;
      const r = objectNamed(intent, base, p, len);
      plainWords = false;
      return r == YES || base != 0 ? r : either(r, objectFromRecord(intent, p, len));
    }
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

// Whether the user's own words name value [p, p+len) as a recipient, where a plain request goes
// (the destination reading of their items only: never a record's).
export function intentNamesRecipient(intent: usize, p: usize, len: u32): bool {
  if (intent == 0 || len == 0) return false;
  flavorNow = INTENT_DESTINATION;
  return recipientNamed(intent, 0, p, len) == YES;
}

// Whether the user's own words name object value [p, p+len) (§7.4's OBJECT reading, named, of
// their items and clauses only: never a record's).
export function intentNamesObject(intent: usize, p: usize, len: u32): bool {
  if (intent == 0 || len == 0) return false;
  flavorNow = INTENT_NAMED;
  return objectNamed(intent, 0, p, len) == YES;
}

// Whether a word of object value [p, p+len) of at least four bytes stands as a word in a clause of
// the user's own (TEXT and WORDS items): "coffee" of "coffee maker" in "modify the coffee machine".
export function intentSharesWord(intent: usize, p: usize, len: u32): bool {
  if (intent == 0) return false;
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let i: u32 = 0;
  while (i < len) {
    let j = i;
    while (j < len && load<u8>(p + j) != 0x20) j++;
    if (j - i >= 4) {
      let off: u32 = 0;
      while (off < bytes) {
        const item = items + <usize>off;
        off += recSize(item);
        const kind = load<u32>(item);
        if ((kind != TEXT && kind != WORDS) || vetoes(load<u32>(item + 12))) continue;
        const t = item + ITEM_HEAD, l = load<u32>(item + 8);
        for (let k: u32 = 1; k + (j - i) < l; k++) {
          if (load<u8>(t + k - 1) == 0x20 && load<u8>(t + k + j - i) == 0x20 && sameBytes(t + k, p + i, j - i)) return true;
        }
      }
    }
    i = j + 1;
  }
  return false;
}

// Whether the value was derived from the output of a call the user pointed at (§7.1, TEST_IN_DERIVED).
export function intentDerivedHas(intent: usize, subject: u32, p: usize, len: u32): bool {
  flavorNow = DERIVED_READING;
  return has(intent, DERIVED, subject, p, len) != NO;
}
