// `describe` (docs/bytecode.md §8): what the host knows of a tool the policy does not map, its
// description and the JSON schema of its parameters (what MCP servers publish), classifies it
// for the later decisions of this instance. The class is the first CLASSIFY entry, in policy
// order, that a word of the description or of a parameter's name or description maps to; each
// parameter's role comes from its `format`, else role_map by its name, else by its last word.
import { ROLE_EMAIL, ROLE_URL, ROLE_DOMAIN, SET_MAX_JSON_DEPTH, SET_MAX_LEAVES } from "./format";
import { strPtr, strLen, classCapability, classRisk, classifyEntryClass, classifyRoleSet, setFind, settingValue } from "./decode";
import { outBegin, outByte, outAscii, outBytes, outDecimal, outPatchU8, outFinish, outFailure, Text, textLen, textPtr } from "./out";
import { inputPtr, inputHolds } from "./input";
import { hasPolicy } from "./policy";
import {
  classifyTool, classifiedByPolicy, classSource, lowestWordEntry, lastWordRole, learnClass, learnRoles, forgetRoles,
  rolesBegin, rolesAdd, roleTableOf, WORDS_OOM, DESCRIBED_NAME_MAX,
} from "./classify";
import { parseArgs, leafCount, leafPath, leafPathLen, leafValue, leafValueLen, leafIsString, JSON_OK } from "./json";
import { bytesEqual, equalsAscii, indexOfByte, sameBytes } from "./bytes";
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

// The role a JSON-schema `format` names, 0 for any other.
function formatRole(p: usize, len: u32): u32 {
  if (equalsAscii(p, len, "email") || equalsAscii(p, len, "idn-email")) return ROLE_EMAIL;
  if (equalsAscii(p, len, "uri") || equalsAscii(p, len, "url") || equalsAscii(p, len, "iri")) return ROLE_URL;
  if (equalsAscii(p, len, "hostname") || equalsAscii(p, len, "idn-hostname")) return ROLE_DOMAIN;
  return 0;
}

// The role of the property named [name, name+len) whose `format` gave `format` (0: none): that,
// else role_map by the name, else by its last word (WORDS_OOM when out of memory).
function propertyRole(name: usize, len: u32, format: u32): i32 {
  if (format != 0) return <i32>format;
  const mapped = setFind(classifyRoleSet(), name, len);
  if (mapped >= 0) return <i32>mapped;
  return lastWordRole(name, len);
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
  let open = false;
  propertyCount = 0;
  propertyBytes = 0;
  for (let i: u32 = 0; i <= leaves; i++) {
    const isProperty = i < leaves && propertyOf(i);
    if (open && (i == leaves || !isProperty || !bytesEqual(leafName, leafNameLen, current, currentLen))) {
      open = false;
      if (learn) {
        const role = propertyRole(current, currentLen, format);
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
      propertyCount++;
      propertyBytes += currentLen;
    }
    if (!learn || !leafIsString(i)) continue;
    if (equalsAscii(leafRest, leafRestLen, "format")) {
      const role = formatRole(leafValue(i), leafValueLen(i));
      if (role != 0) format = role;
    } else if (equalsAscii(leafRest, leafRestLen, "description")) {
      const e = lowestWordEntry(leafValue(i), leafValueLen(i));
      if (e == WORDS_OOM) return WORDS_OOM;
      best = better(best, e);
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
