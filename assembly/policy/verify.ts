// Checks a bytecode file completely against docs/bytecode.md before it is installed, so that
// decode.ts and the evaluator can read it without checks: any byte string is either rejected
// with a reason naming the section and offset, or safe to evaluate.
//
// The caller has copied the file to `base` (the hash field is zeroed and restored here) and
// saved the section table, which this sets as it goes. On failure the reason has been written
// to the current record through out.ts.
import {
  MAGIC, FORMAT_VERSION, HEADER_SIZE, DIR_ENTRY_SIZE, HASH_OFFSET, SECTION_COUNT, SEC_STRINGS, SEC_SETS,
  SEC_TOOLS, SEC_CLASSES, SEC_RULES, SEC_CODE, SEC_CLASSIFY, SEC_INTENT, SEC_SETTINGS, SEC_BUDGETS, SEC_GLOB_INDEX,
  SETKIND_HASH, SETKIND_KEYS,
} from "../../bytecode/format";
import { sameBytes } from "../abi/bytes";
import { setSection, section, strPtr, strLen, setAddr, setKind } from "./decode";
import { sha256 } from "./sha256";
import { amountSplit } from "../readers/amount";
import { outAscii, outDecimal, Text } from "../abi/out";
import {
  strings, sets, rules, code, classes, tools, classify, intent, settings, budgets, globIndex,
} from "./verify_sections";

// Per §5.1: for each subject, bit (op - 0x10) is set when the test applies to it.
// Bit (op - TEST_PRESENT) is set when the test applies to the subject (§5.1).
export const SUBJECT_OPS: usize = memory.data<u16>([0x11f, 0xc9f, 0x6bf, 0x6bf, 0x6bf, 0x6df, 0x1f, 0x6bf, 0x6df, 0x1f, 0x69f, 0x1287]);

const storedHash: usize = memory.data(32);
const computedHash: usize = memory.data(32);
const sectionLen: usize = memory.data(4 * (SECTION_COUNT + 1));

let base: usize = 0;
export let stringCount: u32 = 0;
export let setCount: u32 = 0;
export let ruleCount: u32 = 0;
export let codeCount: u32 = 0;
export let classCount: u32 = 0;

function sectionName(kind: u32): Text {
  switch (kind) {
    case SEC_STRINGS: return "STRINGS";
    case SEC_SETS: return "SETS";
    case SEC_TOOLS: return "TOOLS";
    case SEC_CLASSES: return "CLASSES";
    case SEC_RULES: return "RULES";
    case SEC_CODE: return "CODE";
    case SEC_CLASSIFY: return "CLASSIFY";
    case SEC_INTENT: return "INTENT";
    case SEC_SETTINGS: return "SETTINGS";
    case SEC_BUDGETS: return "BUDGETS";
    case SEC_GLOB_INDEX: return "GLOB_INDEX";
  }
  return "header";
}

// Starts a rejection reason: "<SECTION> at offset <n>: <what>"; callers may append details.
export function fail(kind: u32, at: usize, what: Text): bool {
  outAscii(sectionName(kind));
  outAscii(" at offset ");
  outDecimal(<u32>(at - base));
  outAscii(": ");
  outAscii(what);
  return false;
}

export function failNum(kind: u32, at: usize, what: Text, n: u32): bool {
  fail(kind, at, what);
  outAscii(" ");
  outDecimal(n);
  return false;
}

export function len(kind: u32): u32 {
  return load<u32>(sectionLen + ((<usize>kind) << 2));
}

// A section whose fixed part of `need` bytes does not fit.
export function short(kind: u32, need: u64): bool {
  if (need <= <u64>len(kind)) return false;
  fail(kind, section(kind), "section of ");
  outDecimal(len(kind));
  outAscii(" bytes is too short for its counts");
  return true;
}

// A section whose counts say it has exactly `need` bytes.
export function sizeWrong(kind: u32, need: u64): bool {
  if (need == <u64>len(kind)) return false;
  fail(kind, section(kind), "section is ");
  outDecimal(len(kind));
  outAscii(" bytes, its counts say ");
  if (need > 0xffffffff) outAscii("more than 4 GiB"); else outDecimal(<u32>need);
  return true;
}

export function stringOk(kind: u32, at: usize, what: Text): bool {
  const i = load<u32>(at);
  if (i < stringCount) return true;
  fail(kind, at, what);
  outAscii(": string index ");
  outDecimal(i);
  outAscii(" out of range (");
  outDecimal(stringCount);
  outAscii(" strings)");
  return false;
}

// A string that the decision record carries with a length field of `maxLen`.
export function shortStringOk(kind: u32, at: usize, what: Text, maxLen: u32): bool {
  if (!stringOk(kind, at, what)) return false;
  if (strLen(load<u32>(at)) <= maxLen) return true;
  fail(kind, at, what);
  outAscii(" is longer than ");
  outDecimal(maxLen);
  outAscii(" bytes");
  return false;
}

// A string that is an AMOUNT in normal form (§6.9).
export function amountOk(kind: u32, at: usize, what: Text): bool {
  if (!stringOk(kind, at, what)) return false;
  const i = load<u32>(at);
  if (amountSplit(strPtr(i), strLen(i)) >= 0) return true;
  fail(kind, at, what);
  outAscii(" is not a sum in normal form (like 250.5 EUR)");
  return false;
}

export function setOk(kind: u32, at: usize, what: Text, setKindWanted: u32): bool {
  const i = load<u32>(at);
  if (i >= setCount) {
    fail(kind, at, what);
    outAscii(": set index ");
    outDecimal(i);
    outAscii(" out of range (");
    outDecimal(setCount);
    outAscii(" sets)");
    return false;
  }
  if (setKind(i) == setKindWanted) return true;
  fail(kind, at, what);
  outAscii(": set ");
  outDecimal(i);
  outAscii(setKindWanted == SETKIND_HASH ? " is not a HASH set" : setKindWanted == SETKIND_KEYS ? " is not a KEYS set" : " is not a LIST set");
  return false;
}

// Every member value of set `i` (HASH or LIST) is below `limit`, or in [1, limit] when `fromOne`.
export function setValuesOk(kind: u32, at: usize, what: Text, limit: u32, fromOne: bool): bool {
  const i = load<u32>(at);
  const s = setAddr(i);
  const hashed = load<u8>(s) == SETKIND_HASH;
  const slots = hashed ? load<u32>(s + 8) : load<u32>(s + 4);
  for (let j: u32 = 0; j < slots; j++) {
    const e = s + 12 + ((<usize>j) << 3);
    if (hashed && load<u32>(e) == 0) continue;
    const v = load<u32>(e + 4);
    if (fromOne ? (v >= 1 && v <= limit) : v < limit) continue;
    fail(kind, at, what);
    outAscii(": set ");
    outDecimal(i);
    outAscii(" maps a member to ");
    outDecimal(v);
    outAscii(", out of range");
    return false;
  }
  return true;
}

function header(len: u32): bool {
  if (len < <u32>HEADER_SIZE) return failNum(0, base, "file is too short for the header, bytes:", len);
  if (load<u32>(base) != MAGIC) return fail(0, base, "bad magic: not an AgentsFence bytecode file");
  const version = <u32>load<u16>(base + 4);
  if (version != FORMAT_VERSION) return failNum(0, base + 4, "unsupported format version", version);
  if (load<u16>(base + 6) != 0) return fail(0, base + 6, "flags must be 0");
  const total = load<u32>(base + 8);
  if (total != len) {
    failNum(0, base + 8, "total length field says", total);
    outAscii(" bytes, the file has ");
    outDecimal(len);
    return false;
  }
  memory.copy(storedHash, base + HASH_OFFSET, 32);
  memory.fill(base + HASH_OFFSET, 0, 32);
  sha256(base, len, computedHash);
  memory.copy(base + HASH_OFFSET, storedHash, 32);
  if (!sameBytes(storedHash, computedHash, 32)) {
    return fail(0, base + HASH_OFFSET, "SHA-256 mismatch: the file is damaged or was altered");
  }
  const n = load<u32>(base + 12);
  if (n != <u32>SECTION_COUNT) {
    failNum(0, base + 12, "section count must be", SECTION_COUNT);
    outAscii(", found ");
    outDecimal(n);
    return false;
  }
  const dirEnd = <u32>(HEADER_SIZE + DIR_ENTRY_SIZE * SECTION_COUNT);
  if (len < dirEnd) return fail(0, base + 12, "the section directory runs past the end of the file");
  for (let k: u32 = 1; k <= <u32>SECTION_COUNT; k++) {
    const e = base + HEADER_SIZE + <usize>(k - 1) * DIR_ENTRY_SIZE;
    const kind = load<u32>(e), off = load<u32>(e + 4), size = load<u32>(e + 8);
    if (kind != k) {
      failNum(0, e, "directory entry lists kind", kind);
      outAscii(", expected ");
      outDecimal(k);
      return false;
    }
    if ((off & 3) != 0) return failNum(0, e + 4, "section is not 4-byte aligned:", k);
    if (off < dirEnd || <u64>off + <u64>size > <u64>len) {
      return failNum(0, e + 4, "section lies outside the file:", k);
    }
    for (let j: u32 = 1; j < k; j++) {
      const o = load<u32>(base + HEADER_SIZE + <usize>(j - 1) * DIR_ENTRY_SIZE + 4);
      const s = load<u32>(base + HEADER_SIZE + <usize>(j - 1) * DIR_ENTRY_SIZE + 8);
      if (off < o + s && o < off + size) {
        failNum(0, e + 4, "section overlaps section", j);
        outAscii(": ");
        outDecimal(k);
        return false;
      }
    }
    setSection(k, base + off);
    store<u32>(sectionLen + ((<usize>k) << 2), size);
  }
  return true;
}

// Verifies the file at [at, at+length): true when every check of docs/bytecode.md holds.
export function verifyPolicy(at: usize, length: u32): bool {
  base = at;
  stringCount = setCount = ruleCount = codeCount = classCount = 0;
  return header(length) && strings() && sets() && rules() && code() && classes() && tools()
    && classify() && intent() && settings() && budgets() && globIndex();
}
