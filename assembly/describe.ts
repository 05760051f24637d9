// `describe` (docs/bytecode.md §8): what the host knows of a tool the policy does not map, its
// description and the JSON schema of its parameters (what MCP servers publish), classifies it
// for the later decisions of this instance. The class is the first CLASSIFY entry, in policy
// order, that a word of the description or of a parameter's name or description maps to; each
// parameter's role comes from its `format`, else role_map by its name, else by its last word.
import { ROLE_EMAIL, ROLE_URL, ROLE_DOMAIN, ROLE_OBJECT, ROLE_AMOUNT, ROLE_AMOUNT_MINOR, SET_MAX_JSON_DEPTH, SET_MAX_LEAVES } from "./format";
import { strPtr, strLen, classCapability, classRisk, classifyEntryClass, classifyRoleSet, setFind, settingValue } from "./decode";
import { outBegin, outByte, outAscii, outBytes, outDecimal, outPatchU8, outFinish, outFailure, Text, textLen, textPtr } from "./out";
import { inputPtr, inputHolds } from "./input";
import { hasPolicy } from "./policy";
import {
  classifyTool, classifiedByPolicy, classSource, lowestWordEntry, lastWordRole, learnClass, learnRoles, forgetRoles,
  rolesBegin, rolesAdd, roleTableOf, WORDS_OOM, DESCRIBED_NAME_MAX,
} from "./classify";
import { parseArgs, leafCount, leafPath, leafPathLen, leafValue, leafValueLen, leafIsString, JSON_OK } from "./json";
import { bytesEqual, equalsAscii, indexOfByte, sameBytes, copyLower } from "./bytes";
import { scratchAlloc } from "./mem";
import { listWords, hasWord } from "./wordset";
import { roleName } from "./disasm";
import { free } from "./mem";

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
  if (len <= prefix || !startsWithProperties(p)) return false;
  const dot = indexOfByte(p + prefix, len - prefix, 0x2e, 0);
  leafName = p + prefix;
  leafNameLen = dot < 0 ? len - prefix : <u32>dot;
  leafRest = leafName + leafNameLen + (dot < 0 ? 0 : 1);
  leafRestLen = dot < 0 ? 0 : len - prefix - leafNameLen - 1;
  return true;
}

function startsWithProperties(p: usize): bool {
  return sameBytes(p, textPtr(PROPERTIES), textLen(PROPERTIES));
}

// The role a JSON-schema `format` names, 0 for any other: a date is what pins the action down.
function formatRole(p: usize, len: u32): u32 {
  if (equalsAscii(p, len, "email") || equalsAscii(p, len, "idn-email")) return ROLE_EMAIL;
  if (equalsAscii(p, len, "uri") || equalsAscii(p, len, "url") || equalsAscii(p, len, "iri")) return ROLE_URL;
  if (equalsAscii(p, len, "hostname") || equalsAscii(p, len, "idn-hostname")) return ROLE_DOMAIN;
  if (equalsAscii(p, len, "date") || equalsAscii(p, len, "date-time")) return ROLE_OBJECT;
  return 0;
}

// Words that end a description's head phrase ("ID of the page", "Name to show", "Amount in cents").
const STOPS: Text = "of\nfor\nto\nin\non\nat\nby\nwith\nfrom\nthat\nwhich\nwho\nwhose\nwhen\nif\nis\nare\nas\nor\nand\nused\nthis\nthe\na\nan";
const LEADS: Text = "the\na\nan\noptional\nrequired";

// Reads a description: the role CLASSIFY's role_map gives the head noun of its head phrase (its
// last word, the phrase being the words before the first punctuation or STOPS word, LEADS
// skipped before it: "IBAN of the recipient", "The repository name", not "Repository
// description"), in headRoleFound (0: none); and whether a word of it is one role_map marks as
// the smallest unit of a currency ("in cents"), in saysMinor. False when out of memory.
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
    if (!isWordStart(c)) {
      if (c != 0x20 && c != 0x27 && c != 0x2d && c != 0x5f && c != 0x60 && c != 0x22 && !lead) inHead = false;
      i++;
      continue;
    }
    let j = i + 1;
    while (j < len && isWordStart(<u32>load<u8>(p + j))) j++;
    const w = lowerWord(p + i, j - i);
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
    const w = lowerWord(p + start, end - start);
    if (w == 0) return false;
    const role = setFind(classifyRoleSet(), w, end - start);
    if (role >= 0) headRoleFound = <i32>role;
  }
  return true;
}

function isWordStart(c: u32): bool {
  return (c | 0x20) - 0x61 < 26 || c - 0x30 < 10;
}

function lowerWord(p: usize, n: u32): usize {
  const w = scratchAlloc(max<usize>(<usize>n, 1));
  if (w != 0) copyLower(w, p, n);
  return w;
}

// The role of the property named [name, name+len) from what its schema gave (its `format`'s
// role, the role of its description's head phrase, whether its type is a number, whether the
// description speaks of minor units): the format's; else role_map by the name (ASCII case
// aside), by the name's words (the last first: "user_email", "account_id"), by the description's
// head phrase; else OBJECT for a number (a count or id the action is made with). An AMOUNT
// whose description says "cents" is an AMOUNT_MINOR. WORDS_OOM when out of memory.
function propertyRole(name: usize, len: u32, format: u32, described: i32, numeric: bool, minor: bool): i32 {
  let role: i32 = <i32>format;
  if (role == 0) {
    const lower = lowerWord(name, len);
    if (lower == 0) return WORDS_OOM;
    const mapped = setFind(classifyRoleSet(), lower, len);
    role = mapped >= 0 ? <i32>mapped : nameWordRole(name, len);
  }
  if (role == 0) role = described;
  if (role == 0 && numeric) role = ROLE_OBJECT;
  if (role == <i32>ROLE_AMOUNT && minor) role = ROLE_AMOUNT_MINOR;
  return role;
}

// role_map's role for a word of the name, the last word first ("amount_off" by "amount"): words
// are runs of letters and digits, split where a lower-case letter meets a capital ("unitAmount").
const nameWords: usize = memory.data(64); // up to 16 (start, end) u16 pairs
function nameWordRole(name: usize, len: u32): i32 {
  let n: u32 = 0;
  let i: u32 = 0;
  while (i < len && n < 16) {
    if (!isWordStart(<u32>load<u8>(name + i))) { i++; continue; }
    let j = i + 1;
    while (j < len && isWordStart(<u32>load<u8>(name + j)) &&
      !((<u32>load<u8>(name + j)) - 0x41 < 26 && (<u32>load<u8>(name + j - 1)) - 0x61 < 26)) j++;
    store<u16>(nameWords + (n << 2), <u16>i);
    store<u16>(nameWords + (n << 2) + 2, <u16>j);
    n++;
    i = j;
  }
  while (n > 0) {
    n--;
    const a = <u32>load<u16>(nameWords + (n << 2)), b = <u32>load<u16>(nameWords + (n << 2) + 2);
    const w = lowerWord(name + a, b - a);
    if (w == 0) return WORDS_OOM;
    // A word that only links others ("note_to_payer") says nothing of the value.
    if (hasWord(listWords(textPtr(STOPS), textLen(STOPS)), w, b - a)) continue;
    const role = setFind(classifyRoleSet(), w, b - a);
    if (role >= 0) return <i32>role;
  }
  return 0;
}

function better(best: i32, entry: i32): i32 {
  return entry >= 0 && (best < 0 || entry < best) ? entry : best;
}

// Reads the schema's properties (a parser lists each property's leaves together), in one pass:
// with `learn`, adds each one's role to the roles block and returns the best CLASSIFY entry
// their names and descriptions give; without, counts them (propertyCount, propertyBytes).
let propertyCount: u32 = 0;
let propertyBytes: u32 = 0;
function readProperties(leaves: u32, learn: bool): i32 {
  let best: i32 = -1;
  let current: usize = 0;
  let currentLen: u32 = 0;
  let format: u32 = 0;
  let described: i32 = 0;
  let numeric = false;
  let minor = false;
  let open = false;
  propertyCount = 0;
  propertyBytes = 0;
  for (let i: u32 = 0; i <= leaves; i++) {
    const isProperty = i < leaves && propertyOf(i);
    if (open && (i == leaves || !isProperty || !bytesEqual(leafName, leafNameLen, current, currentLen))) {
      open = false;
      if (learn) {
        const role = propertyRole(current, currentLen, format, described, numeric, minor);
        const e = lowestWordEntry(current, currentLen);
        if (role == WORDS_OOM || e == WORDS_OOM) return WORDS_OOM;
        if (role > 0) rolesAdd(current, currentLen, <u32>role);
        best = better(best, e);
      }
    }
    if (!isProperty) continue;
    if (!open) {
      // propertyOf(i) set leafName to this property.
      open = true;
      current = leafName;
      currentLen = leafNameLen;
      format = 0;
      described = 0;
      numeric = false;
      minor = false;
      propertyCount++;
      propertyBytes += currentLen;
    }
    if (!learn || !leafIsString(i)) continue;
    if (equalsAscii(leafRest, leafRestLen, "format")) {
      const role = formatRole(leafValue(i), leafValueLen(i));
      if (role != 0) format = role;
    } else if (equalsAscii(leafRest, leafRestLen, "description")) {
      const e = lowestWordEntry(leafValue(i), leafValueLen(i));
      if (e == WORDS_OOM || !readDescription(leafValue(i), leafValueLen(i))) return WORDS_OOM;
      best = better(best, e);
      if (described == 0) described = headRoleFound;
      minor = minor || saysMinor;
    } else if (equalsAscii(leafRest, leafRestLen, "type") || equalsAscii(leafRest, leafRestLen, "items.type")) {
      const v = leafValue(i), n = leafValueLen(i);
      if (equalsAscii(v, n, "integer") || equalsAscii(v, n, "number")) numeric = true;
    }
  }
  return best;
}

// Answers the class the tool now has, `capability<TAB>risk`, then a line `role<TAB>NAME<TAB>role`
// per parameter role learned: a name the policy maps or its own words classify keeps that class;
// else the words of the description and schema give one (remembered), if any.
export function describeTool(nameLen: u32, textLen: u32, schemaLen: u32): u32 {
  outBegin();
  outByte(1);
  if (!inputHolds(<u64>nameLen + <u64>textLen + <u64>schemaLen)) return outFailure("the call does not fit the input buffer");
  if (!hasPolicy()) return outFailure("no policy is loaded");
  const name = inputPtr();
  if (nameLen > DESCRIBED_NAME_MAX) {
    outAscii("the tool name is longer than ");
    outDecimal(DESCRIBED_NAME_MAX);
    return outFailure(" bytes");
  }
  const schema = name + nameLen + textLen;
  if (schemaLen > 0 && parseArgs(schema, schemaLen, settingValue(SET_MAX_JSON_DEPTH), settingValue(SET_MAX_LEAVES)) != JSON_OK) {
    return outFailure("the parameter schema is not a JSON object within the policy's limits");
  }
  const leaves = schemaLen > 0 ? leafCount() : 0;
  let entry = lowestWordEntry(name + nameLen, textLen);
  if (entry == WORDS_OOM) return outFailure("out of memory");
  readProperties(leaves, false);
  const roles = rolesBegin(propertyCount, propertyBytes);
  if (roles == 0) return outFailure("out of memory");
  const fromSchema = readProperties(leaves, true);
  if (fromSchema == WORDS_OOM) {
    free(roles);
    return outFailure("out of memory");
  }
  entry = better(entry, fromSchema);
  let cls = classifyTool(name, nameLen);
  if (cls == WORDS_OOM) {
    free(roles);
    return outFailure("out of memory");
  }
  // A tool the policy maps takes its roles from the map: only others learn them.
  if (classSource() == 1 || load<u32>(roles) == 0) {
    free(roles);
    forgetRoles(name, nameLen);
  } else {
    const learned = learnRoles(name, nameLen, roles);
    if (learned == 2) return outFailure("too many described tools");
    if (learned == 3) return outFailure("out of memory");
  }
  if (!classifiedByPolicy() && entry >= 0) {
    cls = <i32>classifyEntryClass(<u32>entry);
    const learned = learnClass(name, nameLen, <u32>cls);
    if (learned == 2) return outFailure("too many described tools");
    if (learned == 3) return outFailure("out of memory");
  }
  outPatchU8(0, 0);
  outBytes(strPtr(classCapability(<u32>cls)), strLen(classCapability(<u32>cls)));
  outByte(0x09);
  outBytes(strPtr(classRisk(<u32>cls)), strLen(classRisk(<u32>cls)));
  const kept = classSource() == 1 ? 0 : roleTableOf(name, nameLen);
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
