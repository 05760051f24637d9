// Which class a tool belongs to (docs/bytecode.md §3 CLASSIFY, docs/policy.md "classify"): the
// policy's tool map (exact names, then patterns in order); else, for a tool `describe` was told
// about, the class it inferred from all the evidence (the tool's own name first, then its
// description, schema and annotations, which can only raise it); else the words of the tool's
// own name alone; else class 0 (unknown). `describe` also learns an unmapped tool's parameter roles.
import {
  setFind, setMemberCount, listKey, listValue, strPtr, strLen, toolsExactSet, toolsGlobSet,
  toolClass, toolRoleStart, toolRoleCount, toolFlags, roleArgPath, roleKind, classifyWordSet,
  classifyEntryClass, classifyEntryFlags, classifyEntryCount, classifyRoleSet, intentActionToolSet,
} from "../policy/decode";
import { CLASSIFY_READ, CLASSIFY_CHOICES, CLASSIFY_CHOICE_HEADINGS, CLASSIFY_OBJECTS_CONTENT, CLASSIFY_CHOICE_CODES, ROLE_DATA } from "../../bytecode/format";
import { fnv1a, bytesEqual, lowerAscii, isAsciiAlpha, isAsciiDigit, indexOfByte, equalsAsciiFold, copyLower, sameBytes } from "../abi/bytes";
import { alloc, free, scratchAlloc } from "../abi/mem";
import { globMatch } from "../readers/glob";
import { listWords, hasWord } from "../readers/wordset";
import { Text, textPtr, textLen } from "../abi/out";
import { leafPath, leafPathLen } from "../readers/json";

// Returned by the word lookups when no scratch memory could be had.
export const WORDS_OOM: i32 = -2;

let mappedTool: i32 = -1; // the tool entry of the last classified name, -1 when none mapped it
let byName = false;       // the last classified name took the class its own words give
let lastLearned = false;  // the last classified name took the class `describe` inferred
let lastRoles: usize = 0; // the roles `describe` learned for the last classified name, 0 when none

// ---- words ----
@inline function isUpper(c: u32): bool {
  return c - 0x41 < 26;
}

@inline function isLower(c: u32): bool {
  return c - 0x61 < 26;
}

function isWordByte(c: u32): bool {
  return c >= 0x80 || isAsciiAlpha(c) || isAsciiDigit(c);
}

// Whether a camelCase word boundary falls before byte i ("sendEmail", "HTTPRequest"); an
// upper-case run's plural stays one word ("URLs", "IDs").
function camelBreak(p: usize, len: u32, i: u32): bool {
  const c = <u32>load<u8>(p + i);
  if (i == 0 || !isUpper(c)) return false;
  const prev = <u32>load<u8>(p + i - 1);
  if (isLower(prev) || isAsciiDigit(prev)) return true;
  if (!isUpper(prev) || i + 1 >= len || !isLower(<u32>load<u8>(p + i + 1))) return false;
  return load<u8>(p + i + 1) != 0x73 || (i + 2 < len && isLower(<u32>load<u8>(p + i + 2)));
}

// The words of [p, p+len): runs of letters, digits and non-ASCII bytes, also split at camelCase.
// nextWord(p, len, i) finds the first word at or after i: [wordStart, wordEnd), false when none.
export let wordStart: u32 = 0;
export let wordEnd: u32 = 0;
export function nextWord(p: usize, len: u32, i: u32): bool {
  while (i < len && !isWordByte(load<u8>(p + i))) i++;
  if (i >= len) return false;
  let j = i + 1;
  while (j < len && isWordByte(load<u8>(p + j)) && !camelBreak(p, len, j)) j++;
  wordStart = i;
  wordEnd = j;
  return true;
}

// The role CLASSIFY's role_map gives the last word of parameter name [p, p+len) (its head noun:
// "user_email" is an e-mail, "channel_name"'s "name" gives none), 0 when none, WORDS_OOM.
export function lastWordRole(p: usize, len: u32): i32 {
  let end = len;
  while (end > 0 && !isWordByte(load<u8>(p + end - 1))) end--;
  if (end == 0) return 0;
  let start = end - 1;
  while (start > 0 && isWordByte(load<u8>(p + start - 1)) && !camelBreak(p, len, start)) start--;
  const n = end - start;
  const lower = scratchAlloc(n);
  if (lower == 0) return WORDS_OOM;
  for (let i: u32 = 0; i < n; i++) store<u8>(lower + i, <u8>lowerAscii(load<u8>(p + start + i)));
  const role = setFind(classifyRoleSet(), lower, n);
  return role < 0 ? 0 : <i32>role;
}

// English endings a word may carry, folded off (§3 CLASSIFY): [suffix, replacement].
const ENDINGS: StaticArray<string> = ["ies", "y", "ied", "y", "es", "", "s", "", "ing", "", "ing", "e", "ed", "", "ed", "e", "d", "", "er", "", "r", ""];
// The pairs of ENDINGS below this index that are a third person's or a plural's (-ies, -es, -s;
// not -ied): "uploads", "replies".
const ENDINGS_S: i32 = 8;
// Set by wordValue: the word matched only without its ending (it is then read as an object), and
// which ending that was (its index in ENDINGS).
export let wordFolded = false;
let foldedAt: i32 = -1;

// Whether the last word wordValue folded lost a third person's or a plural's ending (-s, -es,
// -ies), not a participle's or another (-ing, -ed, -er).
@inline export function foldedS(): bool {
  return wordFolded && foldedAt < ENDINGS_S && foldedAt != 2;
}

// The word_map value of the ASCII lower-case word [w, w+n) (entry·2, + 1 for an object), else
// that of the first folded form in the map (wordFolded); -1 none, WORDS_OOM.
export function wordValue(w: usize, n: u32): i64 {
  wordFolded = false;
  const words = classifyWordSet();
  const v = setFind(words, w, n);
  if (v >= 0 || n < 4) return v;
  const buf = scratchAlloc(n + 1);
  if (buf == 0) return WORDS_OOM;
  for (let k = 0; k < ENDINGS.length; k += 2) {
    const suffix = ENDINGS[k], added = ENDINGS[k + 1];
    const sl = <u32>suffix.length;
    if (n < sl + 2 || !endsWith(w, n, suffix)) continue;
    const base = n - sl;
    memory.copy(buf, w, base);
    let m = base;
    if (added.length > 0) store<u8>(buf + m++, <u8>added.charCodeAt(0));
    let found = setFind(words, buf, m);
    // A doubled consonant before -ing or -ed: "running", "cancelled".
    if (found < 0 && added.length == 0 && sl >= 2 && base >= 3 && load<u8>(buf + base - 1) == load<u8>(buf + base - 2)) {
      found = setFind(words, buf, base - 1);
    }
    if (found >= 0) {
      wordFolded = true;
      foldedAt = k;
      return found;
    }
  }
  return -1;
}

function endsWith(w: usize, n: u32, suffix: string): bool {
  const sl = <u32>suffix.length;
  for (let i: u32 = 0; i < sl; i++) if (<u32>load<u8>(w + n - sl + i) != <u32>suffix.charCodeAt(i)) return false;
  return true;
}

@inline export function entryIsRead(entry: u32): bool {
  return (classifyEntryFlags(entry) & CLASSIFY_READ) != 0;
}

// [p, p+len)'s word at [wordStart, wordEnd), lower-cased into scratch: its pointer, 0 out of memory.
export function lowerWord(p: usize): usize {
  const n = wordEnd - wordStart;
  const lower = scratchAlloc(max<usize>(n, 1));
  if (lower != 0) copyLower(lower, p + wordStart, n);
  return lower;
}

// The entry a verb (not an object word; ending folded or not) [w, w+n) gives, when it is not a
// read: -1 none, WORDS_OOM. What the schema's parameters say goes through this: they can raise a
// class, never make a tool a read (a description's verbs: describe.ts, descriptionEntry).
export function verbEntry(w: usize, n: u32, fold: bool): i32 {
  if (!fold) wordFolded = false;
  const v = fold ? wordValue(w, n) : setFind(classifyWordSet(), w, n);
  if (v == WORDS_OOM) return WORDS_OOM;
  if (v < 0 || (v & 1) != 0) return -1;
  const entry = <u32>(v >> 1);
  return entryIsRead(entry) ? -1 : <i32>entry;
}

function lower(a: i32, b: i32): i32 {
  return b >= 0 && (a < 0 || b < a) ? b : a;
}

// ---- compounds: the words that join one action to another ----
// A joining word (§3): "and", "or", "then" ("get_quote_and_purchase", "fetchAndDelete",
// "check-price-then-buy"); what follows one starts another action, so its first word is a verb.
// [w, w+n) is a word (§3), in any case: of its bytes only 'A' and 'a' OR 0x20 to 'a'.
export function isJoiner(w: usize, n: u32): bool {
  if (n == 3) return (load<u8>(w) | 0x20) == 0x61 && (load<u8>(w + 1) | 0x20) == 0x6e && (load<u8>(w + 2) | 0x20) == 0x64;
  if (n == 2) return (load<u8>(w) | 0x20) == 0x6f && (load<u8>(w + 1) | 0x20) == 0x72;
  return n == 4 && (load<u32>(w) | 0x20202020) == 0x6e656874; // "then"
}

// Adverbs that may stand between a joining word and its verb ("and_also_delete", "and then
// optionally uploads"): skipped where the map lacks them, the verb is the word after them.
const ADVERBS: Text = "also\noptionally\nfinally\nimmediately\nautomatically\nafterwards\nlater\nsubsequently\nadditionally\njust\nsimply\ndirectly";
export function isAdverb(w: usize, n: u32): bool {
  return hasWord(listWords(textPtr(ADVERBS), textLen(ADVERBS)), w, n);
}

// Whether an unknown word can be no verb of a name, whose verbs are bare ("delete", never
// "deletes"): a plural ("directories", "groups"; not "process", "focus", "alias", "this") or a
// word with a digit ("v2").
function noVerb(w: usize, n: u32): bool {
  for (let k: u32 = 0; k < n; k++) if (isAsciiDigit(load<u8>(w + k))) return true;
  if (n < 3 || load<u8>(w + n - 1) != 0x73) return false;
  const c = load<u8>(w + n - 2);
  return c != 0x73 && c != 0x75 && c != 0x69 && c != 0x61;
}

// The entry the words of a tool's own name [p, p+len) give (§3): the riskiest (earliest) entry of
// its verbs; a read verb holds against object words ("get_order") and words with a folded ending
// ("list_commits", "protected_branches"), which classify only a name with no verb. A compound
// name ("get_quote_and_purchase") has the effects of each of its actions: the word after a
// joining word, and in a compound the first word the map knows, are verbs whenever written
// bare ("purchase", "forward", even "order"), and an unknown word after a joining word,
// which may be a verb the map lacks, leaves the name nothing certain to say (-1). -1: none,
// WORDS_OOM.
export function nameEntry(p: usize, len: u32): i32 {
  let verb: i32 = -1, objectWord: i32 = -1, readVerb: i32 = -1, readObject: i32 = -1;
  let joined = false;    // the name has a joining word
  let head = false;      // the next word heads an action (it follows a joining word)
  let first: i32 = -1;   // the first known word's entry when it is an object word as written; -2 another
  let i: u32 = 0;
  while (nextWord(p, len, i)) {
    i = wordEnd;
    const n = wordEnd - wordStart;
    const w = lowerWord(p);
    if (w == 0) return WORDS_OOM;
    if (isJoiner(w, n)) {
      joined = head = true;
      continue;
    }
    const v = wordValue(w, n);
    if (v == WORDS_OOM) return WORDS_OOM;
    if (v < 0 && head && isAdverb(w, n)) continue;
    const heads = head;
    head = false;
    if (v < 0) {
      if (heads && !noVerb(w, n)) return -1;
      continue;
    }
    const entry = <i32>(v >> 1);
    // A head written bare is a verb, whatever else the word may be; a folded one is an object.
    const weak = (!heads || wordFolded) && ((v & 1) != 0 || wordFolded);
    if (first == -1) first = weak && !wordFolded ? entry : -2;
    if (entryIsRead(<u32>entry)) {
      if (weak) readObject = lower(readObject, entry);
      else readVerb = lower(readVerb, entry);
    } else if (weak) objectWord = lower(objectWord, entry);
    else verb = lower(verb, entry);
  }
  // A compound's first action: "purchase_and_get_receipt" purchases.
  if (joined && first >= 0) {
    if (entryIsRead(<u32>first)) readVerb = lower(readVerb, first);
    else verb = lower(verb, first);
  }
  if (verb >= 0) return lower(verb, objectWord);
  if (readVerb >= 0) return readVerb;
  return objectWord >= 0 ? objectWord : readObject;
}

// Where a tool's own name starts in `name` (§3): after `mcp__<server>__` or `mcp_<server>_`,
// with the server as the host gives it (Hermes' spelling: bytes outside [A-Za-z0-9_] are `_`),
// else after the first `__` (`_`) that follows `mcp__` (`mcp_`); after the first `__` that
// follows `connectors__` (newer Hermes' connector tools, `connectors__<connector>__<tool>`,
// split as Hermes splits them); 0 for any other name.
export function ownNameStart(name: usize, len: u32, server: usize, serverLen: u32): u32 {
  const connectors = connectorNameStart(name, len);
  if (connectors != 0) return connectors;
  if (len < 5 || load<u8>(name) != 0x6d || load<u8>(name + 1) != 0x63 || load<u8>(name + 2) != 0x70 || load<u8>(name + 3) != 0x5f) return 0;
  const prefix: u32 = load<u8>(name + 4) == 0x5f ? 5 : 4; // "mcp__" or "mcp_"
  const delimiter: u32 = prefix - 3;
  if (serverLen > 0 && prefix + serverLen + delimiter < len) {
    let same = true;
    for (let k: u32 = 0; k < serverLen && same; k++) {
      const c = <u32>load<u8>(server + k);
      const safe = isAsciiAlpha(c) || isAsciiDigit(c) || c == 0x5f ? c : 0x5f;
      same = <u32>load<u8>(name + prefix + k) == safe;
    }
    const at = prefix + serverLen;
    if (same && load<u8>(name + at) == 0x5f && (delimiter == 1 || load<u8>(name + at + 1) == 0x5f)) return at + delimiter;
  }
  // The server's name is at least one byte long.
  for (let j = prefix + 1; j + delimiter < len; j++) {
    if (load<u8>(name + j) == 0x5f && (delimiter == 1 || load<u8>(name + j + 1) == 0x5f)) return j + delimiter;
  }
  return 0;
}

const CONNECTORS_PREFIX = "connectors__";

// The own name's start in `connectors__<connector>__<tool>` (the connector at least one byte
// long), 0 when `name` is not such a name.
function connectorNameStart(name: usize, len: u32): u32 {
  const prefix = <u32>CONNECTORS_PREFIX.length;
  if (len <= prefix + 3) return 0;
  for (let k: u32 = 0; k < prefix; k++) {
    if (<u32>load<u8>(name + k) != <u32>CONNECTORS_PREFIX.charCodeAt(k)) return 0;
  }
  for (let j = prefix + 1; j + 2 < len; j++) {
    if (load<u8>(name + j) == 0x5f && load<u8>(name + j + 1) == 0x5f) return j + 2;
  }
  return 0;
}

// ---- classes learned from descriptions, for this instance (bounded) ----
const DESCRIBED_MAX: u32 = 1024;
const DESCRIBED_SLOTS: u32 = 2048; // open addressing, at most half full
export const DESCRIBED_NAME_MAX: u32 = 256;
// Slots × (u32 hash, u32 name copy (0: empty), u32 name length, u32 class (NONE: none learned),
// u32 roles (0: none), 12 bytes unused). Roles: u32 count, count × (u32 name ptr, u32 name
// length, u32 role), then the names' bytes, in one block.
const SLOT_SHIFT: u32 = 5;
const NO_CLASS: u32 = 0xffffffff;
let described: usize = 0;
let describedCount: u32 = 0;

function describedSlot(name: usize, len: u32): usize {
  const h = fnv1a(name, len);
  let i = h & (DESCRIBED_SLOTS - 1);
  while (true) {
    const e = described + ((<usize>i) << SLOT_SHIFT);
    const copy = <usize>load<u32>(e + 4);
    if (copy == 0) return e;
    if (load<u32>(e) == h && bytesEqual(copy, load<u32>(e + 8), name, len)) return e;
    i = (i + 1) & (DESCRIBED_SLOTS - 1);
  }
}

// The described slot of `name`, 0 when `describe` never saw it.
function describedEntry(name: usize, len: u32): usize {
  if (described == 0 || len > DESCRIBED_NAME_MAX) return 0;
  const e = describedSlot(name, len);
  return load<u32>(e + 4) == 0 ? 0 : e;
}

// The slot for `name`, made when missing; 0 ok with the slot in `learnedSlot`, else 1 name too
// long, 2 table full, 3 out of memory.
let learnedSlot: usize = 0;
function slotFor(name: usize, len: u32): u32 {
  if (len > DESCRIBED_NAME_MAX) return 1;
  if (described == 0) {
    described = alloc(<usize>DESCRIBED_SLOTS << SLOT_SHIFT);
    if (described == 0) return 3;
    memory.fill(described, 0, <usize>DESCRIBED_SLOTS << SLOT_SHIFT);
  }
  const e = describedSlot(name, len);
  if (load<u32>(e + 4) == 0) {
    if (describedCount >= DESCRIBED_MAX) return 2;
    const copy = alloc(max<usize>(len, 1));
    if (copy == 0) return 3;
    memory.copy(copy, name, len);
    store<u32>(e, fnv1a(name, len));
    store<u32>(e + 4, <u32>copy);
    store<u32>(e + 8, len);
    store<u32>(e + 12, NO_CLASS);
    store<u32>(e + 16, 0);
    describedCount++;
  }
  learnedSlot = e;
  return 0;
}

// Remembers `cls` for the tool `name`: 0 ok, 1 name too long, 2 table full, 3 out of memory.
export function learnClass(name: usize, len: u32, cls: u32): u32 {
  const r = slotFor(name, len);
  if (r == 0) store<u32>(learnedSlot + 12, cls);
  return r;
}

// Remembers the roles block `roles` (rolesBegin/rolesAdd) for the tool `name`, replacing any
// earlier one; codes as learnClass. The block is freed when it cannot be kept.
export function learnRoles(name: usize, len: u32, roles: usize): u32 {
  const r = slotFor(name, len);
  if (r != 0) {
    free(roles);
    return r;
  }
  free(<usize>load<u32>(learnedSlot + 16));
  store<u32>(learnedSlot + 16, <u32>roles);
  return 0;
}

// The roles block learned for `name`, 0 when none.
export function roleTableOf(name: usize, len: u32): usize {
  const e = describedEntry(name, len);
  return e == 0 ? 0 : <usize>load<u32>(e + 16);
}

// Forgets the roles learned for `name`, if any (a later description of it had none).
export function forgetRoles(name: usize, len: u32): void {
  const e = describedEntry(name, len);
  if (e == 0) return;
  free(<usize>load<u32>(e + 16));
  store<u32>(e + 16, 0);
}

// A roles block for `count` parameters whose names take `nameBytes` in all (0: out of memory).
let rolesAt: usize = 0;
let rolesNames: usize = 0;
export function rolesBegin(count: u32, nameBytes: u32): usize {
  rolesAt = alloc(4 + <usize>count * 12 + <usize>nameBytes);
  if (rolesAt == 0) return 0;
  store<u32>(rolesAt, 0);
  rolesNames = rolesAt + 4 + <usize>count * 12;
  return rolesAt;
}

export function rolesAdd(name: usize, len: u32, role: u32): void {
  const n = load<u32>(rolesAt);
  const e = rolesAt + 4 + <usize>n * 12;
  memory.copy(rolesNames, name, len);
  store<u32>(e, <u32>rolesNames);
  store<u32>(e + 4, len);
  store<u32>(e + 8, role);
  rolesNames += len;
  store<u32>(rolesAt, n + 1);
}

// Forgets every learned class and role: they are of the policy being replaced.
export function forgetDescribed(): void {
  if (described == 0) return;
  for (let i: u32 = 0; i < DESCRIBED_SLOTS; i++) {
    const e = described + ((<usize>i) << SLOT_SHIFT);
    free(<usize>load<u32>(e + 4));
    free(<usize>load<u32>(e + 16));
  }
  memory.fill(described, 0, <usize>DESCRIBED_SLOTS << SLOT_SHIFT);
  describedCount = 0;
}

// ---- classification ----
// The class of the tool `name` (WORDS_OOM when scratch memory ran out); remembers which tool
// entry mapped it, for leafRole.
export function classifyTool(name: usize, len: u32): i32 {
  mappedTool = -1;
  byName = false;
  lastLearned = false;
  lastRoles = 0;
  const exact = setFind(toolsExactSet(), name, len);
  if (exact >= 0) {
    mappedTool = <i32>exact;
    return <i32>toolClass(<u32>exact);
  }
  const globs = toolsGlobSet();
  const n = setMemberCount(globs);
  for (let j: u32 = 0; j < n; j++) {
    const pattern = listKey(globs, j);
    if (globMatch(strPtr(pattern), strLen(pattern), name, len)) {
      mappedTool = <i32>listValue(globs, j);
      return <i32>toolClass(<u32>mappedTool);
    }
  }
  const slot = describedEntry(name, len);
  if (slot != 0) {
    lastRoles = <usize>load<u32>(slot + 16);
    const learned = load<u32>(slot + 12);
    if (learned != NO_CLASS) {
      lastLearned = true;
      return <i32>learned;
    }
  }
  const own = ownNameStart(name, len, 0, 0);
  const entry = nameEntry(name + own, len - own);
  if (entry == WORDS_OOM) return WORDS_OOM;
  if (entry < 0) return 0;
  byName = true;
  return <i32>classifyEntryClass(<u32>entry);
}

// The action the tool `name` says it does (§7.5): that of the first word of its own name (past
// an MCP server's prefix) the action set knows, "cancel" of "cancel_pending_order", "pay" of
// "send_money"; 0 when none says one. WORDS_OOM when scratch memory ran out.
export function toolActions(name: usize, len: u32): i64 {
  const own = ownNameStart(name, len, 0, 0);
  const p = name + own, n = len - own;
  let i: u32 = 0;
  while (nextWord(p, n, i)) {
    i = wordEnd;
    const w = lowerWord(p);
    if (w == 0) return WORDS_OOM;
    const actions = setFind(intentActionToolSet(), w, wordEnd - wordStart);
    if (actions >= 0) return actions;
  }
  return 0;
}

// Whether the tool `name` (its own name, past an MCP server's prefix) holds the word [w, w+n),
// ASCII case aside.
export function toolNameHas(name: usize, len: u32, w: usize, n: u32): bool {
  const own = ownNameStart(name, len, 0, 0);
  const p = name + own, m = len - own;
  let i: u32 = 0;
  while (nextWord(p, m, i)) {
    i = wordEnd;
    if (wordEnd - wordStart == n && equalsAsciiFold(p + wordStart, w, n)) return true;
  }
  return false;
}

// What a tool takes for a choice or for content (§3.3): a mapped tool's, the flags of its TOOLS
// entry; one nobody mapped, of class `cls`, those of every CLASSIFY entry of that class (0 for class 0).
export function choiceFlags(cls: i32): u32 {
  if (mappedTool >= 0) return toolFlags(<u32>mappedTool);
  if (cls <= 0) return 0;
  let flags: u32 = 0;
  const n = classifyEntryCount();
  for (let e: u32 = 0; e < n; e++) if (<i32>classifyEntryClass(e) == cls) flags |= classifyEntryFlags(e);
  return flags & (CLASSIFY_CHOICES | CLASSIFY_CHOICE_HEADINGS | CLASSIFY_OBJECTS_CONTENT | CLASSIFY_CHOICE_CODES);
}

// How the last classified name got its class: 1 the policy's tool map, 2 the words of its own
// name (CLASSIFY), 3 what `describe` inferred (name, description, schema, annotations), 0
// nothing (class unknown).
export function classSource(): u32 {
  if (mappedTool >= 0) return 1;
  if (lastLearned) return 3;
  return byName ? 2 : 0;
}

// [path, path+len) is `at` or lies below it in the dotted argument paths, ASCII case aside: a
// tool may read a `To` as its `to`, so a key's spelling must not hide a target (§5.2).
function atOrBelow(path: usize, len: u32, at: usize, atLen: u32): bool {
  if (len < atLen || !equalsAsciiFold(path, at, atLen)) return false;
  return len == atLen || load<u8>(path + atLen) == 0x2e;
}

// The role (§5.2) of argument leaf i for the last classified tool, 0 when it has none: a mapped
// tool's own roles by argument path, else the roles `describe` learned from its schema, else
// CLASSIFY's role_map, by top-level argument name.
export function leafRole(i: u32): u32 {
  const path = leafPath(i), len = leafPathLen(i);
  if (mappedTool >= 0) {
    const start = toolRoleStart(<u32>mappedTool);
    const end = start + toolRoleCount(<u32>mappedTool);
    for (let r = start; r < end; r++) {
      const arg = roleArgPath(r);
      if (atOrBelow(path, len, strPtr(arg), strLen(arg))) return roleKind(r);
    }
    // A key role_map calls data (a message's id, `in_reply_to`) is no target of any tool: it is
    // not read by its shape either (`<CAF1@mail.gmail.com>` is no address the call sends to).
    let key = len;
    while (key > 0 && load<u8>(path + key - 1) != 0x2e) key--;
    return mapRole(path + key, len - key) == <i32>ROLE_DATA ? ROLE_DATA : 0;
  }
  const dot = indexOfByte(path, len, 0x2e, 0);
  const top: u32 = dot < 0 ? len : <u32>dot;
  if (lastRoles != 0) {
    const n = load<u32>(lastRoles);
    for (let k: u32 = 0; k < n; k++) {
      const e = lastRoles + 4 + <usize>k * 12;
      // ASCII case aside, as for the policy's own roles (§5.2).
      if (load<u32>(e + 4) == top && equalsAsciiFold(<usize>load<u32>(e), path, top)) return load<u32>(e + 8);
    }
  }
  const role = mapRole(path, top);
  return role < 0 ? 0 : <u32>role;
}

// role_map's role for the name [p, p+len), -1 when none. Its keys are lower-case: the name is
// looked up lower-cased (as is, when scratch runs out).
export function mapRole(p: usize, len: u32): i32 {
  const lower = scratchAlloc(max<usize>(<usize>len, 1));
  if (lower != 0) copyLower(lower, p, len);
  return <i32>setFind(classifyRoleSet(), lower != 0 ? lower : p, len);
}
