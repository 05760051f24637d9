// The exports of fence.wasm (docs/bytecode.md §8). Each is thin: it resets the per-call scratch
// arena and hands over to the module that does the work.
import { SET_MAX_SESSIONS, SET_MAX_INTENT_BYTES, CONFIGURE_NO_SANDBOX } from "../../bytecode/format";
import { scratchReset, grewThisCall } from "./mem";
import { settingValue } from "../policy/decode";
import { outBegin, outByte, outAscii, outPatchU8, outFinish } from "./out";
import { inputReserve, inputPtr, inputHolds } from "./input";
import { loadPolicy, hasPolicy } from "../policy/policy";
import { sessionOpen, sessionClose, sessionSlot } from "../decision/session";
import { settleRecord, budgetsRecord, restoreRecord } from "../decision/budget";
import { bindIntent } from "../intent/bind";
import { decide as decideCall } from "../decision/decide";
import { describeTool } from "../decision/describe";
import { deriveFromOutput } from "../intent/derive";
import { narrowIntent } from "../intent/narrow";
import { failMode } from "../decision/failmode";
import { explainCall } from "../decision/explain";
import { disasmRecord } from "../policy/disasm";
import { configureEnv } from "../readers/targets";
import { exposureBind } from "../readers/exposure";
import { msg as readerMessage, msgLen as readerMessageLen, quoted as readerQuoted } from "../intent/reader_state";
import { setSandboxOff } from "../decision/sandbox";
import { profileCall, classifyCall } from "../decision/profile";

export function input(size: i32): i32 {
  scratchReset();
  const p = inputReserve(<u32>size);
  if (p == 0) return 0;
  return <i32>(<u32>p | (grewThisCall() ? 1 : 0));
}

export function load(len: i32): i32 {
  scratchReset();
  return <i32>loadPolicy(<u32>len);
}

export function configure(homeLen: i32, cwdLen: i32, hermesLen: i32, flags: i32): i32 {
  scratchReset();
  outBegin();
  outByte(1);
  const h = <u32>homeLen, c = <u32>cwdLen;
  if (!inputHolds(<u64>h + <u64>c + <u64><u32>hermesLen)) {
    outAscii("the directories do not fit the input buffer");
  } else if (configureEnv(inputPtr(), h, inputPtr() + h, c, inputPtr() + h + c, <u32>hermesLen, <u32>flags)) {
    setSandboxOff((<u32>flags & CONFIGURE_NO_SANDBOX) != 0);
    outPatchU8(0, 0);
    outAscii("ok");
  } else {
    outAscii("home, working directory and Hermes homes must be absolute paths, and flags known");
  }
  return <i32>outFinish();
}

export function session_open(): i32 {
  scratchReset();
  return hasPolicy() ? sessionOpen(settingValue(SET_MAX_SESSIONS)) : 0;
}

export function session_close(h: i32): i32 {
  scratchReset();
  return sessionClose(h) ? 1 : 0;
}

export function intent(h: i32, len: i32): i32 {
  scratchReset();
  const live = hasPolicy() && sessionSlot(h) >= 0 && inputHolds(<u32>len);
  const r = <i32>bindIntent(h, <u32>len);
  // The exposure settings the message chooses or rules out (readers/exposure.ts), in the user's
  // own words: past what the binder's reader marked quoted, pasted or forwarded.
  if (live) {
    const n = min(<u32>len, settingValue(SET_MAX_INTENT_BYTES));
    const read = readerMessage == inputPtr() && readerMessageLen <= n;
    exposureBind(h, inputPtr(), read ? readerMessageLen : n, read ? readerQuoted : 0, read);
  }
  return r;
}

export function decide(h: i32, nameLen: i32, argsLen: i32): i32 {
  scratchReset();
  return <i32>decideCall(h, <u32>nameLen, <u32>argsLen);
}

export function commit(h: i32, id: i32): i32 {
  scratchReset();
  return <i32>settleRecord(sessionSlot(h), <u32>id, true);
}

export function release(h: i32, id: i32): i32 {
  scratchReset();
  return <i32>settleRecord(sessionSlot(h), <u32>id, false);
}

export function budgets(h: i32): i32 {
  scratchReset();
  return <i32>budgetsRecord(sessionSlot(h));
}

export function budget_restore(h: i32, len: i32): i32 {
  scratchReset();
  return <i32>restoreRecord(sessionSlot(h), <u32>len, false);
}

export function budget_set(h: i32, len: i32): i32 {
  scratchReset();
  return <i32>restoreRecord(sessionSlot(h), <u32>len, true);
}

export function narrow(h: i32, len: i32): i32 {
  scratchReset();
  return <i32>narrowIntent(h, <u32>len);
}

export function derive(h: i32, nameLen: i32, argsLen: i32, outputLen: i32): i32 {
  scratchReset();
  return <i32>deriveFromOutput(h, <u32>nameLen, <u32>argsLen, <u32>outputLen);
}

export function describe(nameLen: i32, textLen: i32, schemaLen: i32, serverLen: i32, annotations: i32): i32 {
  scratchReset();
  return <i32>describeTool(<u32>nameLen, <u32>textLen, <u32>schemaLen, <u32>serverLen, <u32>annotations);
}

export function fail_mode(nameLen: i32): i32 {
  scratchReset();
  return <i32>failMode(<u32>nameLen);
}

export function explain(h: i32, nameLen: i32, argsLen: i32): i32 {
  scratchReset();
  return <i32>explainCall(h, <u32>nameLen, <u32>argsLen);
}

export function sandbox(h: i32, nameLen: i32, argsLen: i32): i32 {
  scratchReset();
  return <i32>profileCall(h, <u32>nameLen, <u32>argsLen);
}

export function sandbox_classify(h: i32, kind: i32, len: i32): i32 {
  scratchReset();
  return <i32>classifyCall(h, <u32>kind, <u32>len);
}

export function disasm(): i32 {
  scratchReset();
  return <i32>disasmRecord();
}
