// `derive` (docs/bytecode.md §7.1, §8): the output of a call the user pointed at names targets
// the user did not, "the address is in the minutes I asked you to act on". They are recorded as
// derived items, apart from the named ones, and only IN_DERIVED tests read them. The user
// pointed at a call when its class is one of the policy's `derive_from` and every target of the
// call was named in the user's own words (read to the end: no pattern, nothing opaque): the output of a call whose target was itself derived
// (a page a link led to) derives nothing, so an injected page cannot vouch for its own links.
import { SET_MAX_ARGS_BYTES, SET_MAX_JSON_DEPTH, SET_MAX_LEAVES, SUBJ_PROGRAM, SUBJ_OPAQUE, INTENT_NAMED } from "../../bytecode/format";
import { settingValue, intentDeriveCount, intentDeriveClass } from "../policy/decode";
import { outBegin, outByte, outAscii, outPatchU8, outFinish, outFailure, Text } from "../abi/out";
import { inputPtr, inputHolds } from "../abi/input";
import { hasPolicy } from "../policy/policy";
import { sessionSlot, sessionStore, setSessionStore } from "../decision/session";
import { classifyTool, WORDS_OOM } from "../decision/classify";
import { parseArgs, JSON_OK } from "../readers/json";
import { targetCount, targetKind, targetIsPattern, targetPtr, targetLen } from "../readers/targets";
import { YES } from "../decision/tri";
import { extract } from "../decision/decide";
import { intentHas, intentDerive, intentWriteSummary } from "./intent";

function derivesFrom(cls: u32): bool {
  const n = intentDeriveCount();
  for (let k: u32 = 0; k < n; k++) if (intentDeriveClass(k) == cls) return true;
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
  if (argsLen > settingValue(SET_MAX_ARGS_BYTES)) why = "the arguments are over the policy's limit";
  else if (parseArgs(name + nameLen, argsLen, settingValue(SET_MAX_JSON_DEPTH), settingValue(SET_MAX_LEAVES)) != JSON_OK) {
    why = "the arguments are not a JSON object the policy's limits accept";
  } else if (extract(cls) != 0) why = "the call's targets are over the policy's limit";
  else why = notPointedAt(store, <u32>cls);
  if (why != 0) {
    outPatchU8(0, 0);
    outAscii("ignored\t");
    outAscii(why);
    outByte(10);
    intentWriteSummary(store);
    return outFinish();
  }
  const derived = intentDerive(store, name + nameLen + argsLen, outputLen);
  if (derived == 0) return outFailure("out of memory: the session's intent is unchanged");
  setSessionStore(slot, derived);
  outPatchU8(0, 0);
  outAscii("derived\n");
  intentWriteSummary(derived);
  return outFinish();
}
