// Argument values to normalized targets (docs/bytecode.md §5.2, §6): what the core asks of the
// text modules for each call. Per call: targetsBegin, setWorkdir (the WORKDIR role, before the
// other roles), extractTargets per role value, then the table's accessors.
import {
  ROLE_EMAIL, ROLE_URL, ROLE_DOMAIN, ROLE_PATH, ROLE_COMMAND, ROLE_CODE, ROLE_RECIPIENT, ROLE_PATCH,
  ROLE_WORKDIR, ROLE_TEXT, ROLE_WRITTEN, ROLE_OBJECT, ROLE_TREE, SUBJ_EMAIL, SUBJ_URL, SUBJ_DOMAIN, SUBJ_RECIPIENT, SUBJ_OBJECT,
  SET_SHELL_WRAPPERS, SET_SHELL_NETWORK, SET_SHELL_SHELLS, SET_MAX_SHELL_DEPTH,
} from "./format";
import { settingValue, intentExtensionSet } from "./decode";
import { scratchAlloc } from "./mem";
import { lowerAscii, isSpace, equalsAsciiFold } from "./bytes";
import { policyWords } from "./wordset";
import { spanPtr, spanLen, resolvePath, normalizeEmail, isAddress, takeOutOfMemory } from "./normalize";
import {
  TARGETS_OOM, tableBegin, tableStatus, fail, addTarget, addPath, addHost, addUrl, pathBase, addWrittenIn, addTreeIn,
  setWorkdir as setTableWorkdir,
} from "./targettable";
import { shellTargets } from "./shell";
import { findUrl, urlEnd, itemsBegin, nextItem, itemStart, itemEnd as itemEndAt, itemNext } from "./scan";
import { v4aBegin, v4aNext, foundStart, foundEnd, nextFrom } from "./v4a";

export { configureEnv, homePtr, homeLen } from "./normalize";
export {
  targetCount, targetKind, targetIsPattern, targetIsTree, targetEntryKind, targetPtr, targetLen, hasTargetOf,
} from "./targettable";

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
// the way the intent binder finds them in the user's own message (§7), and the local files it
// attaches.
function textTargets(p: usize, len: u32): void {
  localFiles(p, len);
  const extensions = policyWords(intentExtensionSet());
  itemsBegin();
  let from: u32 = 0;
  while (tableStatus() == 0) {
    const kind = nextItem(p, len, from, extensions);
    if (kind == 0) return;
    from = itemNext;
    const s = p + itemStart, n = itemEndAt - itemStart;
    if (kind == SUBJ_EMAIL) addEmail(s, n);
    else if (kind == SUBJ_URL) addUrl(s, n);
    else if (kind == SUBJ_DOMAIN) addHost(s, n);
  }
}

// The object of an action (a hotel, a repository, an account): trimmed, white space runs made
// one space, ASCII lower-cased (§6.8).
function addObject(p: usize, len: u32): void {
  let s: u32 = 0;
  let t = len;
  while (s < t && isSpace(load<u8>(p + s))) s++;
  while (t > s && isSpace(load<u8>(p + t - 1))) t--;
  if (t == s) return;
  const out = scratchAlloc(<usize>(t - s));
  if (out == 0) { fail(TARGETS_OOM); return; }
  let n: u32 = 0;
  let space = false;
  for (let i = s; i < t; i++) {
    const c = <u32>load<u8>(p + i);
    if (isSpace(c)) { space = true; continue; }
    if (space) { store<u8>(out + n, 0x20); n++; space = false; }
    store<u8>(out + n, <u8>lowerAscii(c));
    n++;
  }
  addTarget(SUBJ_OBJECT, out, n);
}

// A string no role names is read by its own shape (§5.2): an address, a URL, an absolute or
// `~/` path as the whole value, and the addresses, URLs and local files in longer text.
function shapeTargets(p: usize, len: u32): void {
  let s: u32 = 0;
  let t = len;
  while (s < t && isSpace(load<u8>(p + s))) s++;
  while (t > s && isSpace(load<u8>(p + t - 1))) t--;
  if (t == s) return;
  const e = normalizeEmail(p + s, t - s);
  if (takeOutOfMemory()) { fail(TARGETS_OOM); return; }
  if (e != 0 && isAddress(spanPtr(e), spanLen(e))) {
    addTarget(SUBJ_EMAIL, spanPtr(e), spanLen(e));
    return;
  }
  textTargets(p + s, t - s);
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
    case ROLE_EMAIL: eachListItem(p, len, false); break;
    case ROLE_URL: addUrl(p, len); break;
    case ROLE_DOMAIN: addHost(p, len); break;
    case ROLE_PATH: addPath(p, len); break;
    case ROLE_COMMAND:
      shellTargets(p, len, policyWords(settingValue(SET_SHELL_WRAPPERS)),
        policyWords(settingValue(SET_SHELL_NETWORK)), policyWords(settingValue(SET_SHELL_SHELLS)),
        policyWords(intentExtensionSet()), settingValue(SET_MAX_SHELL_DEPTH));
      break;
    case ROLE_CODE: codeUrls(p, len); break;
    case ROLE_RECIPIENT: eachListItem(p, len, true); break;
    case ROLE_PATCH: patchPaths(p, len); break;
    case ROLE_WORKDIR: setWorkdir(p, len); break;
    case ROLE_TEXT: textTargets(p, len); break;
    case ROLE_WRITTEN: addWrittenIn(p, len, pathBase()); break;
    case ROLE_OBJECT: addObject(p, len); break;
    case ROLE_TREE: addTreeIn(p, len, pathBase(), false); break;
    case 0: shapeTargets(p, len); break; // no role (ROLE_DATA: none either, and no reading)
  }
  return tableStatus();
}
