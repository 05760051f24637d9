// Binding a session's intent from the user's own message (docs/bytecode.md §7, §8 `intent`).
import { SET_MAX_INTENT_BYTES } from "./format";
import { settingValue } from "./decode";
import { outBegin, outByte, outAscii, outPatchU8, outFinish, Text } from "./out";
import { inputPtr, inputHolds } from "./input";
import { hasPolicy } from "./policy";
import { sessionSlot, sessionStore, setSessionStore } from "./session";
import { intentBind, intentWriteSummary } from "./intent";

function failed(why: Text): u32 {
  outAscii(why);
  return outFinish();
}

// Binds (or amends) session h's intent from the `len` bytes in the input buffer; the record is
// the status and the summary of everything the session's intent now holds.
export function bindIntent(h: i32, len: u32): u32 {
  outBegin();
  outByte(1);
  if (!inputHolds(len)) return failed("the message does not fit the input buffer");
  if (!hasPolicy()) return failed("no policy is loaded");
  const slot = sessionSlot(h);
  if (slot < 0) return failed("the session is unknown or was closed");
  const msg = inputPtr();
  // The binder reads at most MAX_INTENT_BYTES, cut back to a whole UTF-8 character.
  let n = min(len, settingValue(SET_MAX_INTENT_BYTES));
  while (n < len && n > 0 && (load<u8>(msg + n) & 0xc0) == 0x80) n--;
  const bound = intentBind(sessionStore(slot), msg, n);
  if (bound == 0) return failed("out of memory: the session's intent is unchanged");
  setSessionStore(slot, bound);
  outPatchU8(0, 0);
  intentWriteSummary(bound);
  return outFinish();
}
