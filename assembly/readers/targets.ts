// Argument values to normalized targets (docs/bytecode.md §5.2, §6): what the core asks of the
// text modules for each call. Per call: targetsBegin, setWorkdir (the WORKDIR role, before the
// other roles), extractTargets per role value, then the table's accessors.
import {
  ROLE_EMAIL, ROLE_URL, ROLE_DOMAIN, ROLE_PATH, ROLE_COMMAND, ROLE_CODE, ROLE_RECIPIENT, ROLE_PATCH,
  ROLE_WORKDIR, ROLE_TEXT, ROLE_WRITTEN, ROLE_OBJECT, ROLE_TREE, ROLE_AMOUNT, ROLE_AMOUNT_MINOR, ROLE_MEMBERS, ROLE_HEADING, SUBJ_EMAIL, SUBJ_URL, SUBJ_DOMAIN,
  SUBJ_RECIPIENT, SUBJ_OBJECT, SUBJ_AMOUNT, SUBJ_OPAQUE, TARGET_PATTERN,
  SET_SHELL_WRAPPERS, SET_SHELL_NETWORK, SET_SHELL_SHELLS, SET_MAX_SHELL_DEPTH, SET_SHELL_PROGRAMS,
} from "../../bytecode/format";
import { settingValue, intentExtensionSet } from "../policy/decode";
import { scratchAlloc } from "../abi/mem";
import { lowerAscii, isSpace, isAsciiAlpha, equalsAsciiFold, bytesEqual, sameBytes, indexOfByte } from "../abi/bytes";
import { objectNormal, numberObject } from "../intent/objects";
import { jsonDecimal, textNumber, textNumberEnd, currencyOf, currencySymbolAt, symbolLen, minorDigits, amountText } from "./amount";
import { leafPath, leafPathLen, leafValue, leafValueLen, leafIsString } from "./json";
import { policyWords } from "./wordset";
import { span, spanPtr, spanLen, resolvePath, normalizeEmail, isAddress, takeOutOfMemory } from "./normalize";
import {
  TARGETS_OOM, tableBegin, tableStatus, fail, addTarget, addTargetCopy, addPath, addHost, addUrl, pathBase, addWrittenIn, addTreeIn,
  addMemberPatterns, targetCount as tableCount,
  setWorkdir as setTableWorkdir,
} from "./targettable";
import { shellTargets } from "./shell/shell";
import { findUrl, urlEnd, itemsBegin, nextItem, itemStart, itemEnd as itemEndAt, itemNext } from "./scan";
import { readRecipientList, listAddresses } from "./addresslist";
import { decodeMarkup, decodedPtr, stripTags, nextAuthority, authorityEnd } from "./markup";
import { v4aBegin, v4aNext, foundStart, foundEnd, nextFrom } from "./v4a";

export { configureEnv, homePtr, homeLen } from "./normalize";
export {
  targetCount, targetKind, targetIsPattern, targetIsTree, targetEntryKind, targetPtr, targetLen, hasTargetOf,
} from "./targettable";

export function tableStatusNow(): i32 {
  return tableStatus();
}

export function targetsBegin(maxTargets: u32): void {
  tableBegin(maxTargets);
}

export function setWorkdir(p: usize, len: u32): void {
  setTableWorkdir(p, len);
}

// The absolute normal form of a path value of this call (against its workdir, else the
// configured working directory), in scratch; 0 on failure.
export function normalizePath(p: usize, len: u32): u64 {
  const base = pathBase();
  return resolvePath(p, len, spanPtr(base), spanLen(base));
}

// Where the list item that starts at `from` ends: the next ',' or ';' outside double quotes
// and angle brackets ("Smith, Bob" <bob@x.com> is one item).
function itemEnd(p: usize, len: u32, from: u32): u32 {
  let quoted = false;
  let angle = false;
  for (let i = from; i < len; i++) {
    const c = <u32>load<u8>(p + i);
    if (quoted) {
      if (c == 0x5c) i++;
      else if (c == 0x22) quoted = false;
    } else if (c == 0x22) quoted = true;
    else if (c == 0x3c) angle = true;
    else if (c == 0x3e) angle = false;
    else if (!angle && (c == 0x2c || c == 0x3b)) return i;
  }
  return len;
}

function addEmail(p: usize, len: u32): void {
  const e = normalizeEmail(p, len);
  if (takeOutOfMemory()) fail(TARGETS_OOM);
  else if (e != 0) addTarget(SUBJ_EMAIL, spanPtr(e), spanLen(e));
}

function addAddressDomain(p: usize, len: u32): void {
  const e = normalizeEmail(p, len);
  if (takeOutOfMemory()) { fail(TARGETS_OOM); return; }
  if (e == 0) return;
  const a = spanPtr(e), n = spanLen(e);
  let at: u32 = n;
  while (at > 0 && load<u8>(a + at - 1) != 0x40) at--;
  if (at > 0 && at < n) addHost(a + at, n - at);
}

// A recipient: an address is both an EMAIL and a RECIPIENT (in its normal form); anything
// else (a channel, a handle, "platform:target") a RECIPIENT, trimmed and lower-cased.
function addRecipient(p: usize, len: u32): void {
  const e = normalizeEmail(p, len);
  if (takeOutOfMemory()) { fail(TARGETS_OOM); return; }
  if (e != 0 && isAddress(spanPtr(e), spanLen(e))) {
    addTarget(SUBJ_EMAIL, spanPtr(e), spanLen(e));
    addTarget(SUBJ_RECIPIENT, spanPtr(e), spanLen(e));
    return;
  }
  let s: u32 = 0;
  let t = len;
  while (s < t && isSpace(load<u8>(p + s))) s++;
  while (t > s && isSpace(load<u8>(p + t - 1))) t--;
  if (t == s) return;
  const out = scratchAlloc(<usize>(t - s));
  if (out == 0) { fail(TARGETS_OOM); return; }
  for (let i = s; i < t; i++) store<u8>(out + i - s, <u8>lowerAscii(load<u8>(p + i)));
  addTarget(SUBJ_RECIPIENT, out, t - s);
}

function eachListItem(p: usize, len: u32, recipients: bool): void {
  let from: u32 = 0;
  while (from <= len && tableStatus() == 0) {
    const end = itemEnd(p, len, from);
    if (recipients) addRecipient(p + from, end - from);
    else addEmail(p + from, end - from);
    from = end + 1;
  }
}

// A recipient list as the mail stack reads it (addresslist.ts); one that is not well formed is
// OPAQUE, and its items are also read as they are written (`bob@x@y` is no address of bob's).
function mailList(p: usize, len: u32, recipients: bool): void {
  if (readRecipientList(p, len, recipients)) return;
  addTargetCopy(SUBJ_OPAQUE, p, len);
  eachListItem(p, len, recipients);
}

const EMAIL_PLATFORM: usize = memory.data<u8>([0x65, 0x6d, 0x61, 0x69, 0x6c]); // "email"

// A RECIPIENT value: `email:LIST` (send_message's e-mail target, which Hermes hands to the mail
// stack as a To header) and a value that holds an address (an '@' inside a word, or a '<') are
// recipient lists; another `platform:target`, a channel or a handle is a recipient as written.
function recipientTargets(p: usize, len: u32): void {
  let s: u32 = 0;
  while (s < len && isSpace(load<u8>(p + s))) s++;
  let i = s;
  while (i < len && isAsciiAlpha(load<u8>(p + i))) i++;
  let c = i;
  while (c < len && isSpace(load<u8>(p + c))) c++; // Hermes strips the platform's name
  if (i > s && c < len && load<u8>(p + c) == 0x3a) {
    if (i - s == 5 && equalsAsciiFold(p + s, EMAIL_PLATFORM, 5)) { mailList(p + c + 1, len - c - 1, true); return; }
    if (c + 1 < len && !isSpace(load<u8>(p + c + 1))) { eachListItem(p, len, true); return; }
  }
  for (let k = s + 1; k < len; k++) {
    const b = <u32>load<u8>(p + k);
    const prev = <u32>load<u8>(p + k - 1);
    if (b == 0x3c || (b == 0x40 && !isSpace(prev) && prev != 0x2c && prev != 0x3b)) { mailList(p, len, true); return; }
  }
  eachListItem(p, len, true);
}

function codeUrls(p: usize, len: u32): void {
  let from: u32 = 0;
  while (from < len && tableStatus() == 0) {
    const u = findUrl(p, len, from);
    if (u < 0) return;
    addUrl(p + <u32>u, urlEnd - <u32>u);
    from = urlEnd;
  }
}

// A word of prose that names a local file a message carries: `MEDIA:PATH` (Hermes attaches the
// file; the path may be quoted or follow white space) or an absolute or `~/` path, which Hermes'
// gateway also delivers as an attachment. Returns the index after what it read.
function localFileAt(p: usize, len: u32, i: u32): u32 {
  let s = i;
  if (len - i >= 6 && equalsAsciiFold(p + i, MEDIA_TAG, 6)) {
    s = i + 6;
    while (s < len && isSpace(load<u8>(p + s))) s++;
    const q = s < len ? <u32>load<u8>(p + s) : 0;
    if (q == 0x22 || q == 0x27 || q == 0x60) {
      let e = s + 1;
      while (e < len && <u32>load<u8>(p + e) != q && load<u8>(p + e) != 0x0a) e++;
      addPath(p + s + 1, e - s - 1);
      return e;
    }
  } else if (!(load<u8>(p + i) == 0x2f || (load<u8>(p + i) == 0x7e && i + 1 < len && load<u8>(p + i + 1) == 0x2f))) {
    return i + 1;
  } else if (i > 0 && !isSpace(load<u8>(p + i - 1)) && !isOpening(load<u8>(p + i - 1))) {
    return i + 1; // inside a word: a URL's path, "and/or"
  }
  let e = s;
  while (e < len && !isSpace(load<u8>(p + e)) && !isClosing(load<u8>(p + e))) e++;
  while (e > s && isTrailingPunctuation(load<u8>(p + e - 1))) e--;
  if (e > s) addPath(p + s, e - s);
  return max(e, i + 1);
}

const MEDIA_TAG: usize = memory.data<u8>([0x6d, 0x65, 0x64, 0x69, 0x61, 0x3a]); // "media:"

function isOpening(c: u32): bool {
  return c == 0x28 || c == 0x5b || c == 0x7b || c == 0x22 || c == 0x27 || c == 0x60 || c == 0x3c;
}

function isClosing(c: u32): bool {
  return c == 0x29 || c == 0x5d || c == 0x7d || c == 0x22 || c == 0x27 || c == 0x60 || c == 0x3e;
}

function isTrailingPunctuation(c: u32): bool {
  return c == 0x2e || c == 0x2c || c == 0x3b || c == 0x3a || c == 0x21 || c == 0x3f;
}

function localFiles(p: usize, len: u32): void {
  let i: u32 = 0;
  while (i < len && tableStatus() == 0) {
    const c = load<u8>(p + i);
    i = c == 0x2f || c == 0x7e || c == 0x4d || c == 0x6d ? localFileAt(p, len, i) : i + 1;
  }
}

// Prose a person will read (a message body): the addresses, URLs and bare domains in it, found
// the way the intent binder finds them in the user's own message (§7), the local files it
// attaches, and the hosts its client fetches from when it renders it (markup.ts). Markup (a
// '<' or '&') is read again with its character references decoded, then its tags taken out.
function textTargets(p: usize, len: u32, body: bool): void {
  prose(p, len, body);
  if (indexOfByte(p, len, 0x3c, 0) < 0 && indexOfByte(p, len, 0x26, 0) < 0) { fetchedHosts(p, len); return; }
  const j = decodeMarkup(p, len, true);
  fetchedHosts(decodedPtr(), j);
  const n = decodeMarkup(p, len, false);
  const d = decodedPtr();
  if (d == 0) { fail(TARGETS_OOM); return; }
  fetchedHosts(d, n);
  const m = stripTags(d, n);
  fetchedHosts(d, m);
  prose(d, m, body);
}

// The host of each authority a browser would fetch from (markup.ts); one that is not ASCII is
// also OPAQUE: the browser's IDNA mapping may make it another host ("ｅvil.com" is evil.com).
function fetchedHosts(p: usize, len: u32): void {
  let from: u32 = 0;
  while (tableStatus() == 0) {
    const s = nextAuthority(p, len, from);
    if (s < 0) return;
    from = authorityEnd;
    addHost(p + <u32>s, from - <u32>s);
    for (let k = <u32>s; k < from; k++) {
      if (load<u8>(p + k) >= 0x80) { addTargetCopy(SUBJ_OPAQUE, p + <u32>s, from - <u32>s); break; }
    }
  }
}

// In a message's body (`body`) an address receives nothing: it is a pointer, read as its domain;
// in a string no role names it may be a recipient list, so it stays an address.
function prose(p: usize, len: u32, body: bool): void {
  localFiles(p, len);
  const extensions = policyWords(intentExtensionSet());
  itemsBegin();
  let from: u32 = 0;
  while (tableStatus() == 0) {
    const kind = nextItem(p, len, from, extensions);
    if (kind == 0) return;
    from = itemNext;
    const s = p + itemStart, n = itemEndAt - itemStart;
    if (kind == SUBJ_EMAIL && body) addAddressDomain(s, n);
    else if (kind == SUBJ_EMAIL) addEmail(s, n);
    else if (kind == SUBJ_URL) addUrl(s, n);
    else if (kind == SUBJ_DOMAIN) addHost(s, n);
  }
}

// The object of an action (a hotel, a repository, an account) in the normal form of §6.8.
export function addObject(p: usize, len: u32): void {
  const s = objectNormal(p, len);
  if (takeOutOfMemory()) fail(TARGETS_OOM);
  else if (s != 0) addTarget(SUBJ_OBJECT, spanPtr(s), spanLen(s));
}

// A number an argument with the OBJECT role holds (a JSON number): its canonical decimal.
export function addNumberObject(p: usize, len: u32): void {
  const s = numberObject(p, len);
  if (takeOutOfMemory()) fail(TARGETS_OOM);
  else addTarget(SUBJ_OBJECT, spanPtr(s), spanLen(s));
}

// ---- sums (§5.2 AMOUNT, AMOUNT_MINOR) ----

// The currencies among a call's AMOUNT-role leaves: (parent path ptr, parent path len, code ptr).
const CURRENCIES_MAX: u32 = 32;
const currencies: usize = memory.data(CURRENCIES_MAX * 12);
let currencyCount: u32 = 0;
let tooManyCurrencies = false;

// The dotted path's parent: its length up to the last '.' (0: the top level).
export function parentLen(p: usize, len: u32): u32 {
  let k = len;
  while (k > 0 && load<u8>(p + k - 1) != 0x2e) k--;
  return k > 0 ? k - 1 : 0;
}

function noteCurrency(path: usize, pathLen: u32, code: usize): void {
  const parent = parentLen(path, pathLen);
  for (let k: u32 = 0; k < currencyCount; k++) {
    const e = currencies + <usize>k * 12;
    if (bytesEqual(<usize>load<u32>(e), load<u32>(e + 4), path, parent) && sameBytes(<usize>load<u32>(e + 8), code, 3)) return;
  }
  if (currencyCount == CURRENCIES_MAX) { tooManyCurrencies = true; return; }
  const copy = scratchAlloc(3);
  if (copy == 0) { fail(TARGETS_OOM); return; }
  memory.copy(copy, code, 3);
  const e = currencies + <usize>currencyCount * 12;
  store<u32>(e, <u32>path);
  store<u32>(e + 4, parent);
  store<u32>(e + 8, <u32>copy);
  currencyCount++;
}

// The sum a string reads as: a number as prose writes it ("200", "1,250.50", "19.9"), with a
// currency symbol or code before or after it ("200 EUR", "EUR 200", "€200", "200 €"); its
// decimal (0: none) and its own currency in stringCode (0: none).
let stringCode: usize = 0;
function stringSum(p: usize, len: u32): u64 {
  let s: u32 = 0, t = len;
  while (s < t && isSpace(load<u8>(p + s))) s++;
  while (t > s && isSpace(load<u8>(p + t - 1))) t--;
  stringCode = 0;
  if (t == s) return 0;
  // A currency before the number: a symbol, or a code and a space.
  let code = currencySymbolAt(p, t, s);
  if (code != 0) s += symbolLen;
  else if (t - s > 4 && isSpace(load<u8>(p + s + 3)) && currencyOf(p + s, 3) != 0) { code = currencyOf(p + s, 3); s += 4; }
  while (s < t && isSpace(load<u8>(p + s))) s++;
  const d = textNumber(p, t, s);
  if (d == 0) return 0;
  let e = textNumberEnd;
  while (e < t && isSpace(load<u8>(p + e))) e++;
  // Or after it: a symbol, or a code.
  if (code == 0 && e < t) {
    code = currencyOf(p + e, t - e);
    e = code != 0 ? t : e;
  }
  if (e != t) return 0;
  if (code != 0) {
    stringCode = scratchAlloc(3);
    if (stringCode == 0) return 0;
    memory.copy(stringCode, code, 3);
  }
  return d;
}

const ANY: usize = memory.data<u8>([0x2a]); // "*": a sum the fence could not read

function addSum(decimal: u64, code: usize, minor: bool): void {
  let d = decimal;
  if (minor) {
    // Shift the point left by the currency's minor digits. With no currency the unit is not
    // known (a cent, a yen, a fils): the sum is not read.
    d = code == 0 ? 0 : jsonDecimal(<usize>(d >>> 32), <u32>d, -minorDigits(code), false);
    if (d == 0) {
      addTargetCopy(SUBJ_OPAQUE, <usize>(decimal >>> 32), <u32>decimal);
      addTarget(SUBJ_AMOUNT | TARGET_PATTERN, ANY, 1);
      return;
    }
  }
  const s = amountText(d, code);
  if (s == 0) { fail(TARGETS_OOM); return; }
  addTarget(SUBJ_AMOUNT, spanPtr(s), spanLen(s));
}

// The call's sums: each number among the leaves with an AMOUNT or AMOUNT_MINOR role (a JSON
// number, or a string that reads as a sum) in the currency of the object it is in (a
// currency leaf with the same parent path, else with the nearest enclosing one: one sum per
// currency found), unless the string names its own. A string that reads as neither a sum nor
// a currency is not read: an OPAQUE target, and the AMOUNT pattern "*"; so is every sum when
// the call holds more than CURRENCIES_MAX currencies.
export function amountTargets(roles: usize, n: u32): void {
  currencyCount = 0;
  tooManyCurrencies = false;
  for (let i: u32 = 0; i < n; i++) {
    const role = <u32>load<u8>(roles + i);
    if ((role != ROLE_AMOUNT && role != ROLE_AMOUNT_MINOR) || !leafIsString(i)) continue;
    const code = currencyOf(leafValue(i), leafValueLen(i));
    if (code != 0) noteCurrency(leafPath(i), leafPathLen(i), code);
  }
  for (let i: u32 = 0; i < n && tableStatus() == 0; i++) {
    const role = <u32>load<u8>(roles + i);
    if (role != ROLE_AMOUNT && role != ROLE_AMOUNT_MINOR) continue;
    const p = leafValue(i), len = leafValueLen(i);
    const minor = role == ROLE_AMOUNT_MINOR;
    let d: u64 = 0;
    stringCode = 0;
    if (leafIsString(i)) {
      if (currencyOf(p, len) != 0) continue; // a currency, not a sum
      d = stringSum(p, len);
      if (d == 0) {
        addTargetCopy(SUBJ_OPAQUE, p, len);
        addTarget(SUBJ_AMOUNT | TARGET_PATTERN, ANY, 1);
        continue;
      }
    } else {
      const c = <u32>load<u8>(p);
      if (c == 0x74 || c == 0x66 || c == 0x6e) continue; // true, false, null
      d = jsonDecimal(p, len, 0, false);
      if (d == 0) { // a negative sum: not read
        addTargetCopy(SUBJ_OPAQUE, p, len);
        addTarget(SUBJ_AMOUNT | TARGET_PATTERN, ANY, 1);
        continue;
      }
    }
    if (tooManyCurrencies) { addTarget(SUBJ_AMOUNT | TARGET_PATTERN, ANY, 1); continue; }
    if (stringCode != 0) { addSum(d, stringCode, minor); continue; }
    // The currencies of the nearest enclosing object that has any.
    const path = leafPath(i);
    let parent = parentLen(path, leafPathLen(i));
    let found = false;
    while (true) {
      for (let k: u32 = 0; k < currencyCount; k++) {
        const e = currencies + <usize>k * 12;
        if (!bytesEqual(<usize>load<u32>(e), load<u32>(e + 4), path, parent)) continue;
        addSum(d, <usize>load<u32>(e + 8), minor);
        found = true;
      }
      if (found || parent == 0) break;
      parent = parentLen(path, parent);
    }
    if (!found) addSum(d, 0, minor);
  }
}

// A string no role names is read by its own shape (§5.2): an address, a URL, an absolute or
// `~/` path as the whole value, and the addresses, URLs and local files in longer text.
function shapeTargets(p: usize, len: u32): void {
  let s: u32 = 0;
  let t = len;
  while (s < t && isSpace(load<u8>(p + s))) s++;
  while (t > s && isSpace(load<u8>(p + t - 1))) t--;
  if (t == s) return;
  // With a '<' it may be a list of addresses (a header's value): each one the mail stack reads.
  if (indexOfByte(p, t, 0x3c, s) >= 0) {
    listAddresses(p + s, t - s, false);
  } else {
    const e = normalizeEmail(p + s, t - s);
    if (takeOutOfMemory()) { fail(TARGETS_OOM); return; }
    if (e != 0 && isAddress(spanPtr(e), spanLen(e))) {
      addTarget(SUBJ_EMAIL, spanPtr(e), spanLen(e));
      return;
    }
  }
  textTargets(p + s, t - s, false);
}

// The files below the call's trees that a MEMBERS glob names (§5.2), and below the working
// directory when the call names no tree (search_files searches "." by default). Run after
// every other role, so every tree is in the table.
export function memberTargets(roles: usize, n: u32): void {
  const trees = tableCount();
  for (let i: u32 = 0; i < n && tableStatus() == 0; i++) {
    if (<u32>load<u8>(roles + i) != ROLE_MEMBERS || !leafIsString(i)) continue;
    if (addMemberPatterns(0, leafValue(i), leafValueLen(i))) continue;
    const from = tableCount();
    addTreeIn(DOT, 1, pathBase(), false);
    addMemberPatterns(from, leafValue(i), leafValueLen(i));
  }
}

const DOT: usize = memory.data<u8>([0x2e]);

// A URL argument's value, or a local file when it has no scheme and starts like a path (`/`,
// `~`, `.`; not `//host`): vision_analyze and the browser tools take both.
function urlOrFile(p: usize, len: u32): void {
  let s: u32 = 0;
  while (s < len && isSpace(load<u8>(p + s))) s++;
  const c = s < len ? <u32>load<u8>(p + s) : 0;
  const local = c == 0x7e || c == 0x2e || (c == 0x2f && !(s + 1 < len && load<u8>(p + s + 1) == 0x2f));
  if (local) addPath(p + s, len - s);
  else addUrl(p, len);
}

function patchPaths(p: usize, len: u32): void {
  v4aBegin();
  let from: u32 = 0;
  while (tableStatus() == 0 && v4aNext(p, len, from)) {
    addWrittenIn(p + foundStart, foundEnd - foundStart, pathBase()); // added, updated, deleted or moved
    from = nextFrom;
  }
}

// Adds the targets that one string value of an argument with `role` makes. Returns 0, or
// 2 (TARGETS_LIMIT: more than maxTargets, or shell strings nested deeper than
// MAX_SHELL_DEPTH), or 3 (TARGETS_OOM); a failure sticks until targetsBegin.
export function extractTargets(role: u32, p: usize, len: u32): i32 {
  switch (role) {
    case ROLE_EMAIL: mailList(p, len, false); break;
    case ROLE_URL: urlOrFile(p, len); break;
    case ROLE_DOMAIN: addHost(p, len); break;
    case ROLE_PATH: addPath(p, len); break;
    case ROLE_COMMAND:
      shellTargets(p, len, policyWords(settingValue(SET_SHELL_WRAPPERS)),
        policyWords(settingValue(SET_SHELL_NETWORK)), policyWords(settingValue(SET_SHELL_SHELLS)),
        policyWords(intentExtensionSet()), settingValue(SET_SHELL_PROGRAMS), settingValue(SET_MAX_SHELL_DEPTH));
      break;
    case ROLE_CODE: codeUrls(p, len); break;
    case ROLE_RECIPIENT: recipientTargets(p, len); break;
    case ROLE_PATCH: patchPaths(p, len); break;
    case ROLE_WORKDIR: setWorkdir(p, len); break;
    case ROLE_TEXT: case ROLE_HEADING: textTargets(p, len, true); break;
    case ROLE_WRITTEN: addWrittenIn(p, len, pathBase()); break;
    case ROLE_OBJECT: // an object, and still whatever its shape says (a path, an address)
      addObject(p, len);
      shapeTargets(p, len);
      break;
    case ROLE_TREE: addTreeIn(p, len, pathBase(), false); break;
    case 0: shapeTargets(p, len); break; // no role (ROLE_DATA: none either, and no reading)
  }
  return tableStatus();
}
