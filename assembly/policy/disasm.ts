// The installed policy as text, one fact a line: what `agentsfence disasm` prints.
import {
  NONE, FORMAT_VERSION, OP_DECIDE, OP_TEST_PRESENT, OP_TEST_EQUALS, OP_TEST_IN_INTENT, OP_TEST_GRANTED, OP_TEST_IN_DERIVED, OP_TEST_TRUTHY,
  OP_TEST_INTENT_ANY, OP_TEST_AT_MOST, FLAG_NEGATE, FLAG_ALL, SUBJ_ARG, INTENT_NAMED, INTENT_SOURCE, INTENT_EXACT, INTENT_RULED_OUT, SETKIND_HASH, SETKIND_KEYS, SETKIND_LIST, SETTINGS_COUNT, SET_POLICY_NAME,
  SET_SHELL_WRAPPERS, SET_FAIL_OPEN, SET_SHELL_PROGRAMS,
  SET_SHELL_NETWORK, SET_SHELL_SHELLS, SET_SANDBOX_CAPABILITIES, EFFECT_ALLOW, EFFECT_BLOCK, EFFECT_ASK, EFFECT_CONFINE,
  BUDGET_PER_USER, BUDGET_PER_TEAM, BUDGET_PERIOD_DAY, BUDGET_PERIOD_WEEK,
} from "../../bytecode/format";
import {
  policyBase, strCount, strPtr, strLen, section, setAddr, setKind, setMemberCount, listKey,
  listValue, toolsExactSet, toolsGlobSet, toolCount, toolClass, toolRoleStart, toolRoleCount, toolFlags,
  roleArgPath, roleKind, classCount, classCapability, classRisk, classCodeStart, classCodeLen,
  ruleCount, ruleId, ruleEffect, ruleReason, ruleMessage, ruleSource, insnOp, insnSubject,
  insnFlags, insnArg, insnOperand, insnJump, classifyWordSet, classifyEntryCount,
  classifyEntryClass, classifyRoleSet, intentNegationSet, intentNothingSet, intentExtensionSet,
  intentVerbSet, intentCancelSet, intentVerbCount, intentDeriveCount, intentDeriveClass, intentVerbClassStart, intentVerbClassCount, intentClass,
  settingKeyAt, settingValueAt, budgetCount, budgetId, budgetLimit, budgetAmount, budgetScope, budgetSource, classBudgetStart,
  classBudgetCount, budgetMember,
} from "./decode";
import { outBegin, outByte, outAscii, outBytes, outDecimal, outHexByte, outFinish, Text } from "../abi/out";
import { hasPolicy, writePolicyHash } from "./policy";

function nl(): void {
  outByte(0x0a);
}

// A string index as a quoted string, escaping quotes, backslashes and control bytes.
function quoted(i: u32): void {
  if (i == NONE) { outAscii("none"); return; }
  const p = strPtr(i), n = strLen(i);
  outByte(0x22);
  for (let k: u32 = 0; k < n; k++) {
    const c = <u32>load<u8>(p + k);
    if (c == 0x22 || c == 0x5c) { outByte(0x5c); outByte(c); }
    else if (c == 0x0a) outAscii("\\n");
    else if (c < 0x20 || c == 0x7f) { outAscii("\\x"); outHexByte(c); }
    else outByte(c);
  }
  outByte(0x22);
}

function raw(i: u32): void {
  outBytes(strPtr(i), strLen(i));
}

function index4(i: u32): void {
  if (i < 1000) outByte(0x30);
  if (i < 100) outByte(0x30);
  if (i < 10) outByte(0x30);
  outDecimal(i);
}

function opName(op: u32): Text {
  switch (op) {
    case 0x01: return "DECIDE";
    case 0x10: return "TEST_PRESENT";
    case 0x11: return "TEST_EQUALS";
    case 0x12: return "TEST_IN";
    case 0x13: return "TEST_GLOB";
    case 0x14: return "TEST_PREFIX";
    case 0x15: return "TEST_DOMAIN";
    case 0x16: return "TEST_UNDER";
    case 0x17: return "TEST_IN_INTENT";
    case 0x18: return "TEST_GRANTED";
    case 0x1a: return "TEST_IN_DERIVED";
    case 0x1b: return "TEST_TRUTHY";
    case 0x1c: return "TEST_AT_MOST";
  }
  return "TEST_INTENT_ANY";
}

export function subjectName(s: u32): Text {
  switch (s) {
    case 0: return "tool";
    case 1: return "arg";
    case 2: return "email";
    case 3: return "domain";
    case 4: return "url";
    case 5: return "path";
    case 6: return "program";
    case 7: return "recipient";
    case 8: return "write";
    case 9: return "opaque";
    case 10: return "object";
  }
  return "amount";
}

export function roleName(r: u32): Text {
  switch (r) {
    case 1: return "email";
    case 2: return "url";
    case 3: return "domain";
    case 4: return "path";
    case 5: return "command";
    case 6: return "code";
    case 7: return "recipient";
    case 8: return "patch";
    case 9: return "workdir";
    case 10: return "text";
    case 11: return "written";
    case 12: return "object";
    case 13: return "data";
    case 14: return "tree";
    case 15: return "amount";
    case 16: return "amount_minor";
    case 17: return "members";
  }
  return "heading";
}

// An effect's word in the policy language: the one list of them here, read by disasm, explain
// and the decision record.
export function effectName(e: u32): Text {
  return e == EFFECT_ALLOW ? "allow" : e == EFFECT_BLOCK ? "block" : e == EFFECT_ASK ? "ask" : e == EFFECT_CONFINE ? "confine" : "warn";
}

function settingName(k: u32): Text {
  switch (k) {
    case 1: return "POLICY_NAME";
    case 2: return "MAX_ARGS_BYTES";
    case 3: return "MAX_JSON_DEPTH";
    case 4: return "MAX_LEAVES";
    case 5: return "MAX_TARGETS";
    case 6: return "MAX_INTENT_BYTES";
    case 7: return "MAX_SESSIONS";
    case 8: return "SHELL_WRAPPERS";
    case 9: return "SHELL_NETWORK";
    case 10: return "SHELL_SHELLS";
    case 11: return "MAX_SHELL_DEPTH";
    case 12: return "FAIL_OPEN";
    case 13: return "SHELL_PROGRAMS";
    case 14: return "SANDBOX_CAPABILITIES";
    case 15: return "SANDBOX_HIDE";
    case 16: return "SANDBOX_READ_ONLY";
    case 17: return "SANDBOX_ENV";
    case 18: return "SANDBOX_HOSTS";
  }
  return "SANDBOX_RULES";
}

function className(c: u32): void {
  outAscii("class ");
  outDecimal(c);
  outAscii(" (");
  raw(classCapability(c));
  outAscii(" / ");
  raw(classRisk(c));
  outAscii(")");
}

function setRef(i: u32): void {
  outAscii("set ");
  outDecimal(i);
}

// Members of a set in bucket (HASH, KEYS) or policy (LIST) order: "key" -> value (HASH,
// LIST), "key" (KEYS).
function members(i: u32): void {
  const kind = setKind(i);
  const hashed = kind != SETKIND_LIST;
  const shift: usize = kind == SETKIND_KEYS ? 2 : 3;
  const s = setAddr(i);
  const slots = hashed ? load<u32>(s + 8) : setMemberCount(i);
  for (let j: u32 = 0; j < slots; j++) {
    const e = s + 12 + ((<usize>j) << shift);
    if (hashed && load<u32>(e) == 0) continue;
    outAscii("    ");
    quoted(hashed ? load<u32>(e) - 1 : listKey(i, j));
    if (kind != SETKIND_KEYS) {
      outAscii(" -> ");
      outDecimal(hashed ? load<u32>(e + 4) : listValue(i, j));
    }
    nl();
  }
}

function sets(): void {
  const count = load<u32>(section(2));
  outAscii("sets ");
  outDecimal(count);
  nl();
  for (let i: u32 = 0; i < count; i++) {
    outAscii("  set ");
    outDecimal(i);
    const kind = setKind(i);
    outAscii(kind == SETKIND_HASH ? " HASH " : kind == SETKIND_KEYS ? " KEYS " : " LIST ");
    outDecimal(setMemberCount(i));
    outAscii(" members");
    if (kind != SETKIND_LIST) { outAscii(", "); outDecimal(load<u32>(setAddr(i) + 8)); outAscii(" buckets"); }
    nl();
    members(i);
  }
}

function tools(): void {
  outAscii("tools ");
  outDecimal(toolCount());
  outAscii(", exact_map ");
  setRef(toolsExactSet());
  outAscii(", glob_list ");
  setRef(toolsGlobSet());
  nl();
  for (let t: u32 = 0; t < toolCount(); t++) {
    outAscii("  tool ");
    outDecimal(t);
    outAscii(" -> ");
    className(toolClass(t));
    const start = toolRoleStart(t), end = start + toolRoleCount(t);
    for (let r = start; r < end; r++) {
      outAscii(r == start ? " roles " : ", ");
      raw(roleArgPath(r));
      outAscii("=");
      outAscii(roleName(roleKind(r)));
    }
    if (toolFlags(t) != 0) {
      outAscii(" flags ");
      outDecimal(toolFlags(t));
    }
    nl();
  }
}

function instruction(pc: u32): void {
  outAscii("    ");
  index4(pc);
  outAscii("  ");
  const op = insnOp(pc);
  outAscii(opName(op));
  if (op == OP_DECIDE) {
    outAscii(" ");
    outAscii(effectName(insnFlags(pc)));
    const rule = insnOperand(pc);
    if (rule == NONE) outAscii(" default");
    else { outAscii(" rule "); outDecimal(rule); outAscii(" "); raw(ruleId(rule)); }
    nl();
    return;
  }
  const flags = insnFlags(pc);
  outAscii(" ");
  outAscii(subjectName(insnSubject(pc)));
  if (insnSubject(pc) == SUBJ_ARG) { outAscii(" "); quoted(insnArg(pc)); }
  if (op != OP_TEST_PRESENT) outAscii((flags & FLAG_ALL) != 0 ? " all" : " any");
  if ((flags & FLAG_NEGATE) != 0) outAscii(" not");
  const operand = insnOperand(pc);
  if (op == OP_TEST_PRESENT) outAscii(operand == 1 ? " present" : " absent");
  else if (op == OP_TEST_TRUTHY) outAscii(operand == 1 ? " true" : " false");
  else if (op == OP_TEST_EQUALS || op == OP_TEST_AT_MOST) { outAscii(" "); quoted(operand); }
  else if (op == OP_TEST_IN_INTENT || op == OP_TEST_INTENT_ANY) { if (operand == INTENT_NAMED) outAscii(" named"); else if (operand == INTENT_SOURCE) outAscii(" source"); else if (operand == INTENT_EXACT) outAscii(" exact"); else if (operand == INTENT_RULED_OUT) outAscii(" ruled_out"); }
  else if (op != OP_TEST_GRANTED && op != OP_TEST_IN_DERIVED) { outAscii(" "); setRef(operand); }
  outAscii(" else -> ");
  index4(insnJump(pc));
  nl();
}

function classes(): void {
  outAscii("classes ");
  outDecimal(classCount());
  nl();
  for (let c: u32 = 0; c < classCount(); c++) {
    outAscii("  ");
    className(c);
    outAscii(" code ");
    const start = classCodeStart(c), end = start + classCodeLen(c);
    outDecimal(start);
    outAscii("..");
    outDecimal(end);
    nl();
    for (let pc = start; pc < end; pc++) instruction(pc);
  }
}

function rules(): void {
  outAscii("rules ");
  outDecimal(ruleCount());
  nl();
  for (let r: u32 = 0; r < ruleCount(); r++) {
    outAscii("  rule ");
    outDecimal(r);
    outAscii(" ");
    raw(ruleId(r));
    outAscii(" ");
    outAscii(effectName(ruleEffect(r)));
    outAscii(" reason ");
    if (ruleReason(r) == NONE) { outAscii("rule_"); outAscii(effectName(ruleEffect(r))); } else raw(ruleReason(r));
    outAscii(" source ");
    raw(ruleSource(r));
    if (ruleMessage(r) != NONE) { outAscii(" message "); quoted(ruleMessage(r)); }
    nl();
  }
}

function classify(): void {
  outAscii("classify word_map ");
  setRef(classifyWordSet());
  outAscii(", role_map ");
  setRef(classifyRoleSet());
  outAscii(", entries ");
  outDecimal(classifyEntryCount());
  nl();
  for (let e: u32 = 0; e < classifyEntryCount(); e++) {
    outAscii("  entry ");
    outDecimal(e);
    outAscii(" -> ");
    className(classifyEntryClass(e));
    nl();
  }
}

function intent(): void {
  outAscii("intent negations ");
  setRef(intentNegationSet());
  outAscii(", nothing_words ");
  setRef(intentNothingSet());
  outAscii(", file_extensions ");
  setRef(intentExtensionSet());
  outAscii(", verb_map ");
  setRef(intentVerbSet());
  outAscii(", negation_cancels ");
  setRef(intentCancelSet());
  outAscii(", verbs ");
  outDecimal(intentVerbCount());
  nl();
  for (let v: u32 = 0; v < intentVerbCount(); v++) {
    outAscii("  verb ");
    outDecimal(v);
    outAscii(" prohibits");
    const start = intentVerbClassStart(v), end = start + intentVerbClassCount(v);
    for (let k = start; k < end; k++) { outAscii(" "); className(intentClass(k)); }
    nl();
  }
  outAscii("  derive_from");
  for (let k: u32 = 0; k < intentDeriveCount(); k++) { outAscii(" "); className(intentDeriveClass(k)); }
  nl();
}

function settings(): void {
  outAscii("settings");
  nl();
  for (let k: u32 = 0; k < <u32>SETTINGS_COUNT; k++) {
    const key = settingKeyAt(k), v = settingValueAt(k);
    outAscii("  ");
    outAscii(settingName(key));
    outAscii(" ");
    if (key == SET_POLICY_NAME) quoted(v);
    else if (key == SET_SHELL_WRAPPERS || key == SET_SHELL_NETWORK || key == SET_SHELL_SHELLS || key == SET_FAIL_OPEN ||
             key == SET_SHELL_PROGRAMS || key >= <u32>SET_SANDBOX_CAPABILITIES) setRef(v);
    else outDecimal(v);
    nl();
  }
}

function budgets(): void {
  outAscii("budgets ");
  outDecimal(budgetCount());
  nl();
  for (let b: u32 = 0; b < budgetCount(); b++) {
    outAscii("  budget ");
    outDecimal(b);
    outAscii(" ");
    raw(budgetId(b));
    if (budgetAmount(b) != NONE) { outAscii(" cap "); quoted(budgetAmount(b)); }
    else { outAscii(" limit "); outDecimal(budgetLimit(b)); }
    const scope = budgetScope(b);
    if ((scope & 0xff) == BUDGET_PER_USER) outAscii(" per user");
    else if ((scope & 0xff) == BUDGET_PER_TEAM) outAscii(" per team");
    if ((scope >> 8) == BUDGET_PERIOD_DAY) outAscii(" a day");
    else if ((scope >> 8) == BUDGET_PERIOD_WEEK) outAscii(" a week");
    outAscii(" source ");
    raw(budgetSource(b));
    outAscii(" counts");
    for (let c: u32 = 0; c < classCount(); c++) {
      const start = classBudgetStart(c), end = start + classBudgetCount(c);
      for (let k = start; k < end; k++) if (budgetMember(k) == b) { outAscii(" "); className(c); }
    }
    nl();
  }
}

// The record of `disasm`: the installed policy as text.
export function disasmRecord(): u32 {
  outBegin();
  if (!hasPolicy()) {
    outAscii("no policy is loaded");
    nl();
    return outFinish();
  }
  outAscii("AgentsFence bytecode, format ");
  outDecimal(FORMAT_VERSION);
  outAscii(", ");
  outDecimal(load<u32>(policyBase + 8));
  outAscii(" bytes, sha256 ");
  writePolicyHash();
  nl();
  outAscii("strings ");
  outDecimal(strCount());
  nl();
  sets();
  tools();
  classes();
  rules();
  classify();
  intent();
  settings();
  budgets();
  return outFinish();
}
