// Runs a class's code (docs/bytecode.md §5) over one call: its tool name, argument leaves
// (json.ts) and extracted targets (targets.ts). verify.ts has checked the code, so every run
// ends at a DECIDE within code_len steps. Tests have three outcomes (§5.4): a value a reader
// could not resolve (a pattern target, §6.7) or an intent item the user made conditional may
// satisfy a test without being known to: such a test holds "maybe". A rule none of whose tests
// failed but one held maybe has held maybe: a block rule then makes the call an ask, an ask
// rule asks, an allow rule does not allow.
// The per-value tests are eval_tests.ts's.
import {
  NONE, OP_DECIDE, OP_TEST_PRESENT, OP_TEST_UNDER, OP_TEST_GRANTED, OP_TEST_INTENT_ANY, OP_TEST_TRUTHY,
  FLAG_NEGATE, FLAG_ALL, SUBJ_TOOL, SUBJ_ARG, EFFECT_BLOCK, EFFECT_ASK, EFFECT_ALLOW, EFFECT_WARN, SET_SANDBOX_RULES,
} from "../../bytecode/format";
import {
  classCodeStart, insnOp, insnSubject, insnFlags, insnArg, insnOperand, insnJump, strPtr, strLen, ruleId, setFind, settingValue,
} from "../policy/decode";
import { bytesEqual, sameBytes } from "../abi/bytes";
import { scratchAlloc } from "../abi/mem";
import { leafCount, leafPath, leafPathLen, leafValue, leafValueLen, leafIsString, leafInArray } from "../readers/json";
import {
  targetCount, targetKind, targetIsPattern, targetIsTree, targetEntryKind, targetPtr, targetLen,
} from "../readers/targets";
import { intentGrants, intentNamesKind } from "../intent/intent";
import { toolActions, WORDS_OOM } from "./classify";
import { NO, YES, MAYBE, tri, negated } from "./tri";
import { literalTest, patternTest, memberBelow } from "./eval_tests";

// The call being decided.
let toolName: usize = 0;
let toolNameLen: u32 = 0;
export let intentStore: usize = 0;
let callClass: u32 = 0;

// The trace of the last run, kept only while `explain` asks for one: each test run (its
// instruction and whether it held), then the DECIDE reached. A run takes at most code_len
// steps; the trace keeps the first TRACE_MAX.
export const TRACE_MAX: u32 = 4096;
const traceSteps: usize = memory.data(<i32>(TRACE_MAX << 3));
let tracing = false;
export let traceCount: u32 = 0;

// Turning tracing on starts a new trace; turning it off keeps the trace for reading.
export function setTracing(on: bool): void {
  tracing = on;
  if (on) traceCount = 0;
}

export function tracePc(k: u32): u32 { return load<u32>(traceSteps + (<usize>k << 3)); }
// NO, YES or MAYBE (a DECIDE is traced YES).
export function traceResult(k: u32): u32 { return load<u32>(traceSteps + (<usize>k << 3) + 4); }

@inline function traceStep(pc: u32, result: u32): void {
  if (!tracing || traceCount >= TRACE_MAX) return;
  store<u32>(traceSteps + (<usize>traceCount << 3), pc);
  store<u32>(traceSteps + (<usize>traceCount << 3) + 4, result);
  traceCount++;
}

// The outcome of the last run.
export let decidedRule: u32 = 0;   // rule index, or NONE for the class default
export let decidedMaybe = false;   // an ask because a block rule held maybe (decidedRule is that rule)
export let witness: usize = 0;     // a value the deciding rule's tests passed: `{value}` in messages
export let witnessLen: u32 = 0;
export let hasWitness = false;
export let outOfMemory = false;    // a test needed scratch memory it could not have

// The rules with effect warn that held (or held maybe), in code order: the record's `warned`.
let warned: usize = 0;
let warnedCap: u32 = 0;
export let warnedCount: u32 = 0;
export function warnedRule(k: u32): u32 { return load<u32>(warned + (<usize>k << 2)); }

// The deciding rule's witness of §8.1: every value that passed one of its per-value tests (or
// passed maybe), as (subject entry byte, ptr, len) triples in scratch memory. A failing test
// empties it.
let deltas: usize = 0;
let deltaCap: u32 = 0;
export let deltaCount: u32 = 0;

export function deltaSubject(k: u32): u32 { return load<u32>(deltas + <usize>k * 12); }
export function deltaPtr(k: u32): usize { return <usize>load<u32>(deltas + <usize>k * 12 + 4); }
export function deltaLen(k: u32): u32 { return load<u32>(deltas + <usize>k * 12 + 8); }

function deltaPush(entry: u32, v: i64): void {
  if (deltaCount == deltaCap) {
    const want = max<u32>(16, deltaCap << 1);
    const grown = scratchAlloc((<usize>want) * 12);
    if (grown == 0) { outOfMemory = true; return; }
    if (deltaCount > 0) memory.copy(grown, deltas, (<usize>deltaCount) * 12);
    deltas = grown;
    deltaCap = want;
  }
  const e = deltas + <usize>deltaCount * 12;
  store<u32>(e, entry);
  store<u32>(e + 4, <u32>(v >>> 32));
  store<u32>(e + 8, <u32>v);
  deltaCount++;
}

// ---- subject values ----
function valueCount(subject: u32): u32 {
  if (subject == SUBJ_TOOL) return 1;
  return subject == SUBJ_ARG ? leafCount() : targetCount();
}

// Whether the last value valueAt returned is a pattern, and its entry byte for the witness.
let valuePattern = false;
let valueTree = false;
let valueEntry: u32 = 0;

// Value k of the subject, as (ptr << 32 | len); -1 when k is not a value of this subject.
function valueAt(subject: u32, arg: u32, k: u32): i64 {
  valuePattern = false;
  valueTree = false;
  valueEntry = subject;
  if (subject == SUBJ_TOOL) return (<i64>toolName << 32) | <i64>toolNameLen;
  if (subject == SUBJ_ARG) {
    if (!bytesEqual(leafPath(k), leafPathLen(k), strPtr(arg), strLen(arg))) return -1;
    return (<i64>leafValue(k) << 32) | <i64>leafValueLen(k);
  }
  if (targetKind(k) != subject) return -1;
  valuePattern = targetIsPattern(k);
  valueTree = targetIsTree(k);
  valueEntry = targetEntryKind(k);
  return (<i64>targetPtr(k) << 32) | <i64>targetLen(k);
}


// Whether a JSON scalar's text reads as false to Python's bool(): false, null, a zero number.
function falsyScalar(p: usize, len: u32): bool {
  const c = <u32>load<u8>(p);
  if (c == 0x66 || c == 0x6e) return true; // false, null
  for (let i: u32 = 0; i < len; i++) {
    const d = <u32>load<u8>(p + i);
    if (d == 0x65 || d == 0x45) break; // the exponent of a zero mantissa leaves it zero
    if (d >= 0x31 && d <= 0x39) return false;
  }
  return c != 0x74; // true; digits all zero
}

// TRUTHY (§5): the argument at path `arg` is true to Python's bool(), as a Python host (Hermes)
// reads it: a non-empty string, list or object, a non-zero number, true. Absent, empty, false,
// null and zero are false. Of several values at one path (a key given twice) any true one counts.
function argTruthy(arg: u32): bool {
  const at = strPtr(arg), atLen = strLen(arg);
  const n = leafCount();
  for (let k: u32 = 0; k < n; k++) {
    const p = leafPath(k), len = leafPathLen(k);
    if (len > atLen && load<u8>(p + atLen) == 0x2e && sameBytes(p, at, atLen)) return true; // an object
    if (!bytesEqual(p, len, at, atLen)) continue;
    if (leafInArray(k)) return true; // a list
    if (leafIsString(k) ? leafValueLen(k) > 0 : !falsyScalar(leafValue(k), leafValueLen(k))) return true;
  }
  return false;
}

function setWitness(v: i64): void {
  witness = <usize>(v >>> 32);
  witnessLen = <u32>v;
  hasWitness = true;
}

// What instruction pc finds (§5: ANY/ALL quantifiers, NEGATE per value, PRESENT, GRANTED and
// INTENT_ANY of the subject as a whole): NO, YES or MAYBE. ANY holds with a value that passes,
// maybe with one that passes maybe; ALL fails with a value that fails, and with none. Values
// that passed (or passed maybe) join the deltas; the first such value, a passing one before
// one that passed maybe, is the witness.
function holds(pc: u32): u32 {
  const op = insnOp(pc), subject = insnSubject(pc), flags = insnFlags(pc);
  const arg = insnArg(pc), operand = insnOperand(pc);
  const negate = (flags & FLAG_NEGATE) != 0;
  const all = (flags & FLAG_ALL) != 0;
  if (op == OP_TEST_GRANTED) {
    // Of the call's class, and of the action the tool's name says, if any.
    const actions = toolActions(toolName, toolNameLen);
    if (actions == <i64>WORDS_OOM) {
      outOfMemory = true;
      return NO;
    }
    const r = intentGrants(intentStore, callClass, <u32>actions);
    return negate ? negated(r) : r;
  }
  if (op == OP_TEST_INTENT_ANY) return tri(intentNamesKind(intentStore, subject, operand) != negate); // of the intent
  if (op == OP_TEST_TRUTHY) return tri((argTruthy(arg) == (operand == 1)) != negate);
  const n = valueCount(subject);
  if (op == OP_TEST_PRESENT) {
    let present = false;
    for (let k: u32 = 0; k < n && !present; k++) present = valueAt(subject, arg, k) >= 0;
    return tri((present == (operand == 1)) != negate);
  }
  let result = all ? YES : NO;
  let any = false;
  let witnessed = NO; // the result that set the witness
  for (let k: u32 = 0; k < n; k++) {
    const v = valueAt(subject, arg, k);
    if (v < 0) continue;
    const p = <usize>(v >>> 32), len = <u32>v;
    let r = valuePattern ? patternTest(op, subject, operand, p, len) : literalTest(op, subject, operand, p, len);
    if (valueTree && op == OP_TEST_UNDER && r != YES) {
      const m = memberBelow(operand, p, len, valuePattern);
      if (m != NO) r = valuePattern ? MAYBE : m;
    }
    if (negate) r = negated(r);
    if (all) {
      if (r == NO) return NO; // runClass empties the deltas of a failing test's rule
      if (!any) setWitness(v);
      if (r == MAYBE) result = MAYBE;
      deltaPush(valueEntry, v);
    } else if (r != NO) {
      if (witnessed != YES && r != witnessed) { setWitness(v); witnessed = r; }
      if (r == YES || result == NO) result = r;
      deltaPush(valueEntry, v);
    }
    any = true;
  }
  return all && !any ? NO : result;
}

// The witness and deltas of a block rule that held maybe, kept while later rules run: the ask
// it becomes names them.
let maybeRule: u32 = NONE;
let maybeDeltas: usize = 0;
let maybeDeltaCount: u32 = 0;
let maybeWitness: usize = 0;
let maybeWitnessLen: u32 = 0;
let maybeHasWitness = false;

function forgetRule(): void {
  hasWitness = false;
  deltaCount = 0;
}

function keepMaybe(rule: u32): void {
  maybeRule = rule;
  maybeDeltas = deltas;
  maybeDeltaCount = deltaCount;
  maybeWitness = witness;
  maybeWitnessLen = witnessLen;
  maybeHasWitness = hasWitness;
  // The rules after it build their deltas in an array of their own.
  deltas = 0;
  deltaCap = 0;
  deltaCount = 0;
  hasWitness = false;
}

// The ask a block rule that held maybe makes: its id, witness and deltas.
function decideMaybe(): u32 {
  decidedRule = maybeRule;
  decidedMaybe = true;
  deltas = maybeDeltas;
  deltaCount = maybeDeltaCount;
  witness = maybeWitness;
  witnessLen = maybeWitnessLen;
  hasWitness = maybeHasWitness;
  return EFFECT_ASK;
}

function warnPush(rule: u32): void {
  if (warnedCount == warnedCap) {
    const want = max<u32>(8, warnedCap << 1);
    const grown = scratchAlloc((<usize>want) << 2);
    if (grown == 0) { outOfMemory = true; return; }
    if (warnedCount > 0) memory.copy(grown, warned, (<usize>warnedCount) << 2);
    warned = grown;
    warnedCap = want;
  }
  store<u32>(warned + (<usize>warnedCount << 2), rule);
  warnedCount++;
}

// For a call the task's sandbox can hold (§8.3): a block or ask rule the sandbox enforces that
// holds only maybe (on a value the reader could not resolve) is the sandbox's to enforce, not a
// question: the run goes on (the call runs confined, decide.ts).
let containing = false;
export function setContaining(on: bool): void {
  containing = on;
}

function enforcedBySandbox(rule: u32): bool {
  const id = ruleId(rule);
  return setFind(settingValue(SET_SANDBOX_RULES), strPtr(id), strLen(id)) >= 0;
}

// Runs class `cls` for the call; returns the effect and sets decidedRule, decidedMaybe, the
// witness and the warned rules (§5.3, §5.4).
export function runClass(cls: u32, name: usize, nameLen: u32, store: usize): u32 {
  toolName = name;
  toolNameLen = nameLen;
  intentStore = store;
  callClass = cls;
  outOfMemory = false;
  decidedMaybe = false;
  deltaCount = 0;
  deltaCap = 0; // the scratch arena was reset: the last call's arrays are gone
  warnedCount = 0;
  warnedCap = 0;
  maybeRule = NONE;
  hasWitness = false;
  let pc = classCodeStart(cls);
  let maybe = false; // a test of the rule being run held maybe
  while (true) {
    if (insnOp(pc) != OP_DECIDE) {
      const r = holds(pc);
      traceStep(pc, r);
      if (r == NO) {
        forgetRule(); // the rule did not match: its witness is not the decision's
        maybe = false;
        pc = insnJump(pc);
      } else {
        if (r == MAYBE) maybe = true;
        pc++;
      }
      continue;
    }
    const rule = insnOperand(pc);
    const effect = insnFlags(pc);
    // The trace marks a DECIDE that ends the run YES, one the run goes on from MAYBE.
    // The class default ends every class (verify.ts): a block that held maybe asks.
    if (rule == NONE) {
      traceStep(pc, YES);
      if (maybeRule != NONE) return decideMaybe();
      decidedRule = NONE;
      return effect;
    }
    if (effect == EFFECT_WARN) {
      warnPush(rule);
    } else if (maybe && containing && (effect == EFFECT_BLOCK || effect == EFFECT_ASK) && enforcedBySandbox(rule)) {
      // passed over: the sandbox holds what it protects
    } else if (!maybe) {
      traceStep(pc, YES);
      if (effect != EFFECT_BLOCK && maybeRule != NONE) return decideMaybe();
      decidedRule = rule;
      return effect;
    } else if (effect == EFFECT_BLOCK) {
      if (maybeRule == NONE) keepMaybe(rule);
    } else if (effect == EFFECT_ASK) {
      traceStep(pc, YES);
      if (maybeRule != NONE) return decideMaybe();
      decidedRule = rule;
      return EFFECT_ASK;
    }
    // A warn, a block that held maybe, an allow that held maybe: the next rule runs.
    traceStep(pc, MAYBE);
    forgetRule();
    maybe = false;
    pc++;
  }
  return EFFECT_ALLOW;
}
