// One decision (docs/bytecode.md §8, `decide`): checks, classification, targets, the intent's
// prohibitions, the class's code, and the decision record of §8.1. Every fault is a block with
// a reason code; nothing here traps. The steps are here; the record each outcome writes is
// record.ts's.
import {
  EFFECT_ALLOW, EFFECT_ASK, EFFECT_BLOCK, EFFECT_CONFINE, ROLE_WORKDIR, ROLE_DATA, ROLE_OBJECT, ROLE_AMOUNT, ROLE_AMOUNT_MINOR,
  ROLE_MEMBERS, ROLE_HEADING, ROLE_TEXT, ROLE_CODE, CLASSIFY_CHOICES, CLASSIFY_CHOICE_HEADINGS, CLASSIFY_OBJECTS_CONTENT,
  CLASSIFY_CHOICE_CODES, SET_MAX_ARGS_BYTES, SET_MAX_JSON_DEPTH, SET_MAX_LEAVES, SET_MAX_TARGETS, SUBJ_OPAQUE,
} from "../../bytecode/format";
import { settingValue, classBudgetCount } from "../policy/decode";
import { validUtf8, indexOfByte } from "../abi/bytes";
import { outAscii, outDecimal } from "../abi/out";
import { inputPtr, inputHolds } from "../abi/input";
import { scratchAlloc } from "../abi/mem";
import { TARGETS_LIMIT, TARGETS_OOM, movesClear, setOwnLoopback, uncontained } from "../readers/targettable";
import { hasPolicy } from "../policy/policy";
import { sessionSlot, sessionStore } from "./session";
import { classifyTool, leafRole, choiceFlags, mapRole, toolActions, WORDS_OOM } from "./classify";
import { nameWordRole } from "./describe";
import { runClass, outOfMemory, setContaining } from "./eval";
import {
  budgetExhausted, budgetReserve, budgetReserved, budgetRepeats, budgetOfSums, budgetOfSumsFor, callFingerprint, unmeasured,
} from "./budget";
import {
  parseArgs, leafCount, leafValue, leafValueLen, leafIsString, leafPath, leafPathLen, JSON_OK, JSON_LIMIT, JSON_OOM,
} from "../readers/json";
import {
  targetsBegin, setWorkdir, extractTargets, hasTargetOf, addNumberObject, addObject, amountTargets, memberTargets,
  tableStatusNow,
} from "../readers/targets";
import { intentProhibits, intentAsks, intentNegatesTool } from "../intent/intent";
import {
  faultBegin, faultEnd, fault, verdict, opaque, narrowed, prohibited, exhausted, overCap, repeated, uncountable, limit,
  unconfinable,
} from "./record";
import { sandboxCovers, writeOutside } from "./sandbox";
import { exposureCall, exposureTarget } from "../readers/exposure";

// The call being decided.
export let name: usize = 0;
export let nameLen: u32 = 0;
export let nameOk = false;    // the name may appear in the message (it is in bounds and valid UTF-8)
export let cls: i32 = -1;     // the call's class, -1 before classification
let reserving = true;  // explain decides without reserving budget units
export let reservation: u32 = 0;
export let confinedCall = false; // the last call decided was confined (§8.3)

// The session's intent for the call being decided (0: none).
export let decideStore: usize = 0;

// The role a leaf of a tool nobody mapped takes when its class makes choices (§5.2, CHOICE):
// one no role reads, nor a word of its top-level name, nor one of its own key (the last part of
// its path: `edits.oldText` is text), is a choice the call makes; a heading is
// content unless the class chooses headings too (and code: a voucher's); an object is content
// where the class says so.
const CHOICE: u32 = 0xff;
function roleOf(i: u32, choices: u32): u32 {
  let role = leafRole(i);
  if (role == 0 && (choices & CLASSIFY_CHOICES) != 0) {
    const path = leafPath(i), len = leafPathLen(i);
    const dot = indexOfByte(path, len, 0x2e, 0);
    let word = nameWordRole(path, dot < 0 ? len : <u32>dot);
    if (word == 0 && dot >= 0) {
      let key = len;
      while (load<u8>(path + key - 1) != 0x2e) key--;
      word = mapRole(path + key, len - key); // the whole key first (`headers.In-Reply-To`)
      if (word <= 0) word = nameWordRole(path + key, len - key);
    }
    role = word > 0 ? <u32>word : CHOICE;
  }
  if (role == ROLE_HEADING) role = (choices & CLASSIFY_CHOICE_HEADINGS) != 0 ? ROLE_OBJECT : ROLE_TEXT;
  if (role == ROLE_CODE && (choices & CLASSIFY_CHOICE_CODES) != 0) role = ROLE_OBJECT;
  if (role == ROLE_OBJECT && (choices & CLASSIFY_OBJECTS_CONTENT) != 0) role = 0;
  // A number leaf has a role only as an object, a sum or a choice (§5.2).
  if (!leafIsString(i) && role != ROLE_OBJECT && role != ROLE_AMOUNT && role != ROLE_AMOUNT_MINOR && role != CHOICE) role = 0;
  return role;
}

// Makes the targets of a call of class callClass: the WORKDIR argument first, then every argument with a role. Each
// string leaf's role is looked up once, kept for the second pass. A choice is an OBJECT: a
// string or number as the object role reads it, `true` as the argument's path (what it turns
// on); `false` and `null` choose nothing (the call as if the argument were left out).
export function extract(callClass: i32): i32 {
  targetsBegin(settingValue(SET_MAX_TARGETS));
  const n = leafCount();
  const roles = scratchAlloc(max<usize>(<usize>n, 1)); // u8 each: roles are at most ROLE_MAX, or CHOICE
  if (roles == 0) return TARGETS_OOM;
  const choices = choiceFlags(callClass);
  let workdirSet = false;
  let sums = false;
  let members = false;
  for (let i: u32 = 0; i < n; i++) {
    const role = roleOf(i, choices);
    store<u8>(roles + i, <u8>role);
    if (role == ROLE_WORKDIR && !workdirSet) {
      setWorkdir(leafValue(i), leafValueLen(i));
      workdirSet = true;
    }
    if (role == ROLE_AMOUNT || role == ROLE_AMOUNT_MINOR) sums = true;
    if (role == ROLE_MEMBERS) members = true;
  }
  for (let i: u32 = 0; i < n; i++) {
    let role = <u32>load<u8>(roles + i);
    // A setting that widens exposure (public, a sharing role, link access) is no choice to name.
    if (role == CHOICE && exposureTarget(i)) continue;
    if (role == ROLE_WORKDIR || role == ROLE_DATA || role == ROLE_AMOUNT || role == ROLE_AMOUNT_MINOR || role == ROLE_MEMBERS) continue;
    if (!leafIsString(i)) {
      const c = <u32>load<u8>(leafValue(i));
      if (role == CHOICE && c == 0x74) addObject(leafPath(i), leafPathLen(i)); // true: what it turns on
      else if ((role == ROLE_OBJECT || role == CHOICE) && c != 0x74 && c != 0x66 && c != 0x6e) addNumberObject(leafValue(i), leafValueLen(i)); // not true, false, null
      continue;
    }
    if (role == CHOICE) role = ROLE_OBJECT;
    const r = extractTargets(role, leafValue(i), leafValueLen(i));
    if (r != 0) return r;
  }
  if (sums) amountTargets(roles, n);
  if (members) memberTargets(roles, n);
  return tableStatusNow();
}

// The class of the last call decided, -1 when it was not classified.
export function decidedClass(): i32 {
  return cls;
}

// Decides without reserving (explain): what decide would answer, with the counters unchanged.
export function setReserving(on: bool): void {
  reserving = on;
}

// Decides the call whose tool name and argument JSON are in the input buffer (scratch reset).
export function decide(h: i32, nLen: u32, argsLen: u32): u32 {
  name = inputPtr();
  nameLen = nLen;
  cls = -1;
  nameOk = false;
  reservation = 0;
  confinedCall = false;
  movesClear();
  if (!inputHolds(<u64>nLen + <u64>argsLen)) return fault("bad_arguments", "the call does not fit the input buffer");
  nameOk = validUtf8(name, nameLen);
  if (!hasPolicy()) return fault("no_policy", "no policy is loaded");
  if (!nameOk) return fault("bad_arguments", "the tool name is not valid UTF-8");
  let store: usize = 0;
  decideStore = 0;
  let slot: i32 = -1; // handle 0: no session, no counters
  if (h != 0) {
    slot = sessionSlot(h);
    if (slot < 0) return fault("unknown_session", "the session is unknown or was closed");
    store = sessionStore(slot);
    decideStore = store;
  }
  exposureCall(h);
  const c = classifyTool(name, nameLen);
  if (c == WORDS_OOM) return fault("out_of_memory", "the evaluator ran out of memory");
  cls = c;
  const maxArgs = settingValue(SET_MAX_ARGS_BYTES);
  if (argsLen > maxArgs) return limit("the arguments are larger than the policy's limit of bytes: ", maxArgs);
  const parsed = parseArgs(name + nameLen, argsLen, settingValue(SET_MAX_JSON_DEPTH), settingValue(SET_MAX_LEAVES));
  if (parsed == JSON_LIMIT) return limit("the arguments hold more values than the policy's limit of ", settingValue(SET_MAX_LEAVES));
  if (parsed == JSON_OOM) return fault("out_of_memory", "the evaluator ran out of memory");
  if (parsed != JSON_OK) {
    faultBegin("bad_arguments");
    outAscii("the arguments are not a JSON object of valid UTF-8 nested at most ");
    outDecimal(settingValue(SET_MAX_JSON_DEPTH));
    outAscii(" deep");
    return faultEnd("bad_arguments");
  }
  // What the task's sandbox could hold is left to it (§8.3): the loopback is its own, and a
  // rule it enforces that holds only maybe; either makes the call run confined.
  const sandboxed = sandboxCovers(<u32>cls);
  setOwnLoopback(sandboxed);
  const t = extract(cls);
  setOwnLoopback(false);
  setContaining(sandboxed && !uncontained);
  if (t == TARGETS_LIMIT) return limit("the call names more targets than the policy's limit of ", settingValue(SET_MAX_TARGETS));
  if (t != 0) return fault("out_of_memory", "the evaluator ran out of memory");
  if (store != 0 && intentProhibits(store, <u32>cls)) return prohibited();
  const acts = store != 0 ? toolActions(name, nameLen) : 0;
  if (acts < 0) return fault("out_of_memory", "the evaluator ran out of memory");
  if (store != 0 && intentNegatesTool(store, <u32>acts, name, nameLen)) return prohibited();
  let effect = runClass(<u32>cls, name, nameLen, store);
  if (outOfMemory) return fault("out_of_memory", "the evaluator ran out of memory");
  // Where a sandbox can run, a call it can hold is never allowed outside it: a path the call
  // names may be a symbolic link (the fence compares paths as written, the kernel follows
  // links), a program may read files by an option no table describes (`date -f`), and a loopback
  // host or a rule held only maybe were left to the sandbox above. Allowed, it runs confined.
  if (effect == EFFECT_ALLOW && sandboxed) effect = EFFECT_CONFINE;
  // A narrowing (§7.2) turns an allow into an ask, and so does a call a reader could not read
  // to the end (§8.1), unless the task's sandbox can hold it (§8.3): then it is confined, as a
  // call the rules confine is; the call's budget applies to each.
  const unread = (effect == EFFECT_ALLOW || effect == EFFECT_CONFINE) && hasTargetOf(SUBJ_OPAQUE);
  const covered = (effect == EFFECT_CONFINE || unread) && sandboxCovers(<u32>cls);
  const asked = (effect == EFFECT_ALLOW || covered) && (covered || !unread) && store != 0 && intentAsks(store, <u32>cls);
  let uncounted: i32 = -1;
  if (effect != EFFECT_BLOCK && slot >= 0 && classBudgetCount(<u32>cls) != 0) {
    const b = budgetExhausted(slot, <u32>cls);
    if (b == -2) return fault("out_of_memory", "the evaluator ran out of memory");
    // A sum over the cap is the user's to approve (the payment they asked for may cost more than
    // the operator's everyday cap): asked, with its sum reserved; a budget of calls is a rate and
    // stops the call.
    if (b >= 0 && !budgetOfSums(<u32>b)) return exhausted(<u32>b, slot);
    const underWay = b >= 0 ? budgetReserved(slot, <u32>b) : 0; // before this call's own sum joins it
    // A payment the request asked for runs once: another to the same payee for the same purpose,
    // of any sum, through any tool under a budget of sums, asks.
    const sums = budgetOfSumsFor(<u32>cls);
    const fingerprint = sums >= 0 ? callFingerprint() : 0;
    const repeats = fingerprint != 0 && budgetRepeats(slot, fingerprint);
    uncounted = unmeasured;
    if (reserving) {
      reservation = budgetReserve(slot, <u32>cls, fingerprint);
      if (reservation == 0) return fault("out_of_memory", "the evaluator ran out of memory");
    }
    // A rule that asked already says what the call does beyond the request; the cap and the
    // repeat are the question only of a call the rules allow.
    if (effect != EFFECT_ASK && b >= 0) return overCap(<u32>b, slot, underWay);
    if (effect != EFFECT_ASK && repeats) return repeated(slot, <u32>sums);
  }
  if (effect == EFFECT_CONFINE && !covered) return unconfinable(slot, 0, 0);
  if (unread && !covered) return opaque(slot, false);
  if (asked) return narrowed(slot);
  // A sum a budget cannot count (§8.2): what the class's code allows is asked instead.
  if ((effect == EFFECT_ALLOW || covered) && uncounted >= 0) return uncountable(<u32>uncounted, slot);
  if (covered) {
    // Confined (§8.3): unless a write the reader sees would leave the sandbox's writable set.
    const outside = writeOutside(store);
    if (outside != 0) return unconfinable(slot, <usize>(outside >>> 32), <u32>outside);
    confinedCall = true;
    return unread ? opaque(slot, true) : verdict(EFFECT_CONFINE, slot);
  }
  return verdict(effect, slot);
}
