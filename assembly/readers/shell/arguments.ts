// The arguments of a program: of one the policy describes (its options and operands, by
// SHELL_PROGRAMS, docs/bytecode.md §3.4), of bash's builtins, and of programs nobody described.
import {
  NONE, SUBJ_PROGRAM, SHO_VALUE, SHO_VALUE2, SHO_ATTACHED, SHO_OPAQUE, SHO_OUTPUT, SHO_RECURSIVE,
  SHO_IN_PLACE, SHO_COMMAND, SHO_COMMAND_UNTIL, SHO_SUPPLIES, SHO_SCRIPT, SHO_DIRECTORY, SHO_OUTPUT_DIR,
  SHO_EXTRACT, SHO_LIST, SHO_ARCHIVE, SHO_ARCHIVE_OUT, SHO_REPLACE, SHO_MEMBERS, SHM_TREES, SHM_WRITTEN,
  SHM_LAST_WRITTEN, SHM_SECOND_WRITTEN, SHM_FIRST_SCRIPT, SHM_FIRST_DATA, SHM_NO_FILES, SHM_SUBCOMMAND,
  SHM_EXTRACTS, SHM_OLD_STYLE, SHM_KEYS, SHM_LONG_SINGLE, SHM_OPERANDS_OPAQUE, SHM_OPAQUE, SHM_REMOTE,
  SHM_WRITES, SHM_REV_PATHS,
} from "../../../bytecode/format";
import { scratchAlloc } from "../../abi/mem";
import { Text, textLen, textPtr } from "../../abi/out";
import { fnv1a, sameBytes, lowerAscii } from "../../abi/bytes";
import { setBucketCount, setBucketKey, strPtr, strLen } from "../../policy/decode";
import {
  TARGETS_OOM, fail, addTargetCopy, addMemberPatterns, targetCount as tableCount,
} from "../targettable";
import {
  ok, at, varsDynamic, isNameStart, isNameByte, varEvent, F_FLAGS, F_SPEC, F_MODE, F_OPTS, F_EXPECT,
  F_EXPECT_N, F_NOPER, F_ARCHIVE, F_DIR, F_BUILTIN, F_NAME, F_NAME_LEN, F_EXPECT_Q, F_MEMBERS, NETWORK, SHELL,
  APPENDS, SU, OPTIONS_DONE, HAS_OPERAND, UNCERTAIN, SUBCOMMAND_DONE, HAS_ARGS, OLD_DONE, OP_PATTERN,
  OP_SPLIT, get, set, hasFlag, setFlag, clearFlag,
} from "./state";
import {
  DEV_STDIN, ANY, DOT, writes, opaqueWith, USE_READ, USE_WRITE, USE_TREE, USE_TREE_WRITE, usePath, isWord,
  startsWithLit, allDigits, assignmentName, hasByte, pathLead, factSlash, factEq, factScheme, wordFacts,
  wordPattern, wordSplit, wordLiteral, wordSubst, wordUrls, wordTargets, operandPath, hostArgument,
  remoteOperand, revPath, specFlags, shortFlags, specMode, programSpec, scriptIsOpaque, fixedWrites, B_CD,
  B_POPD, B_EVAL, B_SOURCE, B_ALIAS, B_TRAP, B_DECLARE, B_UNSET, B_READ, B_MAPFILE, B_PRINTF, B_LET,
  B_GETOPTS, B_SET, B_SHOPT, B_HASH, B_TEST, B_WAIT, B_ECHO, B_SU, wordIn, setOptionSafe, setNameSafe,
  shoptNameSafe,
} from "./facts";
import { readAgain, STAR, shellString, BRACES, keepReplace } from "./expand";
import { keepOperand, wordOpFlags, operandPtr, operandLen, recall, shellArgument, startSub } from "./command";

// ---- arguments of programs the policy describes (§3.4) ----

// A value an option takes, by the option's flags.
export function optionValue(f: usize, flags: u32, p: usize, n: u32, depth: u32): void {
  wordFacts(p, n);
  if ((flags & SHO_OUTPUT) != 0) outputPath(f, p, n);
  else if ((flags & SHO_OUTPUT_DIR) != 0) {
    usePath(p, n, wordPattern, USE_TREE_WRITE);
    writes(f);
  } else if ((flags & SHO_DIRECTORY) != 0) keepValue(f, F_DIR, p, n);
  else if ((flags & SHO_ARCHIVE) != 0) keepValue(f, F_ARCHIVE, p, n);
  else if ((flags & SHO_REPLACE) != 0) keepReplace(p, n);
  else if ((flags & SHO_MEMBERS) != 0) keepMember(f, p, n);
  else if ((flags & SHO_COMMAND) != 0) {
    if (!wordPattern) shellString(p, n, depth);
    else opaqueWith("command", p, n);
  } else wordTargets(p, n);
  if ((flags & SHO_SCRIPT) != 0 && scriptIsOpaque(get(f, F_SPEC), p, n)) opaqueWith("script", p, n);
}

// A glob of the files below the trees a command reads (rg -g, grep --include), kept until its
// operands are read (§3.4 MEMBERS). A glob bash left unresolved may be any: `*`.
function keepMember(f: usize, p: usize, n: u32): void {
  if (wordPattern) { p = STAR; n = 1; }
  const node = scratchAlloc(12 + <usize>n);
  if (node == 0) { fail(TARGETS_OOM); return; }
  memory.copy(node + 12, p, n);
  store<u32>(node, get(f, F_MEMBERS));
  store<u32>(node + 4, <u32>(node + 12));
  store<u32>(node + 8, n);
  set(f, F_MEMBERS, <u32>node);
}

// The URLs echo or printf prints into a pipe: the next program may reach them (| xargs curl).
export function printedUrls(f: usize): void {
  const count = get(f, F_NOPER);
  for (let k: u32 = 0; k < count && ok(); k++) {
    recall(f, k);
    wordUrls(operandPtr(f, k), operandLen(f, k));
  }
}

// Whether a program's entry has an option that singles out files (MEMBERS).
function specHasMembers(spec: u32): bool {
  if (spec == NONE) return false;
  const buckets = setBucketCount(spec);
  for (let b: u32 = 0; b < buckets; b++) {
    const key = setBucketKey(spec, b);
    if (key == NONE) continue;
    const v = specFlags(spec, strPtr(key), strLen(key));
    if (v > 0 && (<u32>v & SHO_MEMBERS) != 0 && load<u8>(strPtr(key)) == 0x2d) return true;
  }
  return false;
}

// The files the kept globs single out below each tree the command added since entry `from` of
// the table: DIR/**/GLOB.
function memberTrees(f: usize, from: u32): void {
  for (let node = <usize>get(f, F_MEMBERS); node != 0 && ok(); node = <usize>load<u32>(node)) {
    addMemberPatterns(from, <usize>load<u32>(node + 4), load<u32>(node + 8));
  }
}

function keepValue(f: usize, field: usize, p: usize, n: u32): void {
  const copy = scratchAlloc(max<usize>(<usize>n, 1));
  if (copy == 0) { fail(TARGETS_OOM); return; }
  memory.copy(copy, p, n);
  set(f, field, <u32>copy);
  set(f, field + 4, n);
  set(f, field + 8, wordOpFlags());
}

// Special files bash opens itself, or that write nowhere: no WRITE, no PATH.
export function quietFile(p: usize, n: u32): bool {
  if (pipeFile(p, n)) return true;
  if (wordPattern) return false;
  return isWord(p, n, "/dev/null") || isWord(p, n, "/dev/stdout") || isWord(p, n, "/dev/stderr") ||
    isWord(p, n, "/dev/stdin") || isWord(p, n, "/dev/tty") || isWord(p, n, "-") ||
    (startsWithLit(p, n, "/dev/fd/") && allDigits(p + 8, n - 8));
}

// /dev/fd/N, or a process substitution `<(…)` (/dev/fd/*): a pipe, not a file.
export function pipeFile(p: usize, n: u32): bool {
  return n == 9 && startsWithLit(p, n, "/dev/fd/") && at(p, 8) == 0x2a && wordPattern;
}

// A file an option names as the command's output.
function outputPath(f: usize, p: usize, n: u32): void {
  if (quietFile(p, n)) return;
  usePath(p, n, wordPattern, USE_WRITE);
  if (wordSplit) usePath(ANY, 2, true, USE_WRITE);
  writes(f);
}

// Applies an option's flags; returns how many words of value it takes (0, 1 or 2).
function applyOption(f: usize, flags: u32, p: usize, n: u32): void {
  set(f, F_OPTS, get(f, F_OPTS) | flags);
  if ((flags & SHO_OPAQUE) != 0) opaqueWith("option", p, n);
  if ((flags & SHO_COMMAND_UNTIL) != 0) startSub(f);
}

function expectValues(f: usize, flags: u32): void {
  if ((flags & SHO_VALUE2) != 0) { set(f, F_EXPECT, flags); set(f, F_EXPECT_N, 2); }
  else if ((flags & SHO_VALUE) != 0) { set(f, F_EXPECT, flags); set(f, F_EXPECT_N, 1); }
}

// An option word: --name[=value], a cluster -abc (a letter with a value takes the rest of the
// word or the next word), or one single-dash option (find -name).
export function knownOption(f: usize, p: usize, n: u32, depth: u32): void {
  const spec = get(f, F_SPEC);
  const long = n > 2 && at(p, 1) == 0x2d;
  if (long || (get(f, F_MODE) & SHM_LONG_SINGLE) != 0 || at(p, 0) == 0x2b) {
    let eq: u32 = 1;
    while (eq < n && at(p, eq) != 0x3d) eq++;
    const plus = at(p, 0) == 0x2b;
    let flags = plus ? specFlags(spec, p, 1) : specFlags(spec, p, eq);
    if (flags < 0 && long) flags = abbreviated(spec, p, eq);
    if (flags < 0) { set(f, F_FLAGS, get(f, F_FLAGS) | UNCERTAIN); wordTargets(p, n); return; }
    const fl = <u32>flags;
    applyOption(f, fl, p, n);
    if (plus) { if (n > 1) optionValue(f, fl, p + 1, n - 1, depth); return; }
    if (eq < n) optionValue(f, fl, p + eq + 1, n - eq - 1, depth);
    else if ((fl & (SHO_VALUE | SHO_VALUE2)) != 0) expectValues(f, fl);
    else if ((fl & SHO_REPLACE) != 0) keepReplace(BRACES, 2); // xargs --replace: {}
    return;
  }
  let unknown = false;
  for (let k: u32 = 1; k < n && ok(); k++) {
    const flags = shortFlags(spec, at(p, 0), at(p, k));
    if (flags < 0) { unknown = true; continue; }
    const fl = <u32>flags;
    applyOption(f, fl, p, n);
    if ((fl & (SHO_VALUE | SHO_VALUE2 | SHO_ATTACHED)) != 0) {
      if (k + 1 < n) {
        optionValue(f, fl, p + k + 1, n - k - 1, depth);
        if ((fl & SHO_VALUE2) != 0) { set(f, F_EXPECT, fl); set(f, F_EXPECT_N, 1); }
      } else if ((fl & (SHO_VALUE | SHO_VALUE2)) != 0) expectValues(f, fl);
      else if ((fl & SHO_REPLACE) != 0) keepReplace(BRACES, 2); // xargs -i: {}
      break;
    }
  }
  if (unknown) {
    set(f, F_FLAGS, get(f, F_FLAGS) | UNCERTAIN);
    wordFacts(p, n);
    wordTargets(p, n);
  }
}

// A long option abbreviated (getopt_long and git take any prefix: `sort --out=FILE`): the flags
// of every option of the set it can stand for, or -1.
function abbreviated(spec: u32, p: usize, n: u32): i64 {
  let flags: i64 = -1;
  const buckets = setBucketCount(spec);
  for (let b: u32 = 0; b < buckets; b++) {
    const key = setBucketKey(spec, b);
    if (key == NONE) continue;
    const kp = strPtr(key), kn = strLen(key);
    if (kn <= n || !sameBytes(kp, p, n)) continue;
    const v = specFlags(spec, kp, kn);
    flags = flags < 0 ? v : flags | v;
  }
  return flags;
}

// The subcommand of a program whose entry says so (git log): PROGRAM "git log", and its entry.
function subcommand(f: usize, p: usize, n: u32): void {
  setFlag(f, SUBCOMMAND_DONE);
  if (wordPattern || hasByte(p, n, 0x20)) { opaqueWith("subcommand", p, n); set(f, F_SPEC, NONE); set(f, F_MODE, 0); return; }
  const name = <usize>get(f, F_NAME), len = get(f, F_NAME_LEN);
  const t = scratchAlloc(<usize>(len + 1 + n));
  if (t == 0) { fail(TARGETS_OOM); return; }
  memory.copy(t, name, len);
  store<u8>(t + len, 0x20);
  memory.copy(t + len + 1, p, n);
  addTargetCopy(SUBJ_PROGRAM, t, len + 1 + n);
  const spec = programSpec(t, len + 1 + n, fnv1a(t, len + 1 + n));
  set(f, F_SPEC, spec);
  set(f, F_MODE, specMode(spec));
  clearFlag(f, OPTIONS_DONE | UNCERTAIN);
  if ((specMode(spec) & SHM_OPAQUE) != 0) opaqueWith("program", t, len + 1 + n);
  if ((specMode(spec) & SHM_WRITES) != 0) fixedWrites(f, spec);
}

function knownArgument(f: usize, p: usize, n: u32, depth: u32): void {
  const expect = get(f, F_EXPECT_N);
  if (expect > 0) {
    const flags = get(f, F_EXPECT);
    set(f, F_EXPECT_N, expect - 1);
    if (expect == 1 && get(f, F_EXPECT_Q) != 0) { // the next letter's value of an old-style cluster
      set(f, F_EXPECT, get(f, F_EXPECT_Q));
      set(f, F_EXPECT_N, 1);
      set(f, F_EXPECT_Q, 0);
    }
    // Of two values the flags are the first's when it is an output (find -fprintf FILE FORMAT),
    // else the second's (jq --rawfile NAME FILE); the other is read by its shape.
    const output = (flags & SHO_OUTPUT) != 0;
    if ((flags & SHO_VALUE2) != 0 && (expect == 2) != output) wordTargets(p, n);
    else optionValue(f, flags, p, n, depth);
    return;
  }
  const mode = get(f, F_MODE);
  if (!hasFlag(f, OPTIONS_DONE) && n > 1) {
    if (isWord(p, n, "--")) { setFlag(f, OPTIONS_DONE); return; }
    const c = at(p, 0);
    if (c == 0x2d || (c == 0x2b && specFlags(get(f, F_SPEC), p, 1) >= 0)) {
      if (wordPattern) { setFlag(f, UNCERTAIN); wordTargets(p, n); return; }
      knownOption(f, p, n, depth);
      return;
    }
  }
  if ((mode & SHM_OLD_STYLE) != 0 && !hasFlag(f, OLD_DONE) && get(f, F_NOPER) == 0 && get(f, F_OPTS) == 0 &&
      !wordPattern && n > 0 && at(p, 0) != 0x2d) {
    // tar czf x.tgz: the letters are options, their values the next words in order.
    setFlag(f, OLD_DONE);
    const spec = get(f, F_SPEC);
    for (let k: u32 = 0; k < n; k++) {
      const flags = shortFlags(spec, 0x2d, at(p, k));
      if (flags < 0) { setFlag(f, UNCERTAIN); continue; }
      const fl = <u32>flags;
      applyOption(f, fl, p, n);
      if ((fl & SHO_VALUE) == 0) continue;
      if (get(f, F_EXPECT_N) == 0) { set(f, F_EXPECT, fl); set(f, F_EXPECT_N, 1); }
      else if (get(f, F_EXPECT_Q) == 0) set(f, F_EXPECT_Q, fl);
    }
    return;
  }
  if ((mode & SHM_SUBCOMMAND) != 0 && !hasFlag(f, SUBCOMMAND_DONE)) { subcommand(f, p, n); return; }
  if ((mode & SHM_KEYS) != 0 && factEq < n) {
    const flags = specFlags(get(f, F_SPEC), p, factEq + 1);
    if (flags >= 0) optionValue(f, <u32>flags, p + factEq + 1, n - factEq - 1, depth);
    else wordTargets(p, n);
    return;
  }
  if (hasFlag(f, NETWORK)) hostArgument(p, n);
  keepOperand(f, p, n, wordOpFlags());
}

// The operands of a described program, at its end: scripts, data, files read, trees, files
// written, the directory it extracts into and its archive.
export function knownOperands(f: usize): void {
  const mode = get(f, F_MODE), opts = get(f, F_OPTS);
  const count = get(f, F_NOPER);
  const uncertain = hasFlag(f, UNCERTAIN);
  let first: u32 = 0;
  if ((mode & (SHM_FIRST_SCRIPT | SHM_FIRST_DATA)) != 0 && (opts & SHO_SUPPLIES) == 0 && count > 0) {
    recall(f, 0);
    const p = operandPtr(f, 0), n = operandLen(f, 0);
    if ((mode & SHM_FIRST_SCRIPT) != 0 && scriptIsOpaque(get(f, F_SPEC), p, n)) opaqueWith("script", p, n);
    wordUrls(p, n);
    if (!uncertain) first = 1;
  }
  const trees = (mode & SHM_TREES) != 0 || (opts & SHO_RECURSIVE) != 0;
  const tableFrom = tableCount();
  const all = (mode & SHM_WRITTEN) != 0 || (opts & SHO_IN_PLACE) != 0;
  const last = (mode & SHM_LAST_WRITTEN) != 0 && (opts & SHO_OUTPUT_DIR) == 0;
  const second = (mode & SHM_SECOND_WRITTEN) != 0;
  const files = count - first;
  for (let k = first; k < count && ok(); k++) {
    recall(f, k);
    const p = operandPtr(f, k), n = operandLen(f, k);
    if ((mode & SHM_NO_FILES) != 0) continue; // printed text: a URL in it is reached by nothing
    if ((mode & SHM_OPERANDS_OPAQUE) != 0) opaqueWith("operand", p, n);
    if ((mode & SHM_REMOTE) != 0 && !wordPattern && remoteOperand(p, n)) continue;
    if ((mode & SHM_REV_PATHS) != 0 && revPath(p, n)) continue;
    const written = all || (last && files >= 2 && (k == count - 1 || uncertain)) ||
      (second && (k == first + 1 || (uncertain && k > first)));
    if (written) {
      if (quietFile(p, n)) continue;
      if (wordUrls(p, n)) continue;
      usePath(p, n, wordPattern, trees ? USE_TREE_WRITE : USE_WRITE);
      if (wordSplit) usePath(ANY, 2, true, USE_WRITE);
      writes(f);
    } else {
      operandPath(p, n, trees ? USE_TREE : USE_READ);
    }
  }
  // One operand of a program that writes its last: a new name in the working directory (ln -s x).
  if (last && files == 1 && (opts & SHO_OUTPUT_DIR) == 0) {
    const star = memory.data<u8>([0x2a]);
    usePath(star, 1, true, trees ? USE_TREE_WRITE : USE_WRITE);
    writes(f);
  }
  const extracting = ((mode & SHM_EXTRACTS) != 0 && (opts & SHO_LIST) == 0) || (opts & SHO_EXTRACT) != 0;
  // A recursive reader given no file and no archive searches the working directory (grep -r, rg).
  if (trees && files == 0 && !extracting && get(f, F_ARCHIVE + 4) == 0 && (mode & SHM_NO_FILES) == 0 && !hasFlag(f, APPENDS)) {
    operandPath(DOT, 1, USE_TREE);
  }
  // An option word the reader could not read may have been a glob that singles files out: any.
  if (trees && uncertain && specHasMembers(get(f, F_SPEC))) keepMember(f, STAR, 1);
  if (trees) memberTrees(f, tableFrom);
  if (extracting) {
    if (get(f, F_DIR + 4) > 0) {
      const fl = get(f, F_DIR + 8);
      wordPattern = (fl & OP_PATTERN) != 0;
      usePath(<usize>get(f, F_DIR), get(f, F_DIR + 4), wordPattern, USE_TREE_WRITE);
    } else {
      usePath(DOT, 1, false, USE_TREE_WRITE);
    }
    writes(f);
  } else if (get(f, F_DIR + 4) > 0) {
    const fl = get(f, F_DIR + 8);
    wordPattern = (fl & OP_PATTERN) != 0;
    wordSplit = false;
    wordFacts(<usize>get(f, F_DIR), get(f, F_DIR + 4));
    wordTargets(<usize>get(f, F_DIR), get(f, F_DIR + 4));
  }
  if (get(f, F_ARCHIVE + 4) > 0) {
    const ap = <usize>get(f, F_ARCHIVE), an = get(f, F_ARCHIVE + 4), fl = get(f, F_ARCHIVE + 8);
    wordPattern = (fl & OP_PATTERN) != 0;
    wordSplit = (fl & OP_SPLIT) != 0;
    wordFacts(ap, an);
    if ((opts & SHO_ARCHIVE_OUT) != 0) outputPath(f, ap, an);
    else operandPath(ap, an, USE_READ);
  }
  if (hasFlag(f, APPENDS)) { // xargs, find -exec {}: operands the reader cannot see
    const writesAny = all || last || second;
    usePath(ANY, 2, true, writesAny ? USE_WRITE : trees ? USE_TREE : USE_READ);
    if (writesAny) writes(f);
  }
}

// ---- arguments of bash's builtins and of programs nobody described ----

// A name a builtin binds (read NAME, printf -v NAME, export NAME): a subscript in it is
// arithmetic (opaque), a name the reader cannot read may be any variable.
export function boundName(p: usize, n: u32): void {
  if (wordPattern || !wordLiteral) { varsDynamic = true; opaqueWith("name", p, n); return; }
  let k: u32 = 0;
  while (k < n && isNameByte(at(p, k))) k++;
  if (k < n && at(p, k) == 0x5b) opaqueWith("arithmetic subscript", p, n);
  // A name of the environment (PATH, HOME, LD_PRELOAD, http_proxy) bound by `for`, `read`,
  // `printf -v`, `local` changes what later programs run and read, as an assignment does.
  if (environmentName(p, k)) opaqueWith("assignment", p, k);
  varEvent(p, k);
}

// A name programs may read from the environment: by convention, one with no lower-case letter
// (POSIX leaves lower-case names to applications), and the proxies curl and others read in
// lower case.
function environmentName(p: usize, n: u32): bool {
  if (n == 0) return false;
  if (n >= 6 && at(p, n - 6) == 0x5f && lowerAscii(at(p, n - 5)) == 0x70 && lowerAscii(at(p, n - 4)) == 0x72 &&
      lowerAscii(at(p, n - 3)) == 0x6f && lowerAscii(at(p, n - 2)) == 0x78 && lowerAscii(at(p, n - 1)) == 0x79) return true; // *_proxy
  for (let k: u32 = 0; k < n; k++) if (at(p, k) - 0x61 < 26) return false;
  return true;
}

// An expansion of a variable the line never set reads the process's environment, where Hermes
// passes the user's tokens (AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, DATABASE_URL): opaque, unless
// bash or the login sets it and it holds no secret.
export function environmentRead(p: usize, n: u32): void {
  if (!environmentName(p, n) || (n > 3 && at(p, 0) == 0x4c && at(p, 1) == 0x43 && at(p, 2) == 0x5f)) return; // LC_*
  if (wordIn(p, n, "PATH USER LOGNAME SHELL TERM LANG LANGUAGE TMPDIR TMP TEMP HOSTNAME HOSTTYPE OSTYPE MACHTYPE UID EUID PPID BASHPID SHLVL RANDOM SRANDOM LINENO SECONDS EPOCHSECONDS EPOCHREALTIME COLUMNS LINES OLDPWD REPLY OPTARG OPTIND EDITOR VISUAL PAGER CI") >= 0 ||
      wordIn(p, n, "BASH BASH_VERSION BASH_VERSINFO BASH_SOURCE BASH_LINENO BASH_SUBSHELL BASH_REMATCH FUNCNAME PIPESTATUS GROUPS DIRSTACK DISPLAY WAYLAND_DISPLAY") >= 0 ||
      wordIn(p, n, "XDG_RUNTIME_DIR XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME XDG_STATE_HOME XDG_SESSION_TYPE VIRTUAL_ENV CONDA_PREFIX CONDA_DEFAULT_ENV JAVA_HOME GOPATH GOROOT CARGO_HOME RUSTUP_HOME NVM_DIR PYENV_ROOT") >= 0) return;
  opaqueWith("environment variable", p, n);
}

// The letters of an option word of a builtin include one of `letters`.
function optionHas(p: usize, n: u32, letters: Text): bool {
  if (n < 2 || at(p, 0) != 0x2d) return false;
  for (let k: u32 = 1; k < n; k++) {
    const q = textPtr(letters);
    for (let j: u32 = 0; j < textLen(letters); j++) if (at(p, k) == <u32>load<u8>(q + j)) return true;
  }
  return false;
}

export const EXPECT_NAME: u32 = 1;  // the next word is a name the builtin binds
const EXPECT_SKIP: u32 = 2;  // the next word is an option's value
const EXPECT_SET: u32 = 3;   // set -o NAME
export const EXPECT_TEST: u32 = 4;  // test -v NAME

function builtinArgument(f: usize, kind: u32, p: usize, n: u32, depth: u32): void {
  const expect = get(f, F_EXPECT);
  set(f, F_EXPECT, 0);
  if (expect == EXPECT_NAME) { boundName(p, n); return; }
  if (expect == EXPECT_SKIP) { wordTargets(p, n); return; }
  if (expect == EXPECT_SET) { if (!setNameSafe(p, n)) opaqueWith("set -o", p, n); return; }
  if (expect == EXPECT_TEST) { if (hasByte(p, n, 0x5b)) opaqueWith("arithmetic subscript", p, n); return; }
  const option = n > 1 && at(p, 0) == 0x2d && !hasFlag(f, OPTIONS_DONE) && !wordPattern;
  if (option && isWord(p, n, "--")) { setFlag(f, OPTIONS_DONE); return; }
  const name = <usize>get(f, F_NAME), len = get(f, F_NAME_LEN);
  switch (kind) {
    case B_CD: {
      if (option) return;
      wordTargets(p, n);
      if (!hasFlag(f, HAS_OPERAND)) { setFlag(f, HAS_OPERAND); keepOperand(f, p, n, wordOpFlags()); }
      return;
    }
    case B_POPD: return;
    case B_EVAL: case B_TRAP: {
      if (kind == B_TRAP && (option || hasFlag(f, HAS_OPERAND))) return; // trap -p; the signals
      if (kind == B_TRAP) setFlag(f, HAS_OPERAND);
      keepOperand(f, p, n, wordOpFlags());
      return;
    }
    case B_SOURCE: {
      if (hasFlag(f, HAS_OPERAND)) { wordTargets(p, n); return; }
      setFlag(f, HAS_OPERAND);
      if (wordSubst) addTargetCopy(SUBJ_PROGRAM, DEV_STDIN, 10); // . <(curl …): a command's output as code
      else opaqueWith("source", p, n);
      operandPath(p, n, USE_READ);
      return;
    }
    case B_ALIAS: {
      // An alias changes what a later word runs: opaque. Its text is read as commands too, so
      // what it would do is seen.
      if (factEq >= n) return;
      opaqueWith("alias", p, n);
      if (!wordPattern) readAgain(p + factEq + 1, n - factEq - 1, depth, false);
      return;
    }
    case B_DECLARE: {
      if (n > 0 && (at(p, 0) == 0x2d || at(p, 0) == 0x2b) && !wordPattern) {
        if (optionHas(p, n, "n")) { varsDynamic = true; opaqueWith("nameref", p, n); }
        return;
      }
      const a = assignmentName(p, n);
      if (a > 0) {
        opaqueWith("assignment", p, a);
        boundName(p, a);
        wordFacts(p, n);
        wordTargets(p, n);
        return;
      }
      boundName(p, n);
      return;
    }
    case B_UNSET: {
      if (option) return;
      boundName(p, n);
      return;
    }
    case B_READ: case B_MAPFILE: case B_WAIT: case B_GETOPTS: {
      if (option) {
        if (kind == B_MAPFILE && optionHas(p, n, "C")) opaqueWith("callback", p, n);
        // A cluster's name-taking letter with more after it: the rest is the name (read -raPATH,
        // wait -pPATH); a value-taking one: the rest is its value.
        for (let k: u32 = 1; k + 1 < n; k++) {
          const c = at(p, k);
          if ((kind == B_READ && c == 0x61) || (kind == B_WAIT && c == 0x70)) { boundName(p + k + 1, n - k - 1); return; }
          if ((kind == B_READ && (c == 0x64 || c == 0x69 || c == 0x6e || c == 0x4e || c == 0x70 || c == 0x74 || c == 0x75)) ||
              (kind == B_MAPFILE && (c == 0x43 || c == 0x63 || c == 0x64 || c == 0x6e || c == 0x4f || c == 0x73 || c == 0x75))) return;
        }
        const last = at(p, n - 1);
        if (kind == B_READ && last == 0x61) set(f, F_EXPECT, EXPECT_NAME);            // -a NAME
        else if (kind == B_WAIT && last == 0x70) set(f, F_EXPECT, EXPECT_NAME);       // -p NAME
        else if ((kind == B_READ && (last == 0x64 || last == 0x69 || last == 0x6e || last == 0x4e || last == 0x70 ||
                  last == 0x74 || last == 0x75)) ||
                 (kind == B_MAPFILE && (last == 0x43 || last == 0x63 || last == 0x64 || last == 0x6e ||
                  last == 0x4f || last == 0x73 || last == 0x75))) set(f, F_EXPECT, EXPECT_SKIP);
        return;
      }
      if (kind == B_GETOPTS && !hasFlag(f, HAS_OPERAND)) { setFlag(f, HAS_OPERAND); return; } // its option string
      if (kind != B_WAIT) boundName(p, n);
      return;
    }
    case B_PRINTF: {
      if (option && isWord(p, n, "-v")) { set(f, F_EXPECT, EXPECT_NAME); return; }
      if (option && n > 2 && at(p, 1) == 0x76) { boundName(p + 2, n - 2); return; } // printf -vNAME
      keepOperand(f, p, n, wordOpFlags()); // printed: read at the end if piped
      return;
    }
    case B_LET: {
      for (let k: u32 = 0; k < n; k++) if (isNameStart(at(p, k)) || at(p, k) == 0x24) { opaqueWith("arithmetic", p, n); return; }
      return;
    }
    case B_SET: {
      setFlag(f, HAS_OPERAND);
      if (n > 1 && (at(p, 0) == 0x2d || at(p, 0) == 0x2b) && !hasFlag(f, OPTIONS_DONE)) {
        if (isWord(p, n, "-o") || isWord(p, n, "+o")) { set(f, F_EXPECT, EXPECT_SET); return; }
        if (!setOptionSafe(p, n)) opaqueWith("set", p, n);
        if (at(p, n - 1) == 0x6f) set(f, F_EXPECT, EXPECT_SET);
        return;
      }
      setFlag(f, OPTIONS_DONE); // the positional parameters
      return;
    }
    case B_SHOPT: {
      if (option) {
        if (optionHas(p, n, "su")) set(f, F_OPTS, 1);
        return;
      }
      if (get(f, F_OPTS) != 0 && !shoptNameSafe(p, n)) opaqueWith("shopt", p, n);
      return;
    }
    case B_HASH: {
      // hash -p, enable -f, compgen/complete -C -F, bind -x, history -w -a -n -r, fc (but -l).
      const c = at(name, 0);
      if (c == 0x66 && len == 2) { // fc runs commands again, unless it only lists them
        if (!hasFlag(f, HAS_OPERAND) && !optionHas(p, n, "l")) opaqueWith("fc", p, n);
        setFlag(f, HAS_OPERAND);
        return;
      }
      if (!option) return;
      if ((c == 0x68 && len == 4 && optionHas(p, n, "p")) || (c == 0x65 && optionHas(p, n, "f")) ||
          (c == 0x63 && optionHas(p, n, "CF")) || (c == 0x62 && optionHas(p, n, "x")) ||
          (c == 0x68 && len == 7 && optionHas(p, n, "wanr"))) opaqueWith("option", p, n);
      return;
    }
    case B_TEST: {
      if (isWord(p, n, "-v")) set(f, F_EXPECT, EXPECT_TEST);
      return;
    }
    case B_ECHO: keepOperand(f, p, n, wordOpFlags()); return; // printed: read at the end if piped
  }
}

// An argument of a program nobody described: its paths by shape, a bare word as a file in the
// working directory, a network program's host.
function unknownArgument(f: usize, p: usize, n: u32): void {
  wordTargets(p, n);
  if (hasFlag(f, NETWORK)) hostArgument(p, n);
  const operand = n > 0 && (at(p, 0) != 0x2d || n == 1);
  if (operand && factSlash == n && factEq == n && !factScheme && !pathLead(p, n) && !allDigits(p, n)) {
    usePath(p, n, wordPattern, USE_READ);
  }
}

export function argumentWord(f: usize, p: usize, n: u32, depth: u32): void {
  setFlag(f, HAS_ARGS);
  const builtin = get(f, F_BUILTIN);
  if (hasFlag(f, SHELL | SU)) { shellArgument(f, p, n, depth); return; }
  if (builtin != 0 && builtin != B_SU) { builtinArgument(f, builtin, p, n, depth); return; }
  if (get(f, F_SPEC) != NONE) { knownArgument(f, p, n, depth); return; }
  unknownArgument(f, p, n);
}
