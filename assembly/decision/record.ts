// The decision record of docs/bytecode.md §8.1, written for the call decide.ts is deciding: the
// header's fields, the message (a rule's template filled in, or the fence's own sentence), the
// witness, the warned rules and the call's targets; one writer per outcome (a rule's verdict, an
// unread call, a narrowing, the intent's prohibition, a budget, a fault).
import {
  NONE, EFFECT_ALLOW, EFFECT_BLOCK, EFFECT_ASK, EFFECT_CONFINE, KIND_ALLOW, KIND_BLOCK, KIND_ASK, KIND_CONFINE, DECISION_HEAD_SIZE,
  SUBJ_OPAQUE, SUBJ_AMOUNT, SUBJ_WRITE, DECISION_POSSIBLE, DECISION_OPAQUE, DECISION_MOVES,
  BUDGET_PER_USER, BUDGET_PER_TEAM, BUDGET_PERIOD_DAY, BUDGET_PERIOD_WEEK,
} from "../../bytecode/format";
import {
  strPtr, strLen, classCapability, classRisk, ruleId, ruleReason, ruleMessage, ruleEffect, budgetId, budgetLimit,
  budgetAmount, budgetScope,
} from "../policy/decode";
import { equalsAscii, sameBytes } from "../abi/bytes";
import { effectName } from "../policy/disasm";
import {
  outBegin, outZeros, outEntry, outAscii, outByte, outBytes, outDecimal, outLength, outU16, outPatchU8,
  outPatchU16, outPatchU32, outFinish, outFailed, Text, textLen,
} from "../abi/out";
import {
  decidedRule, decidedMaybe, witness, witnessLen, hasWitness, deltaCount, deltaSubject, deltaPtr, deltaLen,
  warnedCount, warnedRule,
} from "./eval";
import { budgetCancel, budgetSpent, budgetReserved, budgetOfSums, outCount } from "./budget";
import { targetCount, targetKind, targetEntryKind, targetPtr, targetLen } from "../readers/targets";
import { movesDirectory } from "../readers/targettable";
import { intentConditionOf, conditionLen, CONDITION_OF_CLASS } from "../intent/intent";
import { name, nameLen, nameOk, cls, reservation, decideStore } from "./decide";

// Header offsets of the record (§8.1).
const AT_REASON: u32 = 1;
const AT_RULE: u32 = 2;
const AT_CAPABILITY: u32 = 4;
const AT_RISK: u32 = 6;
const AT_FLAGS: u32 = 7;
const AT_MESSAGE: u32 = 8;
const AT_WITNESS: u32 = 12;
const AT_RESERVATION: u32 = 16;
const AT_WARNED: u32 = 20;

let fieldStart: u32 = 0; // where the field being written began
let flags: u32 = 0;      // the header's flags, written by endRecord

// ---- the decision record ----
function begin(kind: u32): void {
  outBegin();
  outZeros(DECISION_HEAD_SIZE);
  outPatchU8(0, kind);
  fieldStart = DECISION_HEAD_SIZE;
  flags = 0;
}

// The call's targets, after the witness to the record's end (§8.1): what the audit log keeps
// of the call's arguments. Only records written after the targets were made carry them.
function outTargets(): void {
  const n = targetCount();
  for (let i: u32 = 0; i < n; i++) outEntry(targetEntryKind(i), targetPtr(i), targetLen(i));
}

// The rules with effect warn that held, after the witness (§8.1): u16 length and id each.
function outWarned(): void {
  for (let k: u32 = 0; k < warnedCount; k++) {
    const id = ruleId(warnedRule(k));
    outU16(strLen(id));
    outString(id);
  }
  endField(AT_WARNED, 4);
}

// The witness field, then the warned one (the caller has ended the message).
function outWitnessAndWarned(): void {
  for (let k: u32 = 0; k < deltaCount; k++) outEntry(deltaSubject(k), deltaPtr(k), deltaLen(k));
  endField(AT_WITNESS, 4);
  outWarned();
}

// Writes the reservation id into a verdict's record. A reservation whose record could not be
// written is released: the host never learns its id, so it could never settle it.
function endRecord(slot: i32): u32 {
  outPatchU8(AT_FLAGS, flags | (movesDirectory ? DECISION_MOVES : 0));
  if (reservation != 0) {
    if (outFailed()) budgetCancel(slot, reservation);
    else outPatchU32(AT_RESERVATION, reservation);
  }
  return outFinish();
}

// Patches the length of the field just written into the header at `at` (1, 2 or 4 bytes wide).
function endField(at: u32, width: u32): void {
  const n = outLength() - fieldStart;
  if (width == 1) outPatchU8(at, n);
  else if (width == 2) outPatchU16(at, n);
  else outPatchU32(at, n);
  fieldStart = outLength();
}

function outString(i: u32): void {
  outBytes(strPtr(i), strLen(i));
}


// Capability and risk fields, then "AgentsFence <verb> <tool>: ".
function classFieldsAndLead(kind: u32): void {
  if (cls >= 0) outString(classCapability(<u32>cls));
  endField(AT_CAPABILITY, 2);
  if (cls >= 0) outString(classRisk(<u32>cls));
  endField(AT_RISK, 1);
  outAscii("AgentsFence ");
  outAscii(kind == KIND_ALLOW ? "allowed " : kind == KIND_BLOCK ? "blocked " : kind == KIND_CONFINE ? "confines " : "asks about ");
  if (nameOk) outBytes(name, nameLen); else outAscii("a tool with an unreadable name");
  outAscii(": ");
}

// A block for a fault: the caller writes the sentence, then calls faultEnd with the same reason.
export function faultBegin(reason: Text): void {
  begin(KIND_BLOCK);
  outAscii(reason);
  endField(AT_REASON, 1);
  endField(AT_RULE, 2);
  classFieldsAndLead(KIND_BLOCK);
}

export function faultEnd(reason: Text): u32 {
  outAscii(" [");
  outAscii(reason);
  outAscii("]");
  endField(AT_MESSAGE, 4);
  return outFinish();
}

export function fault(reason: Text, sentence: Text): u32 {
  faultBegin(reason);
  outAscii(sentence);
  return faultEnd(reason);
}

function capabilityAndRisk(): void {
  outString(classCapability(<u32>cls));
  outAscii(" (");
  outString(classRisk(<u32>cls));
  outAscii(")");
}

// Whether the template at offset i starts with placeholder `s`.
function placeholderAt(t: usize, len: u32, i: u32, s: Text): bool {
  const n = textLen(s);
  return len - i >= n && equalsAscii(t + i, n, s);
}

// {value}: every value that made the deciding rule hold (its witness, §8.1), as a person must see
// them all to answer ("tom@x and ceo@rival.example", not the first alone): at most VALUES_SHOWN,
// then how many more; the one witness when the rule's tests named none.
const VALUES_SHOWN: u32 = 4;
function outValues(): void {
  if (deltaCount == 0) { if (hasWitness) outBytes(witness, witnessLen); return; }
  let shown: u32 = 0;
  for (let k: u32 = 0; k < deltaCount; k++) {
    let seen = false;
    for (let j: u32 = 0; j < k && !seen; j++) seen = deltaLen(j) == deltaLen(k) && sameBytes(deltaPtr(j), deltaPtr(k), deltaLen(k));
    if (seen) continue;
    if (shown == VALUES_SHOWN) {
      let rest: u32 = 0;
      for (let m = k; m < deltaCount; m++) rest++;
      outAscii(" and ");
      outDecimal(rest);
      outAscii(" more");
      return;
    }
    if (shown > 0) outAscii(", ");
    outBytes(deltaPtr(k), deltaLen(k));
    shown++;
  }
}

// Writes a rule's message template with {tool} {capability} {risk} {value} {rule} filled in;
// the text between placeholders is copied a run at a time.
function fillTemplate(t: usize, len: u32, rule: u32): void {
  let run: u32 = 0; // start of the text not yet written
  let i: u32 = 0;
  while (i < len) {
    let placeholder: u32 = 0;
    if (load<u8>(t + i) == 0x7b) {
      if (placeholderAt(t, len, i, "{tool}")) placeholder = 1;
      else if (placeholderAt(t, len, i, "{capability}")) placeholder = 2;
      else if (placeholderAt(t, len, i, "{risk}")) placeholder = 3;
      else if (placeholderAt(t, len, i, "{value}")) placeholder = 4;
      else if (placeholderAt(t, len, i, "{rule}")) placeholder = 5;
    }
    if (placeholder == 0) { i++; continue; }
    outBytes(t + run, i - run);
    if (placeholder == 1) { outBytes(name, nameLen); i += 6; }
    else if (placeholder == 2) { outString(classCapability(<u32>cls)); i += 12; }
    else if (placeholder == 3) { outString(classRisk(<u32>cls)); i += 6; }
    else if (placeholder == 4) { outValues(); i += 7; }
    else { outString(ruleId(rule)); i += 6; }
    run = i;
  }
  outBytes(t + run, len - run);
}

// For an ask: the condition the user's request put on what it turns on (§7.3), the note of a
// conditional item among the call's targets, else of the class's conditional grant. Writes
// " (your request made this conditional: «…»)" and answers whether it found one.
function conditionShown(): bool {
  if (decideStore == 0) return false;
  const n = targetCount();
  let note: usize = 0;
  for (let i: u32 = 0; i < n && note == 0; i++) note = intentConditionOf(decideStore, targetKind(i), targetPtr(i), targetLen(i));
  if (note == 0) note = intentConditionOf(decideStore, CONDITION_OF_CLASS, 0, <u32>cls);
  if (note == 0) return false;
  outAscii(" (your request made this conditional: ");
  outByte(0xc2); outByte(0xab);
  outBytes(note, conditionLen);
  outByte(0xc2); outByte(0xbb);
  outAscii(")");
  return true;
}

// The record for what the class's code decided: by a rule, or by the class default.
export function verdict(effect: u32, slot: i32): u32 {
  const rule = decidedRule;
  begin(effect);
  if (rule != NONE && ruleReason(rule) != NONE) outString(ruleReason(rule));
  else { outAscii(rule != NONE ? "rule_" : "default_"); outAscii(effectName(effect)); }
  endField(AT_REASON, 1);
  if (rule != NONE) outString(ruleId(rule));
  endField(AT_RULE, 2);
  classFieldsAndLead(effect);
  // An allow the sandbox holds (§8.3): where the call's paths lead, its loopback, what it only
  // maybe touches are the sandbox's to enforce.
  if (effect == EFFECT_CONFINE && rule != NONE && ruleEffect(rule) == EFFECT_ALLOW) {
    outAscii("it runs in the task's sandbox, which holds what the fence cannot see of it (where a path leads, its own loopback, a value it could not resolve); ");
  }
  if (rule != NONE && ruleMessage(rule) != NONE) {
    fillTemplate(strPtr(ruleMessage(rule)), strLen(ruleMessage(rule)), rule);
  } else if (rule != NONE) {
    outAscii("rule ");
    outString(ruleId(rule));
    outAscii(effect == EFFECT_ALLOW ? " allows " : effect == EFFECT_BLOCK ? " blocks " : effect == EFFECT_CONFINE ? " confines " : " asks about ");
    capabilityAndRisk();
    if (hasWitness) { outAscii(" for "); outBytes(witness, witnessLen); }
  } else if (effect == EFFECT_ALLOW) {
    capabilityAndRisk();
    outAscii(" is allowed by the policy's default for ");
    outString(classRisk(<u32>cls));
  } else {
    outAscii("no rule allows ");
    capabilityAndRisk();
    outAscii(" and the policy's default for ");
    outString(classRisk(<u32>cls));
    outAscii(" is ");
    outAscii(effectName(effect));
  }
  const conditional = effect == EFFECT_ASK && conditionShown();
  if (decidedMaybe) {
    flags |= DECISION_POSSIBLE;
    if (!conditional) outAscii(" (it may hold: the fence could not read every value of the call or the request to the end)");
  }
  outAscii(" [");
  if (rule != NONE) outString(ruleId(rule));
  else { outAscii("default_"); outAscii(effectName(effect)); }
  outAscii("]");
  endField(AT_MESSAGE, 4);
  outWitnessAndWarned();
  outTargets();
  return endRecord(slot);
}

// An allow of a call a reader could not read to the end (§8.1): asked, never allowed, or, where
// the task's sandbox can hold it, confined (§8.3). The witness is what could not be read.
export function opaque(slot: i32, confine: bool): u32 {
  const kind = confine ? KIND_CONFINE : KIND_ASK;
  begin(kind);
  flags |= DECISION_OPAQUE;
  outAscii(confine ? "confined" : "opaque");
  endField(AT_REASON, 1);
  endField(AT_RULE, 2);
  classFieldsAndLead(kind);
  outAscii(confine
    ? "it runs in the task's sandbox, because the fence cannot read all of it and so does not know every effect it has: "
    : "the fence cannot read all of this call, so it does not know every effect it has: ");
  const n = targetCount();
  let first = true;
  for (let i: u32 = 0; i < n; i++) {
    if (targetKind(i) != SUBJ_OPAQUE) continue;
    if (!first) outAscii("; ");
    outBytes(targetPtr(i), targetLen(i));
    first = false;
  }
  outAscii(confine ? " [confined]" : " [opaque]");
  endField(AT_MESSAGE, 4);
  for (let i: u32 = 0; i < n; i++) if (targetKind(i) == SUBJ_OPAQUE) outEntry(SUBJ_OPAQUE, targetPtr(i), targetLen(i));
  endField(AT_WITNESS, 4);
  outWarned();
  outTargets();
  return endRecord(slot);
}

// A confinement that cannot hold (§8.3): the sandbox cannot run here, or the call writes a path
// the sandbox would not let it write (`value`, a WRITE target outside the writable set). Asked.
export function unconfinable(slot: i32, value: usize, valueLen: u32): u32 {
  begin(KIND_ASK);
  outAscii(value == 0 ? "sandbox_unavailable" : "outside_sandbox");
  endField(AT_REASON, 1);
  endField(AT_RULE, 2);
  classFieldsAndLead(KIND_ASK);
  if (value == 0) {
    outAscii("it would run in the task's sandbox, but no sandbox can run it here, so it is asked instead [sandbox_unavailable]");
  } else {
    outAscii("it writes ");
    outBytes(value, valueLen);
    outAscii(", outside the folders a confined command may write (the working directory and what your request named) [outside_sandbox]");
  }
  endField(AT_MESSAGE, 4);
  if (value != 0) outEntry(SUBJ_WRITE, value, valueLen);
  endField(AT_WITNESS, 4);
  outWarned();
  outTargets();
  return endRecord(slot);
}

// An allow the session's narrowing (§7.2) turned into an ask.
export function narrowed(slot: i32): u32 {
  begin(KIND_ASK);
  outAscii("intent_narrowed");
  endField(AT_REASON, 1);
  outAscii("intent");
  endField(AT_RULE, 2);
  classFieldsAndLead(KIND_ASK);
  outAscii("the user's request, as a model read it, asks before ");
  capabilityAndRisk();
  outAscii(" [intent]");
  endField(AT_MESSAGE, 4);
  endField(AT_WITNESS, 4);
  outWarned();
  outTargets();
  return endRecord(slot);
}

// An ask a budget of sums makes (§8.2): reason, the budget's id as the rule, the class's fields;
// then the message the caller writes, ended by budgetAskEnd with " [id]", the call's sums as the
// witness, the warned rules and the targets.
function budgetAskBegin(reason: Text, b: u32): void {
  begin(KIND_ASK);
  outAscii(reason);
  endField(AT_REASON, 1);
  outString(budgetId(b));
  endField(AT_RULE, 2);
  classFieldsAndLead(KIND_ASK);
}

function budgetAskEnd(b: u32, slot: i32): u32 {
  outAscii(" [");
  outString(budgetId(b));
  outAscii("]");
  endField(AT_MESSAGE, 4);
  outSums();
  endField(AT_WITNESS, 4);
  outWarned();
  outTargets();
  return endRecord(slot);
}

// The same call of a class under a budget of sums already ran in the session, or is under way
// (§8.2): asked. Its rule id is the class's first budget of sums.
export function repeated(slot: i32, b: u32): u32 {
  budgetAskBegin("repeated_payment", b);
  outAscii("it repeats a payment this session already made or has under way: to the same payee, for the same purpose");
  return budgetAskEnd(b, slot);
}

export function prohibited(): u32 {
  begin(KIND_BLOCK);
  outAscii("intent_prohibited");
  endField(AT_REASON, 1);
  outAscii("intent");
  endField(AT_RULE, 2);
  classFieldsAndLead(KIND_BLOCK);
  outAscii("the user's request rules out ");
  capabilityAndRisk();
  outAscii(" [intent]");
  endField(AT_MESSAGE, 4);
  endField(AT_WITNESS, 4);
  endField(AT_WARNED, 4);
  outTargets();
  return outFinish();
}

// "the policy's budget B allows N calls of C (R)" / "caps the sums of C (R) at CAP".
function budgetLead(b: u32): bool {
  outAscii("the policy's budget ");
  outString(budgetId(b));
  const sum = budgetOfSums(b);
  if (sum) {
    outAscii(" caps the sums of ");
    capabilityAndRisk();
    outAscii(" at ");
    outString(budgetAmount(b));
  } else {
    outAscii(" allows ");
    outDecimal(budgetLimit(b));
    outAscii(budgetLimit(b) == 1 ? " call" : " calls");
    outAscii(" of ");
    capabilityAndRisk();
  }
  outScope(budgetScope(b));
  return sum;
}

// Whose calls a budget counts and over what time: " per session", " per user each day", ...
function outScope(scope: u32): void {
  const who = scope & 0xff, period = scope >> 8;
  outAscii(who == BUDGET_PER_USER ? " per user" : who == BUDGET_PER_TEAM ? " per team" : " per session");
  if (period == BUDGET_PERIOD_DAY) outAscii(" each day");
  else if (period == BUDGET_PERIOD_WEEK) outAscii(" each week");
}

// The call's sums, as witness entries: what an approval of a budget's ask is keyed on.
function outSums(): void {
  const n = targetCount();
  for (let i: u32 = 0; i < n; i++) if (targetKind(i) == SUBJ_AMOUNT) outEntry(targetEntryKind(i), targetPtr(i), targetLen(i));
}

// The call's class has budget `b` with no room left in its scope (§8.2) for this call.
export function exhausted(b: u32, slot: i32): u32 {
  begin(KIND_BLOCK);
  outAscii("budget_exhausted");
  endField(AT_REASON, 1);
  outString(budgetId(b));
  endField(AT_RULE, 2);
  classFieldsAndLead(KIND_BLOCK);
  const sum = budgetLead(b);
  outAscii(sum ? ", and this call's sum does not fit in what is left (" : ", and it is used up (");
  outCount(budgetSpent(slot, b), sum);
  outAscii(sum ? " spent, " : " made, ");
  outCount(budgetReserved(slot, b), sum);
  outAscii(" under way) [");
  outString(budgetId(b));
  outAscii("]");
  endField(AT_MESSAGE, 4);
  if (sum) outSums();
  endField(AT_WITNESS, 4);
  outWarned();
  outTargets();
  return outFinish();
}

// The call's sum does not fit in what is left of budget of sums `b`: asked (§8.2). `underWay`:
// what other calls had reserved of it.
export function overCap(b: u32, slot: i32, underWay: u64): u32 {
  budgetAskBegin("budget_exceeded", b);
  budgetLead(b);
  outAscii(", and this call's sum does not fit in what is left (");
  outCount(budgetSpent(slot, b), true);
  outAscii(" spent, ");
  outCount(underWay, true);
  outAscii(" under way)");
  return budgetAskEnd(b, slot);
}

// An allow of a call whose sum budget `b` cannot count (a sum the fence could not read, or in
// another currency than the budget's): asked, never allowed (§8.2).
export function uncountable(b: u32, slot: i32): u32 {
  budgetAskBegin("budget_unmeasured", b);
  budgetLead(b);
  outAscii(", and the fence cannot count this call's sum in it (it could not read it, or it is in another currency)");
  return budgetAskEnd(b, slot);
}

export function limit(what: Text, n: u32): u32 {
  faultBegin("limit_exceeded");
  outAscii(what);
  outDecimal(n);
  return faultEnd("limit_exceeded");
}
