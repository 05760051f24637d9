// Argument values to normalized targets (docs/bytecode.md §5.2, §6): what the core asks of the
// text modules for each call. Per call: targetsBegin, setWorkdir (the WORKDIR role, before the
// other roles), extractTargets per role value, then the table's accessors.
import {
  ROLE_EMAIL, ROLE_URL, ROLE_DOMAIN, ROLE_PATH, ROLE_COMMAND, ROLE_CODE, ROLE_RECIPIENT, ROLE_PATCH,
  ROLE_WORKDIR, ROLE_TEXT, SUBJ_EMAIL, SUBJ_URL, SUBJ_DOMAIN, SUBJ_RECIPIENT, SET_SHELL_WRAPPERS, SET_SHELL_NETWORK, SET_SHELL_SHELLS,
  SET_MAX_SHELL_DEPTH,
} from "./format";
import { settingValue, intentExtensionSet } from "./decode";
import { scratchAlloc } from "./mem";
import { lowerAscii, isSpace } from "./bytes";
import { policyWords } from "./wordset";
import { spanPtr, spanLen, resolvePath, normalizeEmail, isAddress, takeOutOfMemory } from "./normalize";
import {
  TARGETS_OOM, tableBegin, tableStatus, fail, addTarget, addPath, addHost, addUrl, pathBase,
  setWorkdir as setTableWorkdir,
} from "./targettable";
import { shellTargets } from "./shell";
import { findUrl, urlEnd, itemsBegin, nextItem, itemStart, itemEnd as itemEndAt, itemNext } from "./scan";
import { v4aBegin, v4aNext, foundStart, foundEnd, nextFrom } from "./v4a";

export { configureEnv, homePtr, homeLen } from "./normalize";
export { targetCount, targetKind, targetPtr, targetLen } from "./targettable";

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

// Prose a person will read (a message body): the addresses, URLs and bare domains in it, found
// the way the intent binder finds them in the user's own message (§7).
function textTargets(p: usize, len: u32): void {
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

function patchPaths(p: usize, len: u32): void {
  v4aBegin();
  let from: u32 = 0;
  while (tableStatus() == 0 && v4aNext(p, len, from)) {
    addPath(p + foundStart, foundEnd - foundStart);
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
  }
  return tableStatus();
}
