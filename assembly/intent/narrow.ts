// `narrow` (docs/bytecode.md §7.2, §8): what a model read in the user's message can only narrow
// the session's intent, never widen it: it prohibits classes, or turns their allows into asks.
import { outBegin, outByte, outPatchU8, outFinish, outFailure, Text, textLen, textPtr } from "../abi/out";
import { inputPtr, inputHolds } from "../abi/input";
import { hasPolicy } from "../policy/policy";
import { sessionSlot, sessionStore, setSessionStore } from "../decision/session";
import { intentNarrow, narrowMalformed, intentWriteSummary } from "./intent";
import { span } from "../readers/normalize";

const SOURCE: Text = "(model)"; // the source word of every narrowing item

// Applies the narrowing lines in the input buffer to session h. Record: u8 status, then the
// session's intent summary.
export function narrowIntent(h: i32, len: u32): u32 {
  outBegin();
  outByte(1);
  if (!inputHolds(len)) return outFailure("the narrowing does not fit the input buffer");
  if (!hasPolicy()) return outFailure("no policy is loaded");
  const slot = sessionSlot(h);
  if (slot < 0) return outFailure("the session is unknown or was closed");
  const narrowed = intentNarrow(sessionStore(slot), inputPtr(), len, span(textPtr(SOURCE), textLen(SOURCE)));
  if (narrowed == 0) {
    return outFailure(narrowMalformed ? "a line is not `prohibit<TAB>capability` or `ask<TAB>capability`: nothing was applied"
      : "out of memory: the session's intent is unchanged");
  }
  setSessionStore(slot, narrowed);
  outPatchU8(0, 0);
  intentWriteSummary(narrowed);
  return outFinish();
}
