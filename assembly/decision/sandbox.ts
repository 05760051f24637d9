// The task's sandbox (docs/bytecode.md §8.3): which calls a `confine` can hold, and the one
// writable set that a confined call's writes must stay in: what the profile (profile.ts) and the
// decision (decide.ts) both read.
import {
  SET_SANDBOX_CAPABILITIES, SET_SANDBOX_HIDE, SET_SANDBOX_READ_ONLY, SUBJ_WRITE, SUBJ_PATH, TARGET_PATTERN, INTENT_DESTINATION, INTENT_EXACT,
  SANDBOX_PLAIN, SANDBOX_READ_ONLY, SANDBOX_HIDDEN,
} from "../../bytecode/format";
import { settingValue, setFind, strPtr, strLen, classCapability, listKey } from "../policy/decode";
import { startsWith, indexOfByte } from "../abi/bytes";
import { globMatch } from "../readers/glob";
import { someMemberHolds } from "../policy/globindex";
import { constantForms, formAt, formsOutOfMemory } from "../readers/pathforms";
import { spanPtr, spanLen } from "../readers/normalize";
import { cwd, cwdLength, home, homeLength } from "../readers/normalize_path";
import { targetCount, targetKind, targetEntryKind, targetPtr, targetLen } from "../readers/targets";
import { intentHas } from "../intent/intent";
import { YES } from "./tri";

// Set by configure (CONFIGURE_NO_SANDBOX): the host cannot confine, or the operator turned it off.
export let sandboxOff = false;
export function setSandboxOff(off: bool): void {
  sandboxOff = off;
}

// Whether a call of class `cls` can run confined here.
export function sandboxCovers(cls: u32): bool {
  if (sandboxOff || cwdLength == 0) return false; // no working tree to bind: nothing to confine to
  const cap = classCapability(cls);
  return setFind(settingValue(SET_SANDBOX_CAPABILITIES), strPtr(cap), strLen(cap)) >= 0;
}

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// A policy constant with a glob character: matched as a glob, else it stands for a path and all below it.
export function isGlob(k: usize, kLen: u32): bool {
  return indexOfByte(k, kLen, 0x2a, 0) >= 0 || indexOfByte(k, kLen, 0x3f, 0) >= 0 || indexOfByte(k, kLen, 0x7b, 0) >= 0;
}

// [p, p+len) is [d, d+dLen) or below it.
function below(p: usize, len: u32, d: usize, dLen: u32): bool {
  if (dLen == 1 && at(d, 0) == 0x2f) return len > 0 && at(p, 0) == 0x2f;
  return startsWith(p, len, d, dLen) && (len == dLen || at(p, dLen) == 0x2f);
}

// A literal path the sandbox hides that holds the home or the working directory (`/root`, listed
// as another user's secrets, when the agent runs as root) would hide the task itself: it is not
// hidden whole, and its secrets are listed one by one.
export function holdsTask(fp: usize, fl: u32): bool {
  return below(home, homeLength, fp, fl) || (cwdLength > 0 && below(cwd, cwdLength, fp, fl));
}

// A member of LIST set `set` holds for an absolute path: a literal member (no glob character)
// for the path and everything below it, a glob as rules match globs, each in its absolute forms.
export function listHolds(set: u32, p: usize, len: u32): bool {
  return someMemberHolds(set, p, len, sandboxMemberHolds);
}

function sandboxMemberHolds(set: u32, member: u32, p: usize, len: u32): bool {
  const key = listKey(set, member);
  const k = strPtr(key), kLen = strLen(key);
  const glob = isGlob(k, kLen);
  // Most members are `~/...` paths: one that cannot hold for the path is passed over before
  // its absolute form is built (the host's walk asks about thousands of paths).
  if (!glob && !mayBeBelowHome(p, len, k, kLen)) return false;
  const forms = constantForms(k, kLen);
  if (formsOutOfMemory) return true; // cannot tell: the narrower answer
  for (let f: u32 = 0; f < forms; f++) {
    const form = formAt(f);
    const fp = spanPtr(form), fl = spanLen(form);
    if (glob ? globMatch(fp, fl, p, len) : below(p, len, fp, fl) && !holdsTask(fp, fl)) return true;
  }
  return false;
}

// A literal member `~/REST` holds only for a path that is home/REST or below it; any other
// member may hold (its forms decide).
function mayBeBelowHome(p: usize, len: u32, k: usize, kLen: u32): bool {
  if (kLen < 2 || at(k, 0) != 0x7e || at(k, 1) != 0x2f || homeLength <= 1) return true;
  if (!below(p, len, home, homeLength)) return false;
  const q = p + homeLength, qLen = len - homeLength, rest = k + 1, restLen = kLen - 1;
  return startsWith(q, qLen, rest, restLen) && (qLen == restLen || at(q, restLen) == 0x2f);
}

export function named(store: usize, p: usize, len: u32): bool {
  return store != 0 && intentHas(store, SUBJ_WRITE, p, len, INTENT_DESTINATION) == YES;
}

// What the sandbox makes of an absolute path: hidden, read-only, or plain.
export function pathClass(store: usize, p: usize, len: u32): u32 {
  // A secret the request named itself stays visible (the profile's `show` lines).
  if (listHolds(settingValue(SET_SANDBOX_HIDE), p, len) &&
      !(store != 0 && intentHas(store, SUBJ_PATH, p, len, INTENT_EXACT) == YES)) return SANDBOX_HIDDEN;
  if (!named(store, p, len) && listHolds(settingValue(SET_SANDBOX_READ_ONLY), p, len)) return SANDBOX_READ_ONLY;
  return SANDBOX_PLAIN;
}

// Whether the working directory is a tree the task may write: not the home or a folder above
// it, where every file that runs at a login or a start lives (there only what the request named
// is written).
export function treeWritable(): bool {
  return cwdLength > 0 && !below(home, homeLength, cwd, cwdLength);
}

// A path a confined call may write: in the working tree and not kept from it, in the sandbox's
// own /tmp, or named by the request as what the task writes.
function writable(store: usize, p: usize, len: u32): bool {
  if (named(store, p, len)) return pathClass(store, p, len) != SANDBOX_HIDDEN;
  if ((treeWritable() && below(p, len, cwd, cwdLength)) || below(p, len, TMP, 4)) return pathClass(store, p, len) == SANDBOX_PLAIN;
  return false;
}
const TMP: usize = memory.data<u8>([0x2f, 0x74, 0x6d, 0x70]); // "/tmp"

// The first literal WRITE target of the call being decided that a confined call may not write,
// as (ptr << 32 | len); 0 when every one stays in the writable set. A pattern the reader could
// not resolve is left to the sandbox, which holds it wherever it lands.
export function writeOutside(store: usize): u64 {
  const n = targetCount();
  for (let i: u32 = 0; i < n; i++) {
    if (targetKind(i) != SUBJ_WRITE || (targetEntryKind(i) & TARGET_PATTERN) != 0) continue;
    const p = targetPtr(i), len = targetLen(i);
    if (!writable(store, p, len)) return ((<u64>p) << 32) | <u64>len;
  }
  return 0;
}

