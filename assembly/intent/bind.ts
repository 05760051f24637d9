// Binding a session's intent from the user's own message (docs/bytecode.md §7, §8 `intent`).
import { SET_MAX_INTENT_BYTES } from "../../bytecode/format";
import { settingValue } from "../policy/decode";
import { outBegin, outByte, outPatchU8, outFinish, outFailure } from "../abi/out";
import { inputPtr, inputHolds } from "../abi/input";
import { hasPolicy } from "../policy/policy";
import { sessionSlot, sessionStore, setSessionStore } from "../decision/session";
import { intentBind, intentWriteSummary } from "./intent";

// Binds (or amends) session h's intent from the `len` bytes in the input buffer; the record is
// the status and the summary of everything the session's intent now holds.
export function bindIntent(h: i32, len: u32): u32 {
  outBegin();
  outByte(1);
  if (!inputHolds(len)) return outFailure("the message does not fit the input buffer");
  if (!hasPolicy()) return outFailure("no policy is loaded");
  const slot = sessionSlot(h);
  if (slot < 0) return outFailure("the session is unknown or was closed");
  const msg = inputPtr();
  // The binder reads at most MAX_INTENT_BYTES, cut back to a whole UTF-8 character.
  let n = min(len, settingValue(SET_MAX_INTENT_BYTES));
  while (n < len && n > 0 && (load<u8>(msg + n) & 0xc0) == 0x80) n--;
  const bound = intentBind(sessionStore(slot), msg, n);
  if (bound == 0) return outFailure("out of memory: the session's intent is unchanged");
  setSessionStore(slot, bound);
  outPatchU8(0, 0);
  intentWriteSummary(bound);
  return outFinish();
}
