// The profile of a confined call (docs/bytecode.md §8.3), and the answers the host asks while it
// applies it: what of the paths it found below the folders it binds is hidden or read-only, and
// which environment variables are removed. The host walks and binds; every pattern is matched here.
import {
  SET_SANDBOX_HIDE, SET_SANDBOX_READ_ONLY, SET_SANDBOX_ENV, SET_SANDBOX_HOSTS, SUBJ_PATH, SUBJ_DOMAIN, SUBJ_URL, SUBJ_PROGRAM, TARGET_PATTERN,
  SANDBOX_PLAIN, SANDBOX_HIDDEN, SANDBOX_READ_ONLY, SANDBOX_CLASSIFY_ENV, SANDBOX_CLASSIFY_CREATED,
} from "../../bytecode/format";
import { settingValue, setFind, strPtr, strLen, setMemberCount, listKey, setBucketCount, setBucketKey } from "../policy/decode";
import { outBegin, outByte, outAscii, outBytes, outFinish, outPatchU8, Text } from "../abi/out";
import { inputPtr, inputHolds } from "../abi/input";
import { scratchAlloc } from "../abi/mem";
import { indexOfByte } from "../abi/bytes";
import { globMatch } from "../readers/glob";
import { constantForms, formAt } from "../readers/pathforms";
import { spanPtr, spanLen } from "../readers/normalize";
import { home, homeLength, cwd, cwdLength, foldCase, lowerInPlace } from "../readers/normalize_path";
import { targetCount, targetKind, targetEntryKind, targetPtr, targetLen } from "../readers/targets";
import { ITEM_HEAD, H_ITEMS, H_ITEMS_BYTES, A_DEST, A_SOURCE, A_NAMED, A_BARE_HOST, A_REVOKED, field, recSize, vetoes } from "../intent/intent_record";
import { decide, setReserving, decideStore, confinedCall } from "./decide";
import { sessionSlot, sessionStore } from "./session";
import { isGlob, pathClass, holdsTask, listHolds, treeWritable, named } from "./sandbox";

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

function line(key: Text, p: usize, len: u32): void {
  outAscii(key);
  outByte(9);
  outBytes(p, len);
  outByte(10);
}

// The host of a URL item: between "://" and the next '/', ':', '?' or '#'.
function urlHost(p: usize, len: u32): u64 {
  const s = indexOfByte(p, len, 0x2f, 0);
  if (s < 1 || at(p, s - 1) != 0x3a || <u32>s + 1 >= len || at(p, s + 1) != 0x2f) return 0;
  const start = <u32>s + 2;
  let end = start;
  while (end < len) {
    const c = at(p, end);
    if (c == 0x2f || c == 0x3a || c == 0x3f || c == 0x23 || c == 0x40) break;
    end++;
  }
  if (end < len && at(p, end) == 0x40) return 0; // userinfo: not a host to open
  return end > start ? ((<u64>(p + start)) << 32) | <u64>(end - start) : 0;
}

// The user's own items that open the sandbox: paths asked for as what the task writes, and hosts
// asked to be reached (a source, a destination, or named as a site).
function intentLines(store: usize): void {
  if (store == 0) return;
  const items = store + field(store, H_ITEMS);
  const bytes = field(store, H_ITEMS_BYTES);
  let off: u32 = 0;
  while (off < bytes) {
    const rec = items + <usize>off;
    off += recSize(rec);
    const kind = load<u32>(rec), len = load<u32>(rec + 8), attrs = load<u32>(rec + 12);
    if (vetoes(attrs) || (attrs & A_REVOKED) != 0) continue;
    const p = rec + ITEM_HEAD;
    if (kind == SUBJ_PATH && (attrs & A_DEST) != 0 && at(p, 0) == 0x2f) line("write", p, len);
    // A secret the request named itself ("show me ~/.ssh/config") is read where it lies.
    if (kind == SUBJ_PATH && (attrs & (A_DEST | A_SOURCE | A_NAMED)) != 0 && at(p, 0) == 0x2f &&
        listHolds(settingValue(SET_SANDBOX_HIDE), p, len)) line("show", p, len);
    else if (kind == SUBJ_DOMAIN && (attrs & (A_DEST | A_SOURCE | A_BARE_HOST)) != 0) line("host", p, len);
    else if (kind == SUBJ_URL && (attrs & (A_DEST | A_SOURCE)) != 0) {
      const h = urlHost(p, len);
      if (h != 0) line("host", <usize>(h >>> 32), <u32>h);
    }
  }
}

// `sandbox`: decides the call again (spending no budget) and, when it is confined, writes the
// profile of §8.3 as lines `key<TAB>value` (cwd, home, write, hide, guard, host) after a status byte 0;
// status 1 and a sentence when the call is not confined.
export function profileCall(h: i32, nameLen: u32, argsLen: u32): u32 {
  setReserving(false);
  decide(h, nameLen, argsLen);
  setReserving(true);
  const store = decideStore;
  outBegin();
  outByte(1);
  if (!confinedCall) {
    outAscii("the call is not confined");
    return outFinish();
  }
  outPatchU8(0, 0);
  line("cwd", cwd, cwdLength);
  line("home", home, homeLength);
  if (treeWritable()) line("write", cwd, cwdLength);
  intentLines(store);
  // The literal members of the hide list, in their absolute forms; a glob is found by the walk.
  const hide = settingValue(SET_SANDBOX_HIDE);
  const members = setMemberCount(hide);
  for (let j: u32 = 0; j < members; j++) {
    const key = listKey(hide, j);
    const k = strPtr(key), kLen = strLen(key);
    if (isGlob(k, kLen)) continue;
    const forms = constantForms(k, kLen);
    for (let f: u32 = 0; f < forms; f++) {
      const form = formAt(f);
      const fp = spanPtr(form), fl = spanLen(form);
      if (indexOfByte(fp, fl, 0x2a, 0) < 0 && !holdsTask(fp, fl)) line("hide", fp, fl);
    }
  }
  // No `guard` lines: a placeholder for each absent run-later name (some eighty of them) would
  // litter the user's tree for every command. What exists stays read-only (the walk finds it);
  // a new one is a limit of the sandbox, in docs/threat-model.md.
  // Hosts: the ones the command names (the rules let them through), and those the policy gives
  // the programs it runs (a package manager's registry).
  const programs = settingValue(SET_SANDBOX_HOSTS);
  const n = targetCount();
  for (let i: u32 = 0; i < n; i++) {
    if ((targetEntryKind(i) & TARGET_PATTERN) != 0) continue;
    const kind = targetKind(i);
    if (kind == SUBJ_DOMAIN) line("host", targetPtr(i), targetLen(i));
    else if (kind == SUBJ_PROGRAM) {
      const hosts = setFind(programs, targetPtr(i), targetLen(i));
      if (hosts < 0) continue;
      const set = <u32>hosts;
      const buckets = setBucketCount(set);
      for (let b: u32 = 0; b < buckets; b++) {
        const s = setBucketKey(set, b);
        if (s != 0xffffffff) line("host", strPtr(s), strLen(s));
      }
    }
  }
  return outFinish();
}

// sandbox_classify: the input buffer holds `len` bytes of lines (absolute paths, or environment
// variable names with `kind` SANDBOX_CLASSIFY_ENV); the answer is status 0 then one byte a line,
// SANDBOX_PLAIN, SANDBOX_READ_ONLY or SANDBOX_HIDDEN.
export function classifyCall(h: i32, kind: u32, len: u32): u32 {
  const slot = h == 0 ? -1 : sessionSlot(h);
  const store: usize = slot < 0 ? 0 : sessionStore(slot);
  outBegin();
  outByte(1);
  if (!inputHolds(<u64>len)) {
    outAscii("the lines do not fit the input buffer");
    return outFinish();
  }
  outPatchU8(0, 0);
  const p = inputPtr();
  const env = settingValue(SET_SANDBOX_ENV);
  const buf = foldCase ? scratchAlloc(max<usize>(<usize>len, 1)) : 0;
  let i: u32 = 0;
  while (i < len) {
    let j = i;
    while (j < len && at(p, j) != 10) j++;
    let s = p + i;
    const n = j - i;
    if (kind == SANDBOX_CLASSIFY_ENV) {
      // NAME=VALUE (or NAME): a pattern with '=' reads the whole line (a value's shape: `*=ghp_*`),
      // any other the name alone.
      const eq = indexOfByte(s, n, 0x3d, 0);
      const nameLen = eq < 0 ? n : <u32>eq;
      let hidden = false;
      const m = setMemberCount(env);
      for (let k: u32 = 0; k < m && !hidden; k++) {
        const key = listKey(env, k);
        const k0 = strPtr(key), kl = strLen(key);
        hidden = indexOfByte(k0, kl, 0x3d, 0) >= 0 ? globMatch(k0, kl, s, n) : globMatch(k0, kl, s, nameLen);
      }
      outByte(hidden ? SANDBOX_HIDDEN : SANDBOX_PLAIN);
    } else {
      if (buf != 0) {
        memory.copy(buf + i, s, n);
        s = buf + i;
        lowerInPlace(s, n);
      }
      const created = kind == SANDBOX_CLASSIFY_CREATED && n > 0 && at(s, 0) == 0x2f && !named(store, s, n) &&
        listHolds(settingValue(SET_SANDBOX_READ_ONLY), s, n);
      outByte(created ? SANDBOX_READ_ONLY : n > 0 && at(s, 0) == 0x2f ? <u8>pathClass(store, s, n) : SANDBOX_HIDDEN);
    }
    i = j + 1;
  }
  return outFinish();
}
