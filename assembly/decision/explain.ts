// `explain` (docs/bytecode.md §8): decides a call as `decide` does, with the run traced, and
// answers how the call was classified and which rules' tests ran, so a person can read why.
import {
  NONE, OP_DECIDE, OP_TEST_PRESENT, OP_TEST_EQUALS, OP_TEST_IN, OP_TEST_GLOB, OP_TEST_PREFIX,
  OP_TEST_DOMAIN, OP_TEST_UNDER, OP_TEST_IN_INTENT, OP_TEST_GRANTED, OP_TEST_IN_DERIVED, OP_TEST_TRUTHY, OP_TEST_AT_MOST,
  FLAG_NEGATE, SUBJ_ARG,
} from "../../bytecode/format";
import {
  strPtr, strLen, classCapability, classRisk, ruleId, insnOp, insnSubject, insnOperand, insnFlags,
  insnArg, codeCount,
} from "../policy/decode";
import { outBegin, outByte, outAscii, outBytes, outFinish, outPatchU8, Text } from "../abi/out";
import { decide, decidedClass, setReserving } from "./decide";
import { classSource } from "./classify";
import { setTracing, traceCount, tracePc, traceResult } from "./eval";
import { YES, MAYBE } from "./tri";
import { subjectName, effectName } from "../policy/disasm";

function tab(): void {
  outByte(9);
}

function outString(i: u32): void {
  outBytes(strPtr(i), strLen(i));
}

// The rule a test belongs to: the operand of the first DECIDE at or after it (§5.3: each rule's
// tests run up to its own DECIDE). NONE: the class default.
function ruleOf(pc: u32): u32 {
  let i = pc;
  const n = codeCount();
  while (i < n && insnOp(i) != OP_DECIDE) i++;
  return i < n ? insnOperand(i) : NONE;
}

function outRule(rule: u32): void {
  if (rule == NONE) outAscii("(default)");
  else outString(ruleId(rule));
}

function sourceName(source: u32): Text {
  switch (source) {
    case 1: return "mapped";
    case 2: return "name";
    case 3: return "inferred";
  }
  return "unknown";
}

// The predicate of docs/policy.md a test op stands for.
function predicateName(op: u32): Text {
  switch (op) {
    case OP_TEST_PRESENT: return "present";
    case OP_TEST_EQUALS: return "equals";
    case OP_TEST_IN: return "in";
    case OP_TEST_GLOB: return "glob";
    case OP_TEST_PREFIX: return "prefix";
    case OP_TEST_DOMAIN: return "domain";
    case OP_TEST_UNDER: return "under";
    case OP_TEST_IN_INTENT: return "in_intent";
    case OP_TEST_GRANTED: return "granted";
    case OP_TEST_IN_DERIVED: return "in_derived";
    case OP_TEST_TRUTHY: return "truthy";
    case OP_TEST_AT_MOST: return "at_most";
  }
  return "intent_any";
}

// Record: u8 status (0), then lines
//   class<TAB>capability<TAB>risk<TAB>mapped|name|inferred|unknown
//   test<TAB>rule<TAB>op<TAB>subject[<TAB>arg]<TAB>held|failed|maybe<TAB>negated|plain
//   decide<TAB>rule<TAB>allow|block|ask|warn<TAB>ends|passed
// (a DECIDE the run went on from is `passed`: a warn rule, or a rule that held maybe, §5.4)
// No test and no decide line: the call was decided before any rule ran (a prohibition, a limit).
export function explainCall(h: i32, nameLen: u32, argsLen: u32): u32 {
  setTracing(true);
  setReserving(false); // a look at the decision spends no budget
  decide(h, nameLen, argsLen);
  setReserving(true);
  setTracing(false);
  outBegin();
  outByte(1);
  const cls = decidedClass();
  if (cls >= 0) {
    outAscii("class"); tab();
    outString(classCapability(<u32>cls)); tab();
    outString(classRisk(<u32>cls)); tab();
    outAscii(sourceName(classSource()));
    outByte(10);
  }
  const n = traceCount;
  for (let k: u32 = 0; k < n; k++) {
    const pc = tracePc(k);
    if (insnOp(pc) == OP_DECIDE) {
      outAscii("decide"); tab();
      outRule(insnOperand(pc)); tab();
      const effect = insnFlags(pc);
      outAscii(effectName(effect));
      tab();
      outAscii(traceResult(k) == YES ? "ends" : "passed");
      outByte(10);
      continue;
    }
    outAscii("test"); tab();
    outRule(ruleOf(pc)); tab();
    outAscii(predicateName(insnOp(pc))); tab();
    outAscii(subjectName(insnSubject(pc)));
    if (insnSubject(pc) == SUBJ_ARG) { outByte(0x2e); outString(insnArg(pc)); }
    tab();
    const r = traceResult(k);
    outAscii(r == YES ? "held" : r == MAYBE ? "maybe" : "failed"); tab();
    outAscii((insnFlags(pc) & FLAG_NEGATE) != 0 ? "negated" : "plain");
    outByte(10);
  }
  outPatchU8(0, 0);
  return outFinish();
}
