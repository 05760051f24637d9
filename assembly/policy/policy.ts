// Installing a policy: copy, verify, and only then replace the one in force. A file that fails
// verification leaves the previous policy, its sessions and what `describe` learned untouched.
import { SECTION_COUNT, SET_POLICY_NAME, HASH_OFFSET } from "../../bytecode/format";
import { alloc, free } from "../abi/mem";
import { policyBase, setPolicyBase, section, setSection, settingValue, strPtr, strLen } from "./decode";
import { verifyPolicy } from "./verify";
import { inputPtr, inputHolds } from "../abi/input";
import { sessionCloseAll } from "../decision/session";
import { forgetDescribed } from "../decision/classify";
import { outBegin, outByte, outAscii, outBytes, outHexByte, outPatchU8, outFinish } from "../abi/out";

const savedSections: usize = memory.data(4 * (SECTION_COUNT + 1));

@inline export function hasPolicy(): bool {
  return policyBase != 0;
}

// Verifies and installs the `len` bytes in the input buffer; returns the load record (§8).
export function loadPolicy(len: u32): u32 {
  outBegin();
  outByte(1);
  if (!inputHolds(len)) {
    outAscii("the policy does not fit the input buffer");
    return outFinish();
  }
  const src = inputPtr();
  const copy = alloc(max<usize>(len, 1));
  if (copy == 0) {
    outAscii("out of memory for the policy");
    return outFinish();
  }
  memory.copy(copy, src, len);
  for (let k: u32 = 1; k <= <u32>SECTION_COUNT; k++) store<u32>(savedSections + (k << 2), <u32>section(k));
  if (!verifyPolicy(copy, len)) {
    for (let k: u32 = 1; k <= <u32>SECTION_COUNT; k++) setSection(k, <usize>load<u32>(savedSections + (k << 2)));
    free(copy);
    return outFinish();
  }
  sessionCloseAll();
  forgetDescribed();
  free(policyBase);
  setPolicyBase(copy);
  outPatchU8(0, 0);
  const name = settingValue(SET_POLICY_NAME);
  outBytes(strPtr(name), strLen(name));
  outByte(0x09);
  writePolicyHash();
  return outFinish();
}

// The installed file's SHA-256 in hex.
export function writePolicyHash(): void {
  for (let i: usize = 0; i < 32; i++) outHexByte(load<u8>(policyBase + HASH_OFFSET + i));
}
