// `describe` (docs/bytecode.md §8): what the host knows of a tool the policy does not map (its
// MCP server, description, the JSON schema of its parameters and the server's annotations)
// classifies it for the later decisions of this instance, by the order of evidence of §3
// CLASSIFY: the verbs of the tool's own name first; the description's verbs (its first word and
// the actions its first sentence joins to it), the roles of its parameters, the verbs among
// their enum values and the annotations can only raise that class; a read needs the name's own
// verb (or a trusted server's readOnlyHint). Each parameter's role comes from its `format`, else
// role_map by its name, by a word of its name, by its description's head noun, else a number is
// an object; a path parameter whose name or description has a verb is `written`, a sum whose
// description says "cents" is in minor units.
import {
  ROLE_EMAIL, ROLE_URL, ROLE_DOMAIN, ROLE_PATH, ROLE_WRITTEN, ROLE_OBJECT, ROLE_AMOUNT, ROLE_AMOUNT_MINOR,
  SET_MAX_JSON_DEPTH, SET_MAX_LEAVES,
  CLASSIFY_HINT_DESTRUCTIVE, CLASSIFY_HINT_NOT_READ_ONLY, CLASSIFY_HINT_OPEN_WORLD, CLASSIFY_HINT_READ_ONLY,
  ANNOTATION_READ_ONLY, ANNOTATION_DESTRUCTIVE, ANNOTATION_OPEN_WORLD, ANNOTATION_MAX,
} from "../../bytecode/format";
import {
  strPtr, strLen, classCapability, classRisk, classifyEntryClass, classifyEntryCount, classifyEntryFlags,
  classifyEntryRoles, classifyRoleSet, classifyTrustedSet, setFind, settingValue,
} from "../policy/decode";
import { outBegin, outByte, outAscii, outBytes, outDecimal, outPatchU8, outFinish, outFailure, Text, textLen, textPtr } from "../abi/out";
import { inputPtr, inputHolds } from "../abi/input";
import { hasPolicy } from "../policy/policy";
import {
  classifyTool, classSource, learnClass, learnRoles, forgetRoles, rolesBegin, rolesAdd, roleTableOf,
  nameEntry, ownNameStart, nextWord, wordStart, wordEnd, lowerWord, verbEntry, entryIsRead, WORDS_OOM,
  DESCRIBED_NAME_MAX, isJoiner, isAdverb, wordValue, wordFolded, foldedS,
} from "./classify";
import { parseArgs, leafCount, leafPath, leafPathLen, leafValue, leafValueLen, leafIsString, JSON_OK } from "../readers/json";
import { bytesEqual, equalsAscii, indexOfByte, sameBytes, copyLower, isAsciiAlpha, isAsciiDigit, isSpace } from "../abi/bytes";
import { roleName } from "../policy/disasm";
import { free, scratchAlloc } from "../abi/mem";
import { listWords, hasWord } from "../readers/wordset";

const PROPERTIES: Text = "properties.";

// The property a schema leaf belongs to ("properties.NAME" or "properties.NAME.…"): its name's
// span in leafName*, and the rest of the path after NAME in leafRest*; false for other leaves.
let leafName: usize = 0;
let leafNameLen: u32 = 0;
let leafRest: usize = 0;
let leafRestLen: u32 = 0;
function propertyOf(i: u32): bool {
  const p = leafPath(i), len = leafPathLen(i);
  const prefix = textLen(PROPERTIES);
  if (len <= prefix || !sameBytes(p, textPtr(PROPERTIES), prefix)) return false;
  const dot = indexOfByte(p + prefix, len - prefix, 0x2e, 0);
  leafName = p + prefix;
  leafNameLen = dot < 0 ? len - prefix : <u32>dot;
  leafRest = leafName + leafNameLen + (dot < 0 ? 0 : 1);
  leafRestLen = dot < 0 ? 0 : len - prefix - leafNameLen - 1;
  return true;
}

// The role a JSON-schema `format` names, 0 for any other: a date is what pins the action down.
function formatRole(p: usize, len: u32): u32 {
  if (equalsAscii(p, len, "email") || equalsAscii(p, len, "idn-email")) return ROLE_EMAIL;
  if (equalsAscii(p, len, "uri") || equalsAscii(p, len, "url") || equalsAscii(p, len, "iri")) return ROLE_URL;
  if (equalsAscii(p, len, "hostname") || equalsAscii(p, len, "idn-hostname")) return ROLE_DOMAIN;
  if (equalsAscii(p, len, "date") || equalsAscii(p, len, "date-time")) return ROLE_OBJECT;
  return 0;
}

// Words that end a description's head phrase ("ID of the page", "Name to show", "Amount in
// cents") and that link the words of a name ("note_to_payer").
const STOPS: Text = "of\nfor\nto\nin\non\nat\nby\nwith\nfrom\nthat\nwhich\nwho\nwhose\nwhen\nif\nis\nare\nas\nor\nand\nused\nthis\nthe\na\nan";
const LEADS: Text = "the\na\nan\noptional\nrequired";

function lowered(p: usize, n: u32): usize {
  const w = scratchAlloc(max<usize>(<usize>n, 1));
  if (w != 0) copyLower(w, p, n);
  return w;
}

// role_map's role for a word of the name, the last word first ("amount_off" by "amount"), the
// linking words skipped: the last word may give any role, an earlier one only an object's or a
// sum's ("hotel_name" is an object; "excluded_file_patterns" is no path); 0 when none, WORDS_OOM.
const nameWords: usize = memory.data(64); // up to 16 (start, end) u16 pairs
export function nameWordRole(name: usize, len: u32): i32 {
  let n: u32 = 0;
  let i: u32 = 0;
  while (n < 16 && nextWord(name, len, i)) {
    store<u16>(nameWords + (n << 2), <u16>wordStart);
    store<u16>(nameWords + (n << 2) + 2, <u16>wordEnd);
    n++;
    i = wordEnd;
  }
  let last = true;
  while (n > 0) {
    n--;
    const a = <u32>load<u16>(nameWords + (n << 2)), b = <u32>load<u16>(nameWords + (n << 2) + 2);
    const w = lowered(name + a, b - a);
    if (w == 0) return WORDS_OOM;
    if (hasWord(listWords(textPtr(STOPS), textLen(STOPS)), w, b - a)) continue;
    const role = setFind(classifyRoleSet(), w, b - a);
    if (role >= 0 && (last || role == ROLE_OBJECT || role == ROLE_AMOUNT || role == ROLE_AMOUNT_MINOR)) return <i32>role;
    last = false;
  }
  return 0;
}

// Reads a description: the role role_map gives the head noun of its head phrase (its last word,
// the phrase being the words before the first punctuation or STOPS word, LEADS skipped before
// it: "IBAN of the recipient", "The repository name", not "Repository description"), in
// headRoleFound (0: none); and whether a word of it is one role_map marks as the smallest unit of
// a currency ("in cents"), in saysMinor. False when out of memory.
let headRoleFound: i32 = 0;
let saysMinor = false;
function readDescription(p: usize, len: u32): bool {
  let i: u32 = 0;
  let start: u32 = 0, end: u32 = 0; // the head noun
  let lead = true;
  let inHead = true;
  headRoleFound = 0;
  saysMinor = false;
  while (i < len) {
    const c = <u32>load<u8>(p + i);
    if (!(isAsciiAlpha(c) || isAsciiDigit(c))) {
      if (c != 0x20 && c != 0x27 && c != 0x2d && c != 0x5f && c != 0x60 && c != 0x22 && !lead) inHead = false;
      i++;
      continue;
    }
    let j = i + 1;
    while (j < len && (isAsciiAlpha(<u32>load<u8>(p + j)) || isAsciiDigit(<u32>load<u8>(p + j)))) j++;
    const w = lowered(p + i, j - i);
    if (w == 0) return false;
    if (setFind(classifyRoleSet(), w, j - i) == <i64>ROLE_AMOUNT_MINOR) saysMinor = true;
    if (inHead) {
      if (lead && hasWord(listWords(textPtr(LEADS), textLen(LEADS)), w, j - i)) { i = j; continue; }
      if (hasWord(listWords(textPtr(STOPS), textLen(STOPS)), w, j - i)) inHead = false;
      else { lead = false; start = i; end = j; }
    }
    i = j;
  }
  if (end > start) {
    const w = lowered(p + start, end - start);
    if (w == 0) return false;
    const role = setFind(classifyRoleSet(), w, end - start);
    if (role >= 0) headRoleFound = <i32>role;
  }
  return true;
}

function lower(a: i32, b: i32): i32 {
  return b >= 0 && (a < 0 || b < a) ? b : a;
}

// The riskiest entry a verb among the words of [p, p+len) gives (endings folded), -1, WORDS_OOM.
function verbIn(p: usize, len: u32): i32 {
  let best: i32 = -1;
  let i: u32 = 0;
  while (nextWord(p, len, i)) {
    i = wordEnd;
    const w = lowerWord(p);
    if (w == 0) return WORDS_OOM;
    const e = verbEntry(w, wordEnd - wordStart, true);
    if (e == WORDS_OOM) return WORDS_OOM;
    best = lower(best, e);
  }
  return best;
}

// Whether the bytes [from, to) between two words of [p, p+len) end a sentence: a '.', '!' or '?'
// before a space or the end, not after a single letter ("e.g. a log"); or an empty line.
function endsSentence(p: usize, len: u32, from: u32, to: u32): bool {
  let lines = 0;
  for (let k = from; k < to; k++) {
    const c = <u32>load<u8>(p + k);
    if (c == 0x0a) {
      if (++lines == 2) return true;
    } else if (!isSpace(c)) lines = 0;
    if ((c == 0x2e || c == 0x21 || c == 0x3f) && (k + 1 >= len || isSpace(<u32>load<u8>(p + k + 1)))) {
      if (c != 0x2e || from < 2 || isWordByte(<u32>load<u8>(p + from - 2))) return true;
    }
  }
  return false;
}

@inline function isWordByte(c: u32): bool {
  return c >= 0x80 || isAsciiAlpha(c) || isAsciiDigit(c);
}

// The riskiest non-read entry the verbs of description [p, p+len) give (§3), -1 none, WORDS_OOM:
// its first word when it is a verb (folded or not) or an object word as written or with a third
// person's ending (the verb it is there: "Email the customer", "Posts a message"), and in its
// first sentence the head of each action joined to it, the word after "and", "or", "then" or a
// comma (adverbs skipped: "and optionally extracts"), when it is a word of a non-read entry,
// verb or object, as written or with a third person's ending: "Reads the file and uploads it",
// "Get a quote and purchase it", "Reads the mail and forwards it". Verbs joined agree: after an
// imperative ("Get all teams with their states and labels") a word with a third person's ending
// is a plural, no action; a participle ("open and closed issues") is none either.
function descriptionEntry(p: usize, len: u32): i32 {
  if (!nextWord(p, len, 0)) return -1;
  let w = lowerWord(p);
  if (w == 0) return WORDS_OOM;
  const v0 = wordValue(w, wordEnd - wordStart);
  if (v0 == WORDS_OOM) return WORDS_OOM;
  const imperative = v0 >= 0 && !wordFolded && (v0 & 1) == 0;
  let best: i32 = -1;
  if (v0 >= 0 && !entryIsRead(<u32>(v0 >> 1)) && ((v0 & 1) == 0 || !wordFolded || foldedS())) best = <i32>(v0 >> 1);
  let head = false;
  let i = wordEnd;
  while (nextWord(p, len, i)) {
    if (endsSentence(p, len, i, wordStart)) break;
    for (let k = i; k < wordStart; k++) if (load<u8>(p + k) == 0x2c) head = true;
    i = wordEnd;
    const n = wordEnd - wordStart;
    if (isJoiner(p + wordStart, n)) {
      head = true;
      continue;
    }
    if (!head) continue;
    w = lowerWord(p);
    if (w == 0) return WORDS_OOM;
    const v = wordValue(w, n);
    if (v == WORDS_OOM) return WORDS_OOM;
    if (v < 0 && (isAdverb(w, n) || (n > 4 && load<u8>(w + n - 2) == 0x6c && load<u8>(w + n - 1) == 0x79))) continue;
    head = false;
    if (v < 0 || (wordFolded && (imperative || !foldedS()))) continue;
    const entry = <u32>(v >> 1);
    if (!entryIsRead(entry)) best = lower(best, <i32>entry);
  }
  return best;
}

// The first (riskiest) entry whose roles include `role`, -1 when none.
function roleEntry(role: u32): i32 {
  const n = classifyEntryCount();
  for (let e: u32 = 0; e < n; e++) if ((classifyEntryRoles(e) & (1 << role)) != 0) return <i32>e;
  return -1;
}

// The first (riskiest) entry with one of `flags`, -1 when none.
function flaggedEntry(flags: u32): i32 {
  if (flags == 0) return -1;
  const n = classifyEntryCount();
  for (let e: u32 = 0; e < n; e++) if ((classifyEntryFlags(e) & flags) != 0) return <i32>e;
  return -1;
}

// The role of property [name, name+len): its `format`'s, else role_map's by its name (ASCII
// lower-case), else by a word of its name (the last first), else by its description's head
// noun; a property that can only be a number is an object (a count or id the action is made
// with) unless its name says it is a sum; a sum whose description says "cents" is in minor
// units; a path that its name or description says is acted on (a verb: "save", "to edit") is
// written. `stated` tells whether the schema states the role (a format, the name itself, a
// boolean flag named for it like "isUrl", or a written path) rather than the role being guessed
// from the name's words or the description: only a stated role is evidence of the tool's class.
// WORDS_OOM.
let stated = false;
function propertyRole(name: usize, len: u32, format: u32, numeric: bool, flag: bool, text: usize, textLength: u32): i32 {
  stated = false;
  let role: i32 = <i32>format;
  stated = role != 0;
  if (role == 0) {
    const low = lowered(name, len);
    if (low == 0) return WORDS_OOM;
    const mapped = setFind(classifyRoleSet(), low, len);
    stated = mapped >= 0 || flag;
    role = mapped >= 0 ? <i32>mapped : nameWordRole(name, len);
  }
  if (role == WORDS_OOM || !readDescription(text, textLength)) return WORDS_OOM;
  if (role == 0) role = headRoleFound;
  if (numeric && role != <i32>ROLE_OBJECT && role != <i32>ROLE_AMOUNT && role != <i32>ROLE_AMOUNT_MINOR) {
    role = ROLE_OBJECT; // a number is no address, URL or path
    stated = false;
  }
  if (role == <i32>ROLE_AMOUNT && saysMinor) role = ROLE_AMOUNT_MINOR;
  if (role != <i32>ROLE_PATH) return role;
  const byName = verbIn(name, len);
  const byText = byName == WORDS_OOM ? WORDS_OOM : verbIn(text, textLength);
  if (byText == WORDS_OOM) return WORDS_OOM;
  if (byName < 0 && byText < 0) return role;
  stated = true;
  return <i32>ROLE_WRITTEN;
}

// Reads the schema's properties (a parser lists each property's leaves together), in one pass:
// with `learn`, adds each one's role to the roles block and returns the riskiest entry their
// roles and enum values give; without, counts them (propertyCount, propertyBytes).
let propertyCount: u32 = 0;
let propertyBytes: u32 = 0;
function readProperties(leaves: u32, learn: bool): i32 {
  let best: i32 = -1;
  let current: usize = 0;
  let currentLen: u32 = 0;
  let format: u32 = 0;
  let text: usize = 0;
  let textLength: u32 = 0;
  let typed = false, nonNumeric = false, boolean = false;
  let open = false;
  propertyCount = 0;
  propertyBytes = 0;
  for (let i: u32 = 0; i <= leaves; i++) {
    const isProperty = i < leaves && propertyOf(i);
    if (open && (i == leaves || !isProperty || !bytesEqual(leafName, leafNameLen, current, currentLen))) {
      open = false;
      if (learn) {
        const role = propertyRole(current, currentLen, format, typed && !nonNumeric, boolean, text, textLength);
        if (role == WORDS_OOM) return WORDS_OOM;
        if (role > 0) {
          rolesAdd(current, currentLen, <u32>role);
          if (stated) best = lower(best, roleEntry(<u32>role));
        }
      }
    }
    if (!isProperty) continue;
    if (!open) {
      // propertyOf(i) set leafName to this property.
      open = true;
      current = leafName;
      currentLen = leafNameLen;
      format = 0;
      text = 0;
      textLength = 0;
      typed = false;
      nonNumeric = false;
      boolean = false;
      propertyCount++;
      propertyBytes += currentLen;
    }
    if (!learn || !leafIsString(i)) continue;
    const value = leafValue(i), valueLen = leafValueLen(i);
    if (equalsAscii(leafRest, leafRestLen, "format")) {
      const role = formatRole(value, valueLen);
      if (role != 0) format = role;
    } else if (equalsAscii(leafRest, leafRestLen, "description")) {
      text = value;
      textLength = valueLen;
    } else if (equalsAscii(leafRest, leafRestLen, "type")) {
      typed = true;
      if (!equalsAscii(value, valueLen, "number") && !equalsAscii(value, valueLen, "integer")) nonNumeric = true;
      if (equalsAscii(value, valueLen, "boolean")) boolean = true;
    } else if (equalsAscii(leafRest, leafRestLen, "enum")) {
      // An operation picked by value ("action": "list" | "add" | "remove"): its verbs, as written.
      const lowered = scratchAlloc(max<usize>(valueLen, 1));
      if (lowered == 0) return WORDS_OOM;
      copyLower(lowered, value, valueLen);
      const e = verbEntry(lowered, valueLen, false);
      if (e == WORDS_OOM) return WORDS_OOM;
      best = lower(best, e);
    }
  }
  return best;
}

// The riskiest entry the server's annotations give (§3): destructiveHint true and openWorldHint
// true unless readOnlyHint is true, readOnlyHint false.
function hintEntry(a: u32): i32 {
  const readOnly = (a & ANNOTATION_READ_ONLY) != 0 && (a & (ANNOTATION_READ_ONLY << 1)) != 0;
  let flags: u32 = 0;
  if ((a & ANNOTATION_DESTRUCTIVE) != 0 && (a & (ANNOTATION_DESTRUCTIVE << 1)) != 0 && !readOnly) flags |= CLASSIFY_HINT_DESTRUCTIVE;
  if ((a & ANNOTATION_READ_ONLY) != 0 && (a & (ANNOTATION_READ_ONLY << 1)) == 0) flags |= CLASSIFY_HINT_NOT_READ_ONLY;
  if ((a & ANNOTATION_OPEN_WORLD) != 0 && (a & (ANNOTATION_OPEN_WORLD << 1)) != 0 && !readOnly) flags |= CLASSIFY_HINT_OPEN_WORLD;
  return flaggedEntry(flags);
}

// Whether the server [p, p+len) is one the policy trusts (names compared in Hermes' spelling).
function trusted(p: usize, len: u32): bool {
  if (len == 0) return false;
  const safe = scratchAlloc(len);
  if (safe == 0) return false;
  for (let k: u32 = 0; k < len; k++) {
    const c = <u32>load<u8>(p + k);
    store<u8>(safe + k, <u8>(isAsciiAlpha(c) || isAsciiDigit(c) || c == 0x5f ? c : 0x5f));
  }
  return setFind(classifyTrustedSet(), safe, len) >= 0;
}

// Answers the class the tool now has, `capability<TAB>risk`, then a line `role<TAB>NAME<TAB>role`
// per parameter role learned. A name the policy maps keeps its class and learns nothing.
export function describeTool(nameLen: u32, textLen: u32, schemaLen: u32, serverLen: u32, annotations: u32): u32 {
  outBegin();
  outByte(1);
  if (!inputHolds(<u64>nameLen + <u64>textLen + <u64>schemaLen + <u64>serverLen)) return outFailure("the call does not fit the input buffer");
  if (!hasPolicy()) return outFailure("no policy is loaded");
  if ((annotations & ~ANNOTATION_MAX) != 0) return outFailure("unknown annotation bits");
  const name = inputPtr();
  if (nameLen > DESCRIBED_NAME_MAX) {
    outAscii("the tool name is longer than ");
    outDecimal(DESCRIBED_NAME_MAX);
    return outFailure(" bytes");
  }
  const text = name + nameLen;
  const schema = text + textLen;
  const server = schema + schemaLen;
  if (schemaLen > 0 && parseArgs(schema, schemaLen, settingValue(SET_MAX_JSON_DEPTH), settingValue(SET_MAX_LEAVES)) != JSON_OK) {
    return outFailure("the parameter schema is not a JSON object within the policy's limits");
  }
  const leaves = schemaLen > 0 ? leafCount() : 0;
  let cls = classifyTool(name, nameLen);
  if (cls == WORDS_OOM) return outFailure("out of memory");
  const mapped = classSource() == 1;
  if (mapped) {
    forgetRoles(name, nameLen);
  } else {
    const own = ownNameStart(name, nameLen, server, serverLen);
    const byName = nameEntry(name + own, nameLen - own);
    if (byName == WORDS_OOM) return outFailure("out of memory");
    const lead = descriptionEntry(text, textLen);
    if (lead == WORDS_OOM) return outFailure("out of memory");
    let best = lower(byName, lead);
    readProperties(leaves, false);
    const roles = rolesBegin(propertyCount, propertyBytes);
    if (roles == 0) return outFailure("out of memory");
    const fromSchema = readProperties(leaves, true);
    if (fromSchema == WORDS_OOM) {
      free(roles);
      return outFailure("out of memory");
    }
    best = lower(best, fromSchema);
    best = lower(best, hintEntry(annotations));
    const readOnly = (annotations & ANNOTATION_READ_ONLY) != 0 && (annotations & (ANNOTATION_READ_ONLY << 1)) != 0;
    const vouched = readOnly && trusted(server, serverLen) ? flaggedEntry(CLASSIFY_HINT_READ_ONLY) : -1;
    if (vouched >= 0) best = vouched;
    // A read needs the name's own read verb, or a trusted server's word for it.
    else if (best >= 0 && entryIsRead(<u32>best) && !(byName >= 0 && entryIsRead(<u32>byName))) best = -1;
    cls = best >= 0 ? <i32>classifyEntryClass(<u32>best) : 0;
    if (load<u32>(roles) == 0) {
      free(roles);
      forgetRoles(name, nameLen);
    } else {
      const learned = learnRoles(name, nameLen, roles);
      if (learned == 2) return outFailure("too many described tools");
      if (learned == 3) return outFailure("out of memory");
    }
    // A tool whose own name already gives its class needs no slot unless it has one.
    const byNameClass = byName >= 0 ? <i32>classifyEntryClass(<u32>byName) : 0;
    if (cls != byNameClass || roleTableOf(name, nameLen) != 0 || classSource() == 3) {
      const learned = learnClass(name, nameLen, <u32>cls);
      if (learned == 2) return outFailure("too many described tools");
      if (learned == 3) return outFailure("out of memory");
    }
  }
  outPatchU8(0, 0);
  outBytes(strPtr(classCapability(<u32>cls)), strLen(classCapability(<u32>cls)));
  outByte(0x09);
  outBytes(strPtr(classRisk(<u32>cls)), strLen(classRisk(<u32>cls)));
  const kept: usize = mapped ? 0 : roleTableOf(name, nameLen);
  const n: u32 = kept == 0 ? 0 : load<u32>(kept);
  for (let k: u32 = 0; k < n; k++) {
    const e = kept + 4 + <usize>k * 12;
    outAscii("\nrole\t");
    outBytes(<usize>load<u32>(e), load<u32>(e + 4));
    outByte(0x09);
    outAscii(roleName(load<u32>(e + 8)));
  }
  return outFinish();
}
