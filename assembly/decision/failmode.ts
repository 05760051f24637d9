// `fail_mode` (docs/bytecode.md §8): whether a call to this tool may run when deciding it failed
// (a trap, a host fault). Closed unless the policy's FAIL_OPEN set names the tool's risk class.
import { SET_FAIL_OPEN } from "../../bytecode/format";
import { strPtr, strLen, classRisk, setFind, settingValue } from "../policy/decode";
import { outBegin, outByte, outBytes, outAscii, outPatchU8, outFinish } from "../abi/out";
import { inputPtr, inputHolds } from "../abi/input";
import { hasPolicy } from "../policy/policy";
import { classifyTool, WORDS_OOM } from "./classify";

// Record: u8 mode (0 closed, 1 open, 2 the question could not be answered: closed), then the
// tool's risk class or why there is none.
export function failMode(nameLen: u32): u32 {
  outBegin();
  outByte(2);
  if (!inputHolds(<u64>nameLen)) { outAscii("the name does not fit the input buffer"); return outFinish(); }
  if (!hasPolicy()) { outAscii("no policy is loaded"); return outFinish(); }
  const cls = classifyTool(inputPtr(), nameLen);
  if (cls == WORDS_OOM) { outAscii("out of memory"); return outFinish(); }
  const risk = classRisk(<u32>cls);
  outPatchU8(0, setFind(settingValue(SET_FAIL_OPEN), strPtr(risk), strLen(risk)) >= 0 ? 1 : 0);
  outBytes(strPtr(risk), strLen(risk));
  return outFinish();
}
