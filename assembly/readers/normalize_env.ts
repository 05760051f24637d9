// The configured environment (configureEnv, §6.5): the home and working directories and the Hermes
// homes, kept in long-lived memory in normal form. The home, the working directory and foldCase are
// normalize_path.ts's state, which paths resolve against; the Hermes homes are this module's.
import { CONFIGURE_FOLD_CASE, CONFIGURE_NO_SANDBOX } from "../../bytecode/format";
import { alloc, free } from "../abi/mem";
import { SLASH } from "./normalize_span";
import { home, homeLength, cwd, cwdLength, foldCase, canonicalPath, lowerInPlace } from "./normalize_path";

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// The folders that are a Hermes home (HERMES_HOME first, then the root whose profiles/<name>
// folders are homes too): a policy path `$HERMES_HOME/…` stands for the same path in each (§6.5).
let hermes: usize = 0;
let hermesLength: u32 = 0;
const DOT_HERMES: usize = memory.data<u8>([0x2e, 0x68, 0x65, 0x72, 0x6d, 0x65, 0x73]); // ".hermes"

export function hermesPtr(): usize { return hermes; }
export function hermesLen(): u32 { return hermesLength; }

let keptLen: u32 = 0;

// Copies an absolute directory into long-lived memory in normal form (its length in keptLen);
// 0 when it is not absolute or memory is exhausted.
function keepDirectory(p: usize, len: u32): usize {
  if (len == 0 || at(p, 0) != SLASH) return 0;
  const buf = alloc(<usize>len);
  if (buf == 0) return 0;
  memory.copy(buf, p, len);
  keptLen = canonicalPath(buf, len, false);
  return buf;
}

// The Hermes homes of [p, p+len): absolute folders, one per line, each in normal form, kept
// as lines in long-lived memory (in keptLen: their length); 0 when one is not absolute. An
// empty list stands for home's `.hermes`.
function keepHermesHomes(p: usize, len: u32, homeDir: usize, homeDirLen: u32): usize {
  const defaultHome = len == 0;
  const size = defaultHome ? homeDirLen + 8 : len + 1;
  const buf = alloc(<usize>size);
  if (buf == 0) return 0;
  let n: u32 = 0;
  if (defaultHome) {
    memory.copy(buf, homeDir, homeDirLen);
    n = homeDirLen;
    if (!(homeDirLen == 1 && at(homeDir, 0) == SLASH)) { store<u8>(buf + n, SLASH); n++; }
    memory.copy(buf + n, DOT_HERMES, 7);
    keptLen = n + 7;
    return buf;
  }
  let i: u32 = 0;
  while (i < len) {
    let j = i;
    while (j < len && at(p, j) != 0x0a) j++;
    if (j == i || at(p, i) != SLASH) { free(buf); return 0; }
    memory.copy(buf + n, p + i, j - i);
    const m = canonicalPath(buf + n, j - i, false);
    n += m;
    if (j < len) { store<u8>(buf + n, 0x0a); n++; }
    i = j + 1;
  }
  keptLen = n;
  return buf;
}
// Sets the home and working directories (both must be absolute) and the Hermes homes (§6.5);
// false leaves all unchanged.
export function configureEnv(h: usize, hLen: u32, c: usize, cLen: u32, hh: usize, hhLen: u32, flags: u32): bool {
  if ((flags & ~(CONFIGURE_FOLD_CASE | CONFIGURE_NO_SANDBOX)) != 0) return false;
  const newHome = keepDirectory(h, hLen);
  const newHomeLen = keptLen;
  // An empty working directory is unknown (§8): relative paths may be below any directory.
  const newCwd = cLen == 0 ? <usize>0 : keepDirectory(c, cLen);
  const newCwdLen = cLen == 0 ? 0 : keptLen;
  const newHermes: usize = newHome == 0 ? 0 : keepHermesHomes(hh, hhLen, newHome, newHomeLen);
  if (newHome == 0 || (cLen != 0 && newCwd == 0) || newHermes == 0) {
    free(newHome);
    free(newCwd);
    free(newHermes);
    return false;
  }
  free(home);
  free(cwd);
  free(hermes);
  home = newHome;
  homeLength = newHomeLen;
  cwd = newCwd;
  cwdLength = newCwdLen;
  hermes = newHermes;
  hermesLength = keptLen;
  foldCase = (flags & CONFIGURE_FOLD_CASE) != 0;
  if (foldCase) {
    lowerInPlace(home, homeLength);
    lowerInPlace(cwd, cwdLength);
    lowerInPlace(hermes, hermesLength);
  }
  return true;
}
