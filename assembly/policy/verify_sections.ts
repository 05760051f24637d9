// The verifier's checks of each section (docs/bytecode.md §3-§5), in the order verify.ts runs
// them after the header: strings, sets, rules, code, classes, tools, classify, intent, settings,
// budgets and the glob index. Each fails through verify.ts's fail, with the section and the offset.
import {
  NONE, SEC_STRINGS, SEC_SETS, SEC_TOOLS, SEC_CLASSES, SEC_RULES, SEC_CODE, SEC_CLASSIFY, SEC_INTENT,
  SEC_SETTINGS, SEC_BUDGETS, SETTINGS_COUNT, SETKIND_HASH, SETKIND_LIST, SETKIND_KEYS, INSN_SIZE, OP_DECIDE,
  OP_TEST_PRESENT, OP_TEST_EQUALS, OP_TEST_GLOB, OP_TEST_PREFIX, OP_TEST_IN_INTENT, OP_TEST_GRANTED,
  OP_TEST_INTENT_ANY, OP_TEST_IN_DERIVED, OP_TEST_TRUTHY, OP_TEST_AT_MOST, FLAG_NEGATE, FLAG_ALL, EFFECT_ASK,
  EFFECT_WARN, SUBJ_ARG, SUBJECT_COUNT, INTENT_EXACT, INTENT_RULED_OUT, ROLE_MAX, CLASSIFY_FLAG_MAX, SET_POLICY_NAME,
  SET_MAX_ARGS_BYTES, SET_MAX_JSON_DEPTH, SET_MAX_LEAVES, SET_MAX_TARGETS, SET_MAX_INTENT_BYTES,
  SET_MAX_SESSIONS, SET_SHELL_WRAPPERS, SET_SHELL_NETWORK, SET_SHELL_SHELLS, SET_MAX_SHELL_DEPTH,
  SET_FAIL_OPEN, SET_SHELL_PROGRAMS, SHO_MAX, SHM_MAX, SET_SANDBOX_CAPABILITIES, SET_SANDBOX_HIDE, SET_SANDBOX_READ_ONLY,
  SET_SANDBOX_ENV, SET_SANDBOX_HOSTS, SET_SANDBOX_RULES, EFFECT_CONFINE, BUDGET_PER_TEAM, BUDGET_PERIOD_WEEK,
  SEC_GLOB_INDEX, GLOB_KEY_MAX, TOOL_FLAGS,
} from "../../bytecode/format";
import { validUtf8, fnv1a, bytesEqual, equalsAscii } from "../abi/bytes";
import { section, strPtr, strLen, setAddr, setKind, ruleEffect, BUDGET_ENTRY, setMemberCount, listKey } from "./decode";
import { scratchAlloc } from "../abi/mem";
import { amountSplit, decimalUnits } from "../readers/amount";
import { outAscii, outDecimal, Text } from "../abi/out";
import {
  SUBJECT_OPS, stringCount, setCount, ruleCount, codeCount, classCount, fail, failNum, len, short, sizeWrong,
  stringOk, shortStringOk, amountOk, setOk, setValuesOk,
} from "./verify";

export function strings(): bool {
  const s = section(SEC_STRINGS);
  if (short(SEC_STRINGS, 4)) return false;
  const count = load<u32>(s);
  const table = (<u64>count + 1) << 2;
  if (short(SEC_STRINGS, 4 + table)) return false;
  const blobLen = len(SEC_STRINGS) - 4 - <u32>table;
  const blob = s + 4 + <usize>table;
  if (load<u32>(s + 4) != 0) return fail(SEC_STRINGS, s + 4, "the first offset must be 0");
  for (let i: u32 = 0; i < count; i++) {
    const at = s + 4 + ((<usize>i) << 2);
    const a = load<u32>(at), b = load<u32>(at + 4);
    if (b < a || b > blobLen) return failNum(SEC_STRINGS, at + 4, "offset out of order or past the blob, string", i);
    if (!validUtf8(blob + a, b - a)) return failNum(SEC_STRINGS, blob + a, "invalid UTF-8 in string", i);
  }
  const last = s + 4 + ((<usize>count) << 2);
  if (load<u32>(last) != blobLen) return fail(SEC_STRINGS, last, "the last offset must equal the blob length");
  stringCount = count;
  return true;
}

// A HASH set's buckets: exactly member_count full, every key a string found by the probe of §4
// at its own bucket (so lookups terminate and no member is shadowed by a duplicate).
// A HASH (shift 3: key+1 and value per bucket) or KEYS (shift 2: key+1 only) set.
function hashSet(i: u32, s: usize, members: u32, buckets: u32, shift: usize): bool {
  if (buckets == 0 || (buckets & (buckets - 1)) != 0 || buckets <= members) {
    return failNum(SEC_SETS, s + 8, "bucket_count must be a power of two above member_count, set", i);
  }
  const mask = buckets - 1;
  let full: u32 = 0;
  for (let j: u32 = 0; j < buckets; j++) {
    const e = s + 12 + ((<usize>j) << shift);
    const key1 = load<u32>(e);
    if (key1 == 0) continue;
    full++;
    if (key1 - 1 >= stringCount) return failNum(SEC_SETS, e, "key string index out of range, set", i);
  }
  if (full != members) return failNum(SEC_SETS, s + 4, "member_count does not match the full buckets, set", i);
  for (let j: u32 = 0; j < buckets; j++) {
    const e = s + 12 + ((<usize>j) << shift);
    const key1 = load<u32>(e);
    if (key1 == 0) continue;
    const kp = strPtr(key1 - 1), kl = strLen(key1 - 1);
    let b = fnv1a(kp, kl) & mask;
    while (b != j) {
      const p = s + 12 + ((<usize>b) << shift);
      const other1 = load<u32>(p);
      if (other1 == 0) return failNum(SEC_SETS, e, "key is not reachable by the hash probe, set", i);
      if (bytesEqual(strPtr(other1 - 1), strLen(other1 - 1), kp, kl)) {
        return failNum(SEC_SETS, e, "duplicate key, set", i);
      }
      b = (b + 1) & mask;
    }
  }
  return true;
}

export function sets(): bool {
  const s = section(SEC_SETS);
  const size = <u64>len(SEC_SETS);
  if (short(SEC_SETS, 4)) return false;
  const count = load<u32>(s);
  const table = 4 + ((<u64>count) << 2);
  if (short(SEC_SETS, table)) return false;
  for (let i: u32 = 0; i < count; i++) {
    const at = s + 4 + ((<usize>i) << 2);
    const off = load<u32>(at);
    if ((off & 3) != 0 || <u64>off < table || <u64>off + 12 > size) {
      return failNum(SEC_SETS, at, "set offset misaligned or out of bounds, set", i);
    }
    const a = s + off;
    const kind = <u32>load<u8>(a);
    if ((load<u32>(a) >>> 8) != 0) return failNum(SEC_SETS, a, "padding after the kind must be zero, set", i);
    const members = load<u32>(a + 4), buckets = load<u32>(a + 8);
    if (kind == SETKIND_HASH || kind == SETKIND_KEYS) {
      const shift: usize = kind == SETKIND_HASH ? 3 : 2;
      if (<u64>off + 12 + ((<u64>buckets) << shift) > size) return failNum(SEC_SETS, a, "buckets run past the section, set", i);
      if (!hashSet(i, a, members, buckets, shift)) return false;
    } else if (kind == SETKIND_LIST) {
      if (buckets != 0) return failNum(SEC_SETS, a + 8, "a LIST set has bucket_count 0, set", i);
      if (<u64>off + 12 + ((<u64>members) << 3) > size) return failNum(SEC_SETS, a, "members run past the section, set", i);
      for (let j: u32 = 0; j < members; j++) {
        const e = a + 12 + ((<usize>j) << 3);
        if (load<u32>(e) >= stringCount) return failNum(SEC_SETS, e, "key string index out of range, set", i);
      }
    } else {
      return failNum(SEC_SETS, a, "unknown set kind, set", i);
    }
  }
  setCount = count;
  return true;
}

export function rules(): bool {
  const s = section(SEC_RULES);
  if (short(SEC_RULES, 4)) return false;
  const count = load<u32>(s);
  if (sizeWrong(SEC_RULES, 4 + <u64>count * 20)) return false;
  for (let r: u32 = 0; r < count; r++) {
    const e = s + 4 + <usize>r * 20;
    if (!shortStringOk(SEC_RULES, e, "rule id", 0xffff)) return false;
    if (load<u32>(e + 4) > <u32>EFFECT_WARN) return failNum(SEC_RULES, e + 4, "effect must be 0 to 4, rule", r);
    if (load<u32>(e + 8) != NONE && !shortStringOk(SEC_RULES, e + 8, "rule reason", 0xff)) return false;
    if (load<u32>(e + 12) != NONE && !stringOk(SEC_RULES, e + 12, "rule message")) return false;
    if (!stringOk(SEC_RULES, e + 16, "rule source")) return false;
  }
  ruleCount = count;
  return true;
}

function instruction(i: u32): bool {
  const e = section(SEC_CODE) + 4 + ((<usize>i) << 4);
  const op = <u32>load<u8>(e), subject = <u32>load<u8>(e + 1), flags = <u32>load<u8>(e + 2);
  if (load<u8>(e + 3) != 0) return failNum(SEC_CODE, e + 3, "reserved byte must be zero, instruction", i);
  if (op == OP_DECIDE) {
    const rule = load<u32>(e + 8);
    if (flags > <u32>(rule == NONE ? EFFECT_CONFINE : EFFECT_WARN)) {
      return failNum(SEC_CODE, e + 2, rule == NONE ? "a class default must be 0 to 3, instruction" : "DECIDE effect must be 0 to 4, instruction", i);
    }
    if (rule == NONE) return true;
    if (rule >= ruleCount) return failNum(SEC_CODE, e + 8, "DECIDE names a rule out of range, instruction", i);
    if (ruleEffect(rule) != flags) return failNum(SEC_CODE, e + 2, "DECIDE effect differs from its rule's, instruction", i);
    return true;
  }
  if (op < <u32>OP_TEST_PRESENT || op > <u32>OP_TEST_AT_MOST) return failNum(SEC_CODE, e, "unknown opcode, instruction", i);
  if ((flags & ~(FLAG_NEGATE | FLAG_ALL)) != 0) return failNum(SEC_CODE, e + 2, "unknown flag bits, instruction", i);
  if (subject >= <u32>SUBJECT_COUNT) return failNum(SEC_CODE, e + 1, "unknown subject, instruction", i);
  if (((<u32>load<u16>(SUBJECT_OPS + (<usize>subject << 1)) >> (op - OP_TEST_PRESENT)) & 1) == 0) {
    return failNum(SEC_CODE, e, "this test does not apply to this subject, instruction", i);
  }
  if (subject == SUBJ_ARG) {
    if (!stringOk(SEC_CODE, e + 4, "argument path")) return false;
  } else if (load<u32>(e + 4) != NONE) {
    return failNum(SEC_CODE, e + 4, "arg must be NONE for this subject, instruction", i);
  }
  const operand = e + 8;
  switch (op) {
    case OP_TEST_PRESENT:
      if (load<u32>(operand) > 1) return failNum(SEC_CODE, operand, "PRESENT operand must be 0 or 1, instruction", i);
      return true;
    case OP_TEST_TRUTHY:
      if (load<u32>(operand) > 1) return failNum(SEC_CODE, operand, "TRUTHY operand must be 0 or 1, instruction", i);
      return true;
    case OP_TEST_IN_INTENT:
      if (load<u32>(operand) > <u32>INTENT_RULED_OUT) return failNum(SEC_CODE, operand, "IN_INTENT operand must be 0, 1, 2, 3 or 4, instruction", i);
      return true;
    case OP_TEST_GRANTED:
      if (load<u32>(operand) != 0) return failNum(SEC_CODE, operand, "GRANTED operand must be 0, instruction", i);
      return true;
    case OP_TEST_INTENT_ANY:
      if (load<u32>(operand) > <u32>INTENT_EXACT) return failNum(SEC_CODE, operand, "INTENT_ANY operand must be 0, 1, 2 or 3, instruction", i);
      return true;
    case OP_TEST_IN_DERIVED:
      if (load<u32>(operand) != 0) return failNum(SEC_CODE, operand, "IN_DERIVED operand must be 0, instruction", i);
      return true;
    case OP_TEST_EQUALS:
      return stringOk(SEC_CODE, operand, "EQUALS operand");
    case OP_TEST_AT_MOST:
      return amountOk(SEC_CODE, operand, "AT_MOST operand");
    case OP_TEST_GLOB:
    case OP_TEST_PREFIX:
      return setOk(SEC_CODE, operand, "test operand", SETKIND_LIST);
  }
  return setOk(SEC_CODE, operand, "test operand", SETKIND_KEYS); // IN, DOMAIN, UNDER
}

export function code(): bool {
  const s = section(SEC_CODE);
  if (short(SEC_CODE, 4)) return false;
  const count = load<u32>(s);
  if (sizeWrong(SEC_CODE, 4 + <u64>count * INSN_SIZE)) return false;
  for (let i: u32 = 0; i < count; i++) if (!instruction(i)) return false;
  codeCount = count;
  return true;
}

// A class's code range: non-empty, inside CODE, ending in DECIDE, every jump strictly forward
// and inside the range, so a run ends within code_len steps.
function classCode(c: u32, e: usize): bool {
  const start = load<u32>(e + 8), n = load<u32>(e + 12);
  if (n == 0) return failNum(SEC_CLASSES, e + 12, "empty code range, class", c);
  if (<u64>start + <u64>n > <u64>codeCount) return failNum(SEC_CLASSES, e + 8, "code range outside CODE, class", c);
  const end = start + n;
  const code = section(SEC_CODE) + 4;
  // The class default ends the range: a run that goes on past a rule's DECIDE (a warn rule, one
  // that held maybe, §5.4) always meets it.
  const last = code + ((<usize>(end - 1)) << 4);
  if (load<u8>(last) != OP_DECIDE || load<u32>(last + 8) != NONE) {
    failNum(SEC_CODE, last, "instruction", end - 1);
    outAscii(" ends class ");
    outDecimal(c);
    outAscii(" but is not the class default's DECIDE");
    return false;
  }
  for (let i = start; i < end - 1; i++) {
    const insn = code + ((<usize>i) << 4);
    if (load<u8>(insn) == OP_DECIDE) continue;
    const to = load<u32>(insn + 12);
    if (to <= i) {
      failNum(SEC_CODE, insn + 12, "instruction", i);
      outAscii(" jumps backward (to ");
      outDecimal(to);
      outAscii(")");
      return false;
    }
    if (to >= end) {
      failNum(SEC_CODE, insn + 12, "instruction", i);
      outAscii(" jumps past the end of class ");
      outDecimal(c);
      outAscii(" (to ");
      outDecimal(to);
      outAscii(")");
      return false;
    }
  }
  return true;
}

function isUnknown(i: u32): bool {
  return equalsAscii(strPtr(i), strLen(i), "unknown");
}

export function classes(): bool {
  const s = section(SEC_CLASSES);
  if (short(SEC_CLASSES, 4)) return false;
  const count = load<u32>(s);
  if (count == 0) return fail(SEC_CLASSES, s, "class 0 (unknown) is missing");
  if (sizeWrong(SEC_CLASSES, 4 + ((<u64>count) << 4))) return false;
  for (let c: u32 = 0; c < count; c++) {
    const e = s + 4 + ((<usize>c) << 4);
    if (!shortStringOk(SEC_CLASSES, e, "capability", 0xffff)) return false;
    if (!shortStringOk(SEC_CLASSES, e + 4, "risk", 0xff)) return false;
    if (!classCode(c, e)) return false;
  }
  if (!isUnknown(load<u32>(s + 4)) || !isUnknown(load<u32>(s + 8))) {
    return fail(SEC_CLASSES, s + 4, "class 0 must be unknown / unknown");
  }
  classCount = count;
  return true;
}

function classIndexOk(kind: u32, at: usize, what: Text): bool {
  const c = load<u32>(at);
  if (c < classCount) return true;
  failNum(kind, at, what, c);
  outAscii(" is out of range (");
  outDecimal(classCount);
  outAscii(" classes)");
  return false;
}

export function tools(): bool {
  const s = section(SEC_TOOLS);
  if (short(SEC_TOOLS, 12)) return false;
  const count = load<u32>(s + 8);
  if (short(SEC_TOOLS, 16 + <u64>count * 16)) return false;
  const roleTable = s + 12 + <usize>count * 16;
  const roles = load<u32>(roleTable);
  if (sizeWrong(SEC_TOOLS, 16 + <u64>count * 16 + ((<u64>roles) << 3))) return false;
  if (!setOk(SEC_TOOLS, s, "exact_map", SETKIND_HASH) || !setValuesOk(SEC_TOOLS, s, "exact_map", count, false)) return false;
  if (!setOk(SEC_TOOLS, s + 4, "glob_list", SETKIND_LIST) || !setValuesOk(SEC_TOOLS, s + 4, "glob_list", count, false)) return false;
  for (let t: u32 = 0; t < count; t++) {
    const e = s + 12 + <usize>t * 16;
    if (!classIndexOk(SEC_TOOLS, e, "tool class")) return false;
    if (<u64>load<u32>(e + 4) + <u64>load<u32>(e + 8) > <u64>roles) return failNum(SEC_TOOLS, e + 4, "role range out of bounds, tool", t);
    if ((load<u32>(e + 12) & ~TOOL_FLAGS) != 0) return failNum(SEC_TOOLS, e + 12, "unknown tool flags", load<u32>(e + 12));
  }
  for (let r: u32 = 0; r < roles; r++) {
    const e = roleTable + 4 + ((<usize>r) << 3);
    if (!stringOk(SEC_TOOLS, e, "role argument path")) return false;
    const role = load<u32>(e + 4);
    if (role < 1 || role > <u32>ROLE_MAX) return failNum(SEC_TOOLS, e + 4, "unknown argument role", role);
  }
  return true;
}

export function classify(): bool {
  const s = section(SEC_CLASSIFY);
  if (short(SEC_CLASSIFY, 8)) return false;
  const entries = load<u32>(s + 4);
  if (sizeWrong(SEC_CLASSIFY, 24 + (<u64>entries) * 12)) return false;
  // A word maps to entry·2 (a verb) or entry·2 + 1 (an object).
  if (!setOk(SEC_CLASSIFY, s, "word_map", SETKIND_HASH) || !setValuesOk(SEC_CLASSIFY, s, "word_map", entries << 1, false)) return false;
  for (let e: u32 = 0; e < entries; e++) {
    const at = s + 8 + (<usize>e) * 12;
    if (!classIndexOk(SEC_CLASSIFY, at, "entry class")) return false;
    const flags = load<u32>(at + 4);
    if ((flags & ~CLASSIFY_FLAG_MAX) != 0) return failNum(SEC_CLASSIFY, at + 4, "unknown entry flags", flags);
    const roles = load<u32>(at + 8);
    // Bit r stands for role r, 1 ≤ r ≤ ROLE_MAX.
    if ((roles & 1) != 0 || (roles >> (<u32>ROLE_MAX + 1)) != 0) return failNum(SEC_CLASSIFY, at + 8, "unknown entry roles", roles);
  }
  const roleMap = s + 8 + (<usize>entries) * 12;
  return setOk(SEC_CLASSIFY, roleMap, "role_map", SETKIND_HASH) && setValuesOk(SEC_CLASSIFY, roleMap, "role_map", ROLE_MAX, true)
    && setOk(SEC_CLASSIFY, roleMap + 4, "trusted", SETKIND_KEYS)
    // An exposure argument's value is setting·16 + level, of at most 8 settings.
    && setOk(SEC_CLASSIFY, roleMap + 8, "exposure_args", SETKIND_HASH) && setValuesOk(SEC_CLASSIFY, roleMap + 8, "exposure_args", 128, false)
    && setOk(SEC_CLASSIFY, roleMap + 12, "exposure_words", SETKIND_HASH);
}

export function intent(): bool {
  const s = section(SEC_INTENT);
  if (short(SEC_INTENT, 24)) return false;
  const verbs = load<u32>(s + 20);
  if (short(SEC_INTENT, 28 + ((<u64>verbs) << 3))) return false;
  const totalAt = s + 24 + ((<usize>verbs) << 3);
  const total = load<u32>(totalAt);
  const deriveAt: u64 = 28 + ((<u64>verbs) << 3) + ((<u64>total) << 2);
  if (short(SEC_INTENT, deriveAt + 4)) return false;
  const derives = load<u32>(s + <usize>deriveAt);
  const recordsAt: u64 = deriveAt + 4 + ((<u64>derives) << 2);
  if (short(SEC_INTENT, recordsAt + 4)) return false;
  const records = load<u32>(s + <usize>recordsAt);
  const ownAt: u64 = recordsAt + 4 + ((<u64>records) << 2);
  if (short(SEC_INTENT, ownAt + 4)) return false;
  const owns = load<u32>(s + <usize>ownAt);
  const grammarAt: u64 = ownAt + 4 + ((<u64>owns) << 2);
  if (sizeWrong(SEC_INTENT, grammarAt + 12)) return false;
  if (!setOk(SEC_INTENT, s + <usize>grammarAt, "grammar", SETKIND_HASH)) return false;
  // Actions are bits 0-30: bit 31 is the evaluator's mark of a verb that names none (§7.5).
  const toolsAt = s + <usize>grammarAt + 4, verbsAt = s + <usize>grammarAt + 8;
  if (!setOk(SEC_INTENT, toolsAt, "action_tools", SETKIND_HASH) || !setValuesOk(SEC_INTENT, toolsAt, "action_tools", 0x80000000, false)) return false;
  if (!setOk(SEC_INTENT, verbsAt, "action_verbs", SETKIND_HASH) || !setValuesOk(SEC_INTENT, verbsAt, "action_verbs", 0x80000000, false)) return false;
  if (!setOk(SEC_INTENT, s, "negations", SETKIND_KEYS)) return false;
  if (!setOk(SEC_INTENT, s + 4, "nothing_words", SETKIND_KEYS)) return false;
  if (!setOk(SEC_INTENT, s + 8, "file_extensions", SETKIND_KEYS)) return false;
  if (!setOk(SEC_INTENT, s + 12, "verb_map", SETKIND_HASH) || !setValuesOk(SEC_INTENT, s + 12, "verb_map", verbs, false)) return false;
  if (!setOk(SEC_INTENT, s + 16, "negation_cancels", SETKIND_KEYS)) return false;
  for (let v: u32 = 0; v < verbs; v++) {
    const e = s + 24 + ((<usize>v) << 3);
    if (<u64>load<u32>(e) + <u64>load<u32>(e + 4) > <u64>total) return failNum(SEC_INTENT, e, "class range out of bounds, verb", v);
  }
  for (let k: u32 = 0; k < total; k++) {
    if (!classIndexOk(SEC_INTENT, totalAt + 4 + ((<usize>k) << 2), "prohibited class")) return false;
  }
  for (let k: u32 = 0; k < derives; k++) {
    if (!classIndexOk(SEC_INTENT, s + <usize>deriveAt + 4 + ((<usize>k) << 2), "derive class")) return false;
  }
  for (let k: u32 = 0; k < records; k++) {
    if (!classIndexOk(SEC_INTENT, s + <usize>recordsAt + 4 + ((<usize>k) << 2), "records class")) return false;
  }
  for (let k: u32 = 0; k < owns; k++) {
    if (!classIndexOk(SEC_INTENT, s + <usize>ownAt + 4 + ((<usize>k) << 2), "own records class")) return false;
  }
  return true;
}

// Inclusive bounds of each setting's value (§3.1); string and set keys are checked apart.
function settingMin(key: u32): u32 {
  switch (key) {
    case SET_MAX_ARGS_BYTES: return 2;
    case SET_MAX_JSON_DEPTH: case SET_MAX_LEAVES: case SET_MAX_TARGETS: case SET_MAX_INTENT_BYTES:
    case SET_MAX_SESSIONS: case SET_MAX_SHELL_DEPTH: return 1;
  }
  return 0;
}

function settingMax(key: u32): u32 {
  switch (key) {
    case SET_MAX_JSON_DEPTH: return 256;
    case SET_MAX_SESSIONS: return 1048575;
    case SET_MAX_SHELL_DEPTH: return 16;
  }
  return 0xffffffff;
}

export function settings(): bool {
  const s = section(SEC_SETTINGS);
  if (short(SEC_SETTINGS, 4)) return false;
  const count = load<u32>(s);
  if (count != <u32>SETTINGS_COUNT) return failNum(SEC_SETTINGS, s, "setting count must be 19, found", count);
  if (sizeWrong(SEC_SETTINGS, 4 + ((<u64>count) << 3))) return false;
  for (let k: u32 = 0; k < count; k++) {
    const e = s + 4 + ((<usize>k) << 3);
    const key = load<u32>(e);
    if (key != k + 1) {
      if (k > 0 && key <= load<u32>(e - 8)) return failNum(SEC_SETTINGS, e, "keys are not sorted or repeat, key", key);
      return failNum(SEC_SETTINGS, e, "key missing or unknown, found", key);
    }
    if (key == SET_POLICY_NAME) {
      if (!stringOk(SEC_SETTINGS, e + 4, "POLICY_NAME")) return false;
    } else if (key == SET_SHELL_WRAPPERS || key == SET_SHELL_NETWORK || key == SET_SHELL_SHELLS) {
      if (!setOk(SEC_SETTINGS, e + 4, "shell program set", SETKIND_KEYS)) return false;
    } else if (key == SET_FAIL_OPEN) {
      if (!setOk(SEC_SETTINGS, e + 4, "risk class set", SETKIND_KEYS)) return false;
    } else if (key == SET_SHELL_PROGRAMS) {
      if (!shellProgramsOk(e + 4)) return false;
    } else if (key == SET_SANDBOX_CAPABILITIES || key == SET_SANDBOX_RULES) {
      if (!setOk(SEC_SETTINGS, e + 4, "sandbox capability set", SETKIND_KEYS)) return false;
    } else if (key == SET_SANDBOX_HIDE || key == SET_SANDBOX_READ_ONLY || key == SET_SANDBOX_ENV) {
      if (!setOk(SEC_SETTINGS, e + 4, "sandbox path or name list", SETKIND_LIST)) return false;
    } else if (key == SET_SANDBOX_HOSTS) {
      if (!sandboxHostsOk(e + 4)) return false;
    } else {
      const v = load<u32>(e + 4);
      if (v < settingMin(key) || v > settingMax(key)) {
        failNum(SEC_SETTINGS, e + 4, "value", v);
        outAscii(" out of range for key ");
        outDecimal(key);
        return false;
      }
    }
  }
  return true;
}

// A HASH set whose every value is a set of kind `kind`: SHELL_PROGRAMS (options) and
// SANDBOX_HOSTS (hosts), keyed by a program's name.
function programMapOk(at: usize, what: Text, kind: u32): bool {
  if (!setOk(SEC_SETTINGS, at, what, SETKIND_HASH)) return false;
  const programs = setAddr(load<u32>(at));
  const buckets = load<u32>(programs + 8);
  for (let b: u32 = 0; b < buckets; b++) {
    const e = programs + 12 + ((<usize>b) << 3);
    if (load<u32>(e) == 0) continue;
    const value = load<u32>(e + 4);
    if (value >= setCount || setKind(value) != kind) return failNum(SEC_SETTINGS, at, "a program's value is not the set its map holds, set", value);
  }
  return true;
}

function sandboxHostsOk(at: usize): bool {
  return programMapOk(at, "sandbox host map", SETKIND_KEYS);
}

// SHELL_PROGRAMS (§3.4): a HASH set of program names whose values are HASH sets of options, each
// option's value only option flags, "@"'s only operand flags, a "%TOKEN"'s and a ">PATH"'s 0.
function shellProgramsOk(at: usize): bool {
  if (!programMapOk(at, "shell program map", SETKIND_HASH)) return false;
  const programs = setAddr(load<u32>(at));
  const buckets = load<u32>(programs + 8);
  for (let b: u32 = 0; b < buckets; b++) {
    const e = programs + 12 + ((<usize>b) << 3);
    if (load<u32>(e) == 0) continue;
    const options = load<u32>(e + 4);
    const o = setAddr(options);
    const slots = load<u32>(o + 8);
    for (let k: u32 = 0; k < slots; k++) {
      const m = o + 12 + ((<usize>k) << 3);
      const key1 = load<u32>(m);
      if (key1 == 0) continue;
      const p = strPtr(key1 - 1), n = strLen(key1 - 1);
      const v = load<u32>(m + 4);
      const c = n > 0 ? <u32>load<u8>(p) : 0;
      const limit: u32 = n == 1 && c == 0x40 ? (<u32>SHM_MAX << 1) - 1 : c == 0x25 || c == 0x3e ? 0 : (<u32>SHO_MAX << 1) - 1;
      if ((v & ~limit) != 0) return failNum(SEC_SETTINGS, at, "shell program options: undefined flags in set", options);
    }
  }
  return true;
}

// Budgets (§3.2): a budget of calls with a limit ≥ 1, or one of sums with limit 0 and a
// positive cap, each with a known scope and period; one member range per class, each strictly ascending.
export function budgets(): bool {
  const s = section(SEC_BUDGETS);
  if (short(SEC_BUDGETS, 4)) return false;
  const count = load<u32>(s);
  const classTable = s + 4 + <usize>count * BUDGET_ENTRY;
  if (short(SEC_BUDGETS, 8 + <u64>count * <u64>BUDGET_ENTRY)) return false;
  const classesListed = load<u32>(classTable);
  if (classesListed != classCount) {
    failNum(SEC_BUDGETS, classTable, "class_count", classesListed);
    outAscii(" differs from the CLASSES count ");
    outDecimal(classCount);
    return false;
  }
  const memberTable = classTable + 4 + ((<usize>classesListed) << 3);
  if (short(SEC_BUDGETS, 12 + <u64>count * <u64>BUDGET_ENTRY + ((<u64>classesListed) << 3))) return false;
  const total = load<u32>(memberTable);
  if (sizeWrong(SEC_BUDGETS, 12 + <u64>count * <u64>BUDGET_ENTRY + ((<u64>classesListed) << 3) + ((<u64>total) << 2))) return false;
  for (let b: u32 = 0; b < count; b++) {
    const e = s + 4 + <usize>b * BUDGET_ENTRY;
    if (!shortStringOk(SEC_BUDGETS, e, "budget id", 0xffff)) return false;
    const sums = load<u32>(e + 12) != NONE;
    if (!sums && load<u32>(e + 4) == 0) return failNum(SEC_BUDGETS, e + 4, "limit must be at least 1, budget", b);
    if (sums && load<u32>(e + 4) != 0) return failNum(SEC_BUDGETS, e + 4, "a budget of sums has limit 0, budget", b);
    if (!stringOk(SEC_BUDGETS, e + 8, "budget source")) return false;
    if (sums) {
      if (!amountOk(SEC_BUDGETS, e + 12, "budget cap")) return false;
      const cap = load<u32>(e + 12);
      if (decimalUnits(strPtr(cap), <u32>amountSplit(strPtr(cap), strLen(cap)), false) == 0) return failNum(SEC_BUDGETS, e + 12, "the cap must be above 0, budget", b);
    }
    const scope = load<u32>(e + 16);
    if ((scope & 0xff) > <u32>BUDGET_PER_TEAM || (scope >> 8) > <u32>BUDGET_PERIOD_WEEK) return failNum(SEC_BUDGETS, e + 16, "unknown scope or period, budget", b);
  }
  for (let c: u32 = 0; c < classesListed; c++) {
    const e = classTable + 4 + ((<usize>c) << 3);
    const start = load<u32>(e), n = load<u32>(e + 4);
    if (<u64>start + <u64>n > <u64>total) return failNum(SEC_BUDGETS, e, "member range out of bounds, class", c);
    for (let k = start; k < start + n; k++) {
      const m = load<u32>(memberTable + 4 + ((<usize>k) << 2));
      if (m >= count) return failNum(SEC_BUDGETS, memberTable + 4 + ((<usize>k) << 2), "budget index out of range, class", c);
      if (k > start && m <= load<u32>(memberTable + ((<usize>k) << 2))) {
        return failNum(SEC_BUDGETS, memberTable + 4 + ((<usize>k) << 2), "budget indices not strictly ascending, class", c);
      }
    }
  }
  return true;
}

// GLOB_INDEX (§3.6): each index belongs to a LIST set, files each of its members exactly once,
// and files a pattern only under a key that every value it matches has, so a test that matches
// only the patterns filed under its value's keys finds every pattern that matches.
export function globIndex(): bool {
  const s = section(SEC_GLOB_INDEX);
  if (short(SEC_GLOB_INDEX, 4)) return false;
  const count = load<u32>(s);
  let end: u64 = 4 + ((<u64>count) << 3);
  if (short(SEC_GLOB_INDEX, end)) return false;
  for (let i: u32 = 0; i < count; i++) {
    const e = s + 4 + ((<usize>i) << 3);
    if (!setOk(SEC_GLOB_INDEX, e, "indexed set", SETKIND_LIST)) return false;
    if ((i > 0 && load<u32>(e) <= load<u32>(e - 8)) || <u64>load<u32>(e + 4) != end) {
      return failNum(SEC_GLOB_INDEX, e, "indices not back to back in ascending order of set, index", i);
    }
    if (short(SEC_GLOB_INDEX, end + 28)) return false;
    const a = s + <usize>end;
    const filed = <u64>load<u32>(a) + <u64>load<u32>(a + 4) + <u64>load<u32>(a + 8);
    const size = 28 + (filed << 3) + ((<u64>load<u32>(a + 12)) << 2);
    if (short(SEC_GLOB_INDEX, end + size)) return false;
    if (filed + <u64>load<u32>(a + 12) != <u64>setMemberCount(load<u32>(e))) {
      return failNum(SEC_GLOB_INDEX, a, "an index must file every member of its set once, index", i);
    }
    if (!indexFilesSoundly(load<u32>(e), a)) return false;
    end += size;
  }
  return !sizeWrong(SEC_GLOB_INDEX, end);
}

const GLOB_SEGMENT: u32 = 0;
const GLOB_HEAD: u32 = 1;
const GLOB_TAIL: u32 = 2;
const GLOB_REST: u32 = 3;

function indexFilesSoundly(set: u32, a: usize): bool {
  const members = setMemberCount(set);
  const seen = scratchAlloc(<usize>((members + 7) >> 3));
  if (seen == 0) return fail(SEC_GLOB_INDEX, a, "out of memory");
  memory.fill(seen, 0, <usize>((members + 7) >> 3));
  let e = a + 28;
  for (let kind: u32 = GLOB_SEGMENT; kind <= GLOB_REST; kind++) {
    const stride: usize = kind == GLOB_REST ? 4 : 8;
    const n = load<u32>(a + (<usize>kind << 2));
    for (let j: u32 = 0; j < n; j++, e += stride) {
      const member = load<u32>(e + stride - 4), key = load<u32>(e);
      const bit = seen + (member >> 3), mask: u32 = 1 << (member & 7);
      const sound = member < members && (load<u8>(bit) & mask) == 0 && (kind == GLOB_REST ||
        ((j == 0 || load<u32>(e - 8) < key || (load<u32>(e - 8) == key && load<u32>(e - 4) < member)) &&
          keyOfPattern(listKey(set, member), kind, key, load<u32>(a + 16 + (<usize>kind << 2)))));
      if (!sound) return failNum(SEC_GLOB_INDEX, e, "an entry files a member twice, out of order or under a key it lacks, set", set);
      store<u8>(bit, <u32>load<u8>(bit) | mask);
    }
  }
  return true;
}

@inline function isWild(c: u32): bool {
  return c == 0x2a || c == 0x3f;
}

// Whether pattern string `pattern` has the key of `kind` whose FNV-1a is `hash`: a segment without
// wildcards, or a head or tail of its file name (the bytes after its last '/', holding no `**`)
// of a length in `lengths` that lies before its first or after its last wildcard.
function keyOfPattern(pattern: u32, kind: u32, hash: u32, lengths: u32): bool {
  const p = strPtr(pattern), n = strLen(pattern);
  const c0 = n > 0 ? <u32>load<u8>(p) : 0;
  if (c0 == 0x7e || c0 == 0x24 || c0 == 0x2e) return false; // matched in its forms (§6.5)
  if (kind == GLOB_SEGMENT) {
    let start: u32 = 0, literal = true;
    for (let i: u32 = 0; i <= n; i++) {
      const c = i < n ? <u32>load<u8>(p + i) : 0x2f;
      if (c != 0x2f) { if (isWild(c)) literal = false; continue; }
      const l = min(i - start, GLOB_KEY_MAX);
      if (literal && l > 0 && ((lengths >> (l - 1)) & 1) != 0 && fnv1a(p + start, i - start) == hash) return true;
      start = i + 1;
      literal = true;
    }
    return false;
  }
  let name = n;
  while (name > 0 && load<u8>(p + name - 1) != 0x2f) name--;
  let literal: u32 = 0; // the head's or the tail's length
  // A literal member may be read as a path with all below it, whose file name is another's.
  let wildcards = false;
  for (let i: u32 = 0; i < n; i++) {
    const c = <u32>load<u8>(p + i);
    if (isWild(c)) wildcards = true;
    if (i >= name && c == 0x2a && i + 1 < n && load<u8>(p + i + 1) == 0x2a) return false; // `**` may hold a '/'
  }
  if (!wildcards) return false;
  while (name + literal < n && !isWild(load<u8>(kind == GLOB_HEAD ? p + name + literal : p + n - literal - 1))) literal++;
  for (let l: u32 = 1; l <= min(literal, GLOB_KEY_MAX); l++) {
    if (((lengths >> (l - 1)) & 1) != 0 && fnv1a(kind == GLOB_HEAD ? p + name : p + n - l, l) == hash) return true;
  }
  return false;
}
