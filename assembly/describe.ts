// `describe` (docs/bytecode.md §8): a tool the policy does not map is classified from the words
// of its description, for the later decisions of this instance.
import { strPtr, strLen, classCapability, classRisk, classifyEntryClass } from "./decode";
import { outBegin, outByte, outAscii, outBytes, outDecimal, outPatchU8, outFinish } from "./out";
import { inputPtr, inputHolds } from "./input";
import { hasPolicy } from "./policy";
import { classifyTool, classifiedByPolicy, lowestWordEntry, learnClass, WORDS_OOM, DESCRIBED_NAME_MAX } from "./classify";

function failed(why: string): u32 {
  outAscii(why);
  return outFinish();
}

// Answers the class the tool now has, `capability<TAB>risk`: a name the policy maps or its own
// words classify keeps that class; else the description's words give one (remembered), if any.
export function describeTool(nameLen: u32, textLen: u32): u32 {
  outBegin();
  outByte(1);
  if (!inputHolds(<u64>nameLen + <u64>textLen)) return failed("the call does not fit the input buffer");
  if (!hasPolicy()) return failed("no policy is loaded");
  const name = inputPtr();
  let cls = classifyTool(name, nameLen);
  if (cls == WORDS_OOM) return failed("out of memory");
  if (!classifiedByPolicy()) {
    const entry = lowestWordEntry(name + nameLen, textLen);
    if (entry == WORDS_OOM) return failed("out of memory");
    if (entry >= 0) {
      cls = <i32>classifyEntryClass(<u32>entry);
      const learned = learnClass(name, nameLen, <u32>cls);
      if (learned == 1) {
        outAscii("the tool name is longer than ");
        outDecimal(DESCRIBED_NAME_MAX);
        return failed(" bytes");
      }
      if (learned == 2) return failed("too many described tools");
      if (learned == 3) return failed("out of memory");
    }
  }
  outPatchU8(0, 0);
  outBytes(strPtr(classCapability(<u32>cls)), strLen(classCapability(<u32>cls)));
  outByte(0x09);
  outBytes(strPtr(classRisk(<u32>cls)), strLen(classRisk(<u32>cls)));
  return outFinish();
}
