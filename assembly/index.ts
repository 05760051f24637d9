// Placeholder entry so the skeleton builds; the evaluator's exports replace it.
import { outBegin, outAscii, outFinish } from "./out";
import { settingValue } from "./decode";
export function disasm(): u32 { outBegin(); outAscii("x"); return outFinish() + settingValue(1); }
