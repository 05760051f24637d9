// `derive` (docs/bytecode.md §7.1, §8): the output of a call the user pointed at names targets
// the user did not, "the address is in the minutes I asked you to act on". They are recorded as
// derived items, apart from the named ones, and only IN_DERIVED tests read them. The user
// pointed at a call when its class is one of the policy's `derive_from` and every target of the
// call was named in the user's own words (read to the end: no pattern, nothing opaque): the output of a call whose target was itself derived
// (a page a link led to) derives nothing, so an injected page cannot vouch for its own links.
import {
  SET_MAX_ARGS_BYTES, SET_MAX_JSON_DEPTH, SET_MAX_LEAVES, SUBJ_PROGRAM, SUBJ_OPAQUE, SUBJ_OBJECT, INTENT_NAMED, ROLE_DATA,
} from "../../bytecode/format";
import {
  settingValue, intentDeriveCount, intentDeriveClass, intentRecordsCount, intentRecordsClass, intentOwnRecordsCount, intentOwnRecordsClass,
} from "../policy/decode";
import { spanPtr, spanLen } from "../readers/normalize";
import { numberObject, objectNormal } from "./objects";
import { outBegin, outByte, outAscii, outPatchU8, outFinish, outFailure, Text } from "../abi/out";
import { inputPtr, inputHolds } from "../abi/input";
import { hasPolicy } from "../policy/policy";
import { sessionSlot, sessionStore, setSessionStore } from "../decision/session";
import { classifyTool, leafRole, lastWordRole, WORDS_OOM } from "../decision/classify";
import { parseArgs, JSON_OK, leafCount, leafValue, leafValueLen, leafIsString, leafPath, leafPathLen } from "../readers/json";
import { targetCount, targetKind, targetIsPattern, targetPtr, targetLen } from "../readers/targets";
import { YES } from "../decision/tri";
import { extract } from "../decision/decide";
import { intentHas, intentDerive, intentWriteSummary } from "./intent";
import { intentObjectWithin, intentNamesRecipient } from "./intent_lookup";
import { READ_OWN, READ_ENTRIES_ONLY, READ_BY_DESTINATION } from "./intent_record";

function derivesFrom(cls: u32): bool {
  const n = intentDeriveCount();
  for (let k: u32 = 0; k < n; k++) if (intentDeriveClass(k) == cls) return true;
  return false;
}

function readsRecords(cls: u32): bool {
  const n = intentRecordsCount();
  for (let k: u32 = 0; k < n; k++) if (intentRecordsClass(k) == cls) return true;
  return false;
}

// Whether the policy says calls of the class read the user's own account or profile.
function readsOwnAccount(cls: u32): bool {
  const n = intentOwnRecordsCount();
  for (let k: u32 = 0; k < n; k++) if (intentOwnRecordsClass(k) == cls) return true;
  return false;
}

// Why the user did not point at the call just classified and extracted, or 0 when they did.
function notPointedAt(store: usize, cls: u32): Text {
  if (!derivesFrom(cls)) return "the policy derives nothing from this tool's class";
  const n = targetCount();
  if (n == 0) return "the call names no target the user could have pointed at";
  for (let i: u32 = 0; i < n; i++) {
    const kind = targetKind(i);
    if (kind == SUBJ_PROGRAM || kind == SUBJ_OPAQUE || targetIsPattern(i) ||
        intentHas(store, kind, targetPtr(i), targetLen(i), INTENT_NAMED) != YES) {
      return "a target of the call is not one the user named";
    }
  }
  return 0;
}

// Whether the call just classified and extracted reads the task's own records (§7.1): a read
// whose every target, and every string or number among its arguments, is the task's: named in
// the user's own words, or read from such a record before ("the order I named", "my profile",
// the product of an item of that order). What an argument the model chose (an id from a web page,
// another customer's name) reads derives nothing, so an injection cannot make its own values
// the task's by looking them up. RECORD_NONE when not; RECORD_UNNAMED when the read names
// nothing at all (a whole inbox, every user of a workspace): only a read of the user's own account
// makes all of that the task's.
// RECORD_BY_DESTINATION beside RECORD_NAMED: an argument is where the user asked a call to go
// ("#deploys" of "answer in #deploys"), so the record is of that destination.
const RECORD_NONE: u32 = 0;
const RECORD_NAMED: u32 = 1;
const RECORD_UNNAMED: u32 = 2;
const RECORD_BY_DESTINATION: u32 = 4;
function readsOwnRecord(store: usize, cls: u32): u32 {
  let named = false;
  let destination = false;
  const n = targetCount();
  for (let i: u32 = 0; i < n; i++) {
    const kind = targetKind(i);
    if (kind == SUBJ_OBJECT) continue; // an argument: read below
    named = true;
    if (kind == SUBJ_PROGRAM || kind == SUBJ_OPAQUE || targetIsPattern(i) ||
        intentHas(store, kind, targetPtr(i), targetLen(i), INTENT_NAMED) != YES) return RECORD_NONE;
  }
  const leaves = leafCount();
  for (let k: u32 = 0; k < leaves; k++) {
    const v = leafValue(k), l = leafValueLen(k);
    if (l == 0) continue;
    // A page, a count (by the role map's word for its key, whatever a schema calls it): how much
    // is read, not whose.
    if (leafRole(k) == ROLE_DATA || lastWordRole(leafPath(k), leafPathLen(k)) == ROLE_DATA) continue;

    let s: u64;
    if (leafIsString(k)) s = objectNormal(v, l);
    else {
      const c = load<u8>(v);
      if (c == 0x74 || c == 0x66 || c == 0x6e) continue; // true, false, null choose no record
      s = numberObject(v, l);
    }
    if (s == 0) return RECORD_NONE;
    if (intentHas(store, SUBJ_OBJECT, spanPtr(s), spanLen(s), INTENT_NAMED) != YES &&
        !(leafIsString(k) && intentObjectWithin(store, spanPtr(s), spanLen(s)))) return RECORD_NONE;
    named = true;
    if (leafIsString(k) && intentNamesRecipient(store, spanPtr(s), spanLen(s))) destination = true;
  }
  if (!named) return RECORD_UNNAMED;
  return destination ? RECORD_NAMED | RECORD_BY_DESTINATION : RECORD_NAMED;
}

// Reads the output of session h's call (tool name, argument JSON, output text in the input
// buffer). Record: u8 status (0 read or ignored, 1 failed), then `derived` or `ignored<TAB>why`
// on the first line, then the session's intent summary.
export function deriveFromOutput(h: i32, nameLen: u32, argsLen: u32, outputLen: u32): u32 {
  outBegin();
  outByte(1);
  if (!inputHolds(<u64>nameLen + <u64>argsLen + <u64>outputLen)) return outFailure("the call does not fit the input buffer");
  if (!hasPolicy()) return outFailure("no policy is loaded");
  const slot = sessionSlot(h);
  if (slot < 0) return outFailure("the session is unknown or was closed");
  const store = sessionStore(slot);
  const name = inputPtr();
  const cls = classifyTool(name, nameLen);
  if (cls == WORDS_OOM) return outFailure("out of memory");
  let why: Text = 0;
  let record = false;
  let how: u32 = 0;
  if (argsLen > settingValue(SET_MAX_ARGS_BYTES)) why = "the arguments are over the policy's limit";
  else if (parseArgs(name + nameLen, argsLen, settingValue(SET_MAX_JSON_DEPTH), settingValue(SET_MAX_LEAVES)) != JSON_OK) {
    why = "the arguments are not a JSON object the policy's limits accept";
  } else if (extract(cls) != 0) why = "the call's targets are over the policy's limit";
  else {
    why = notPointedAt(store, <u32>cls);
    const own = readsOwnAccount(<u32>cls);
    if (own || readsRecords(<u32>cls)) {
      const r = readsOwnRecord(store, <u32>cls);
      // A read that names nothing of the user's gives only the entries the user named (the
      // channel "#eng" of every channel), unless it reads the user's own account.
      record = r != RECORD_NONE;
      how = (own ? READ_OWN : r == RECORD_UNNAMED ? READ_ENTRIES_ONLY : 0) | ((r & RECORD_BY_DESTINATION) != 0 ? READ_BY_DESTINATION : 0);
      if (record) why = 0;
      else if (!derivesFrom(<u32>cls)) why = "an argument of the read is not the task's own: its output is not the task's record";
    }
  }
  if (why != 0) {
    outPatchU8(0, 0);
    outAscii("ignored\t");
    outAscii(why);
    outByte(10);
    intentWriteSummary(store);
    return outFinish();
  }
  const derived = intentDerive(store, name + nameLen + argsLen, outputLen, derivesFrom(<u32>cls), record, how);
  if (derived == 0) return outFailure("out of memory: the session's intent is unchanged");
  setSessionStore(slot, derived);
  outPatchU8(0, 0);
  outAscii("derived\n");
  intentWriteSummary(derived);
  return outFinish();
}
