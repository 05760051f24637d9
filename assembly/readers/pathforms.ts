// The names one path has in policy constants (docs/bytecode.md §6.5): its absolute normal
// form, below home its `~` form, below a Hermes home (or a profile of one) its
// `$HERMES_HOME` form, and at or below the configured working directory (when it is known) its
// `.` form. A call's path is matched against a constant in each of its forms; a constant is
// expanded into absolute forms to be compared with a pattern (§6.7).
import { scratchAlloc } from "../abi/mem";
import { sameBytes } from "../abi/bytes";
import { span, spanPtr, spanLen, homePtr, homeLen, cwdPtr, cwdLen, hermesPtr, hermesLen } from "./normalize";

const MAX_FORMS: u32 = 16;
const forms: usize = memory.data(<i32>(MAX_FORMS << 3));
let formCount: u32 = 0;
export let formsOutOfMemory = false;

const HERMES_VAR: usize = memory.data<u8>([0x24, 0x48, 0x45, 0x52, 0x4d, 0x45, 0x53, 0x5f, 0x48, 0x4f, 0x4d, 0x45]); // "$HERMES_HOME"
const HERMES_VAR_LEN: u32 = 12;
const PROFILES: usize = memory.data<u8>([0x2f, 0x70, 0x72, 0x6f, 0x66, 0x69, 0x6c, 0x65, 0x73, 0x2f]); // "/profiles/"
const PROFILES_LEN: u32 = 10;

export function formAt(k: u32): u64 {
  return load<u64>(forms + (<usize>k << 3));
}

function push(s: u64): void {
  if (formCount < MAX_FORMS) {
    store<u64>(forms + (<usize>formCount << 3), s);
    formCount++;
  }
}

// [lead, lead+leadLen) followed by [p+from, p+len), in scratch.
function joined(lead: usize, leadLen: u32, p: usize, from: u32, len: u32): u64 {
  const n = leadLen + len - from;
  const out = scratchAlloc(max<usize>(<usize>n, 1));
  if (out == 0) { formsOutOfMemory = true; return 0; }
  memory.copy(out, lead, leadLen);
  memory.copy(out + leadLen, p + from, len - from);
  return span(out, n);
}

// Where path [p, p+len) continues below directory [d, d+dLen): the index of its rest ('/' or
// the end), or -1 when it is not that directory or below it.
function below(p: usize, len: u32, d: usize, dLen: u32): i64 {
  if (dLen == 1 && load<u8>(d) == 0x2f) return len == 1 ? <i64>1 : 0;
  if (len < dLen || !sameBytes(p, d, dLen)) return -1;
  if (len == dLen) return <i64>len;
  return load<u8>(p + dLen) == 0x2f ? <i64>dLen : -1;
}

// Each Hermes home in turn: its span in hermesHome (the list is lines, §6.5).
let hermesAt: u32 = 0;
let hermesHome: u64 = 0;
function nextHermesHome(): bool {
  const list = hermesPtr(), n = hermesLen();
  if (hermesAt >= n) return false;
  let e = hermesAt;
  while (e < n && load<u8>(list + e) != 0x0a) e++;
  hermesHome = span(list + hermesAt, e - hermesAt);
  hermesAt = e + 1;
  return true;
}

// The `$HERMES_HOME` forms of an absolute path below a Hermes home or one of its profiles.
function hermesForms(p: usize, len: u32): void {
  hermesAt = 0;
  while (nextHermesHome()) {
    const h = spanPtr(hermesHome), hl = spanLen(hermesHome);
    const rest = below(p, len, h, hl);
    if (rest < 0) continue;
    push(joined(HERMES_VAR, HERMES_VAR_LEN, p, <u32>rest, len));
    // <home>/profiles/<name>/…: a home of its own.
    const r = <u32>rest;
    if (len - r > PROFILES_LEN && sameBytes(p + r, PROFILES, PROFILES_LEN)) {
      let e = r + PROFILES_LEN;
      while (e < len && load<u8>(p + e) != 0x2f) e++;
      if (e > r + PROFILES_LEN) push(joined(HERMES_VAR, HERMES_VAR_LEN, p, e, len));
    }
  }
}

// Fills the forms of call path [p, p+len) (absolute, normal); returns how many.
export function pathForms(p: usize, len: u32): u32 {
  formCount = 0;
  formsOutOfMemory = false;
  push(span(p, len));
  if (len == 0 || load<u8>(p) != 0x2f) return formCount;
  const rest = below(p, len, homePtr(), homeLen());
  if (homeLen() > 0 && rest >= 0) push(joined(TILDE, 1, p, <u32>rest, len));
  hermesForms(p, len);
  // At or below a known working directory: `.` or `./…` (an unknown one names no path).
  if (cwdLen() > 0) {
    const inTree = below(p, len, cwdPtr(), cwdLen());
    if (inTree >= 0) push(joined(DOT, 1, p, <u32>inTree, len));
  }
  return formCount;
}

const TILDE: usize = memory.data<u8>([0x7e]);
const DOT: usize = memory.data<u8>([0x2e]);
// What `.` stands for when the working directory is unknown: any directory (a pattern).
const ANY_DIRECTORY: usize = memory.data<u8>([0x2f, 0x2a, 0x2a]); // "/**"

// Whether a policy constant [p, p+len) is the working directory or below it (`.`, `./…`).
export function isWorkingDirectoryConstant(p: usize, len: u32): bool {
  return len >= 1 && load<u8>(p) == 0x2e && (len == 1 || load<u8>(p + 1) == 0x2f);
}
const PROFILE_GLOB: usize = memory.data<u8>([0x2f, 0x70, 0x72, 0x6f, 0x66, 0x69, 0x6c, 0x65, 0x73, 0x2f, 0x2a]); // "/profiles/*"

// Fills the absolute forms a policy constant [p, p+len) stands for: `~/x` below home,
// `$HERMES_HOME/x` below each Hermes home and each of its profiles (a pattern then), `./x`
// below the working directory (below any directory, the pattern `/**/x`, when it is unknown),
// else itself.
export function constantForms(p: usize, len: u32): u32 {
  formCount = 0;
  formsOutOfMemory = false;
  if (isWorkingDirectoryConstant(p, len)) {
    if (cwdLen() == 0) push(joined(ANY_DIRECTORY, 3, p, 1, len));
    else if (cwdLen() == 1) push(len == 1 ? span(cwdPtr(), 1) : joined(cwdPtr(), 0, p, 1, len));
    else push(joined(cwdPtr(), cwdLen(), p, 1, len));
    return formCount;
  }
  if (len >= 1 && load<u8>(p) == 0x7e && (len == 1 || load<u8>(p + 1) == 0x2f) && homeLen() > 0) {
    push(joined(homePtr(), homeLen(), p, 1, len));
    return formCount;
  }
  if (len >= HERMES_VAR_LEN && sameBytes(p, HERMES_VAR, HERMES_VAR_LEN) &&
      (len == HERMES_VAR_LEN || load<u8>(p + HERMES_VAR_LEN) == 0x2f)) {
    hermesAt = 0;
    while (nextHermesHome()) {
      const h = spanPtr(hermesHome), hl = spanLen(hermesHome);
      push(joined(h, hl, p, HERMES_VAR_LEN, len));
      const lead = joined(h, hl, PROFILE_GLOB, 0, 11);
      if (lead != 0) push(joined(spanPtr(lead), spanLen(lead), p, HERMES_VAR_LEN, len));
    }
    return formCount;
  }
  push(span(p, len));
  return formCount;
}
