// The command state machine: the words of a simple command, from its prefix assignments and
// wrappers to its program; sub-commands (find -exec … ;); and what the end of a simple
// command adds (its operands, eval and cd).
import {
  NONE, SUBJ_PROGRAM, SHM_SUBCOMMAND, SHM_OPAQUE, SHM_WRITES, SHM_RUNS, SHM_AFTER_ONE, SHM_AFTER_FILE,
  SHM_APPENDS,
} from "../../../bytecode/format";
import { scratchAlloc } from "../../abi/mem";
import { fnv1a } from "../../abi/bytes";
import { wordValueHashed } from "../wordset";
import { span, spanPtr, spanLen, resolvePath, homePtr, homeLen } from "../normalize";
import { TARGETS_OOM, fail, addTargetCopy, addPatternTarget } from "../targettable";
import {
  at, wrappers, network, shells, baseCount, baseUnknown, baseAt, addBase, varScope, varEvent, varAssign,
  K_BRACE, K_IF, K_LOOP, K_CASE, cdepth, cOverflow, funcDepth, cpush, cpop, frameTop, cur, F_PHASE, F_FLAGS,
  F_SKIP, F_SPEC, F_MODE, F_OPTS, F_EXPECT, F_EXPECT_N, F_OPERANDS, F_NOPER, F_OPCAP, F_BUILTIN, F_PARENT,
  F_NAME, F_NAME_LEN, AT_START, IN_WRAPPER, AT_ARGS, FOR_NAME, FUNC_NAME, CASE_PATTERN, DBRACKET, CASE_WORD,
  NETWORK, SHELL, APPENDS, UNTIL_END, CD, SU, OPTIONS_DONE, EXPECT_VALUE, VALUE_IS_COMMAND, COMMAND_NEXT,
  HAS_OPERAND, STDIN_READ, STDIN_OPTION, UNCERTAIN, COPROC_NAME, PIPED_IN, ASSIGNS, PROGRAM_SEEN,
  SCRIPT_OPERAND, OP_PATTERN, OP_SPLIT, OP_LITERAL, OP_SUBST, get, set, hasFlag, setFlag, clearFlag,
  beginCommand, pushFrame,
} from "./state";
import {
  DEV_STDIN, ANY, writes, opaqueWith, USE_READ, USE_WRITE, usePath, isWord, startsWithLit, allDigits,
  assignmentName, hasByte, factBase, factSpace, wordFacts, wordPattern, wordSplit, wordLiteral, wordSubst,
  wordTargets, operandPath, specMode, programSpec, fixedWrites, B_CD, B_POPD, B_EVAL, B_TRAP, B_PRINTF, B_SET,
  B_HASH, B_ECHO, B_SU, builtinKind, SET_WORD,
} from "./facts";
import { nextByte, wordEnd, wordText, wordTextLen } from "./read";
import { wordAssign, wordPlain, readAgain, shellString } from "./expand";
import { optionValue, printedUrls, knownOption, knownOperands } from "./arguments";

// ---- the command state machine ----

// The words of the command at its end, kept in scratch: (ptr, len, OP_ flags) each.
export function keepOperand(f: usize, p: usize, n: u32, flags: u32): void {
  const count = get(f, F_NOPER);
  if (count == get(f, F_OPCAP)) {
    const more = max<u32>(8, count << 1);
    const grown = scratchAlloc(<usize>more * 12);
    if (grown == 0) { fail(TARGETS_OOM); return; }
    if (count > 0) memory.copy(grown, <usize>get(f, F_OPERANDS), <usize>count * 12);
    set(f, F_OPERANDS, <u32>grown);
    set(f, F_OPCAP, more);
  }
  const copy = scratchAlloc(max<usize>(<usize>n, 1));
  if (copy == 0) { fail(TARGETS_OOM); return; }
  memory.copy(copy, p, n);
  const r = <usize>get(f, F_OPERANDS) + <usize>count * 12;
  store<u32>(r, <u32>copy);
  store<u32>(r + 4, n);
  store<u32>(r + 8, flags);
  set(f, F_NOPER, count + 1);
}

export function wordOpFlags(): u32 {
  return (wordPattern ? OP_PATTERN : 0) | (wordSplit ? OP_SPLIT : 0) | (wordLiteral ? OP_LITERAL : 0) |
    (wordSubst ? OP_SUBST : 0);
}

@inline export function operandPtr(f: usize, k: u32): usize {
  return <usize>load<u32>(<usize>get(f, F_OPERANDS) + <usize>k * 12);
}

@inline export function operandLen(f: usize, k: u32): u32 {
  return load<u32>(<usize>get(f, F_OPERANDS) + <usize>k * 12 + 4);
}

@inline function operandFlags(f: usize, k: u32): u32 {
  return load<u32>(<usize>get(f, F_OPERANDS) + <usize>k * 12 + 8);
}

// Makes operand k the word being handled again (its facts and shape).
export function recall(f: usize, k: u32): void {
  const flags = operandFlags(f, k);
  wordPattern = (flags & OP_PATTERN) != 0;
  wordSplit = (flags & OP_SPLIT) != 0;
  wordLiteral = (flags & OP_LITERAL) != 0;
  wordSubst = (flags & OP_SUBST) != 0;
  wordFacts(operandPtr(f, k), operandLen(f, k));
}

// A prefix assignment (NAME=value before a program, or alone): kept to the command's end.
export function assignment(f: usize, p: usize, n: u32): void {
  setFlag(f, ASSIGNS);
  wordTargets(p, n); // PATH=/x: its value's paths
  keepOperand(f, p, n, wordOpFlags() | (wordAssign << 8));
}

// The program named by a path, as the absolute path(s) it is (and its basename, added apart).
function programPath(p: usize, n: u32): void {
  if (wordPattern) return;
  const c = at(p, 0);
  if (c == 0x2f || c == 0x7e) {
    const s = resolvePath(p, n, 0, 0);
    if (s != 0) addTargetCopy(SUBJ_PROGRAM, spanPtr(s), spanLen(s));
    return;
  }
  for (let k: u32 = 0; k < baseCount; k++) {
    const b = baseAt(k);
    const s = resolvePath(p, n, spanPtr(b), spanLen(b));
    if (s != 0) addTargetCopy(SUBJ_PROGRAM, spanPtr(s), spanLen(s));
  }
  if (baseUnknown) addPatternTarget(SUBJ_PROGRAM, ANY, 2);
}

export function startProgram(f: usize, p: usize, n: u32, depth: u32): void {
  if (wordAssign > 0) { assignment(f, p, n); return; }
  if (hasFlag(f, COPROC_NAME)) {
    clearFlag(f, COPROC_NAME);
    const next = nextByte(wordText, wordTextLen, wordEnd);
    if (wordPlain && assignmentName(p, n) == 0 && (next == 0x7b || next == 0x28)) return; // coproc NAME { … }
  }
  if (wordPlain && n <= 8) {
    if (isWord(p, n, "!") || isWord(p, n, "then") || isWord(p, n, "else") || isWord(p, n, "elif") ||
        isWord(p, n, "do") || isWord(p, n, "]]")) return;
    if (isWord(p, n, "{")) { cpush(K_BRACE, 0); return; }
    if (isWord(p, n, "}")) { cpop(K_BRACE); return; }
    if (isWord(p, n, "if")) { cpush(K_IF, 0); return; }
    if (isWord(p, n, "while") || isWord(p, n, "until")) { cpush(K_LOOP, 0); return; }
    if (isWord(p, n, "fi")) { cpop(K_IF); return; }
    if (isWord(p, n, "done")) { cpop(K_LOOP); return; }
    if (isWord(p, n, "esac")) { cpop(K_CASE); return; }
    if (isWord(p, n, "for") || isWord(p, n, "select")) { cpush(K_LOOP, 0); set(f, F_PHASE, FOR_NAME); return; }
    if (isWord(p, n, "case")) { cpush(K_CASE, 0); set(f, F_PHASE, CASE_WORD); return; }
    if (isWord(p, n, "function")) { set(f, F_PHASE, FUNC_NAME); return; }
    if (isWord(p, n, "coproc")) { setFlag(f, COPROC_NAME); return; }
    if (isWord(p, n, "[[")) { set(f, F_PHASE, DBRACKET); return; }
  }
  if (n == 0) return;
  // The prefix assignments change what runs: LD_PRELOAD, PATH, GIT_*, PAGER, BASH_ENV, ….
  const kept = get(f, F_NOPER);
  for (let k: u32 = 0; k < kept; k++) {
    const name = operandFlags(f, k) >> 8;
    opaqueWith("assignment", operandPtr(f, k), name);
    varEvent(operandPtr(f, k), name);
  }
  set(f, F_NOPER, 0);
  setFlag(f, PROGRAM_SEEN);
  set(f, F_PHASE, AT_ARGS);
  if (wordPattern) {
    addPatternTarget(SUBJ_PROGRAM, p + factBase, n - factBase);
    opaqueWith("program", p, n);
    return;
  }
  if (factSpace) { // a program name with spaces is a command line passed as one word (`watch "curl x"`)
    shellString(p, n, depth);
    return;
  }
  if (n == 1 && at(p, 0) == 0x3e) opaqueWith("program", p, n);
  const name = p + factBase;
  const len = n - factBase;
  if (factBase > 0) {
    wordTargets(p, n);
    programPath(p, n);
  }
  addTargetCopy(SUBJ_PROGRAM, name, len);
  const h = fnv1a(name, len);
  const keep = get(f, F_FLAGS) & (UNTIL_END | PIPED_IN | APPENDS | PROGRAM_SEEN | ASSIGNS);
  const spec = programSpec(name, len, h);
  const mode = specMode(spec);
  if ((mode & SHM_RUNS) != 0 || wordValueHashed(wrappers, name, len, h) >= 0 || isWord(name, len, "busybox")) {
    // A wrapper: its options (as its entry describes them), its own operands, then the program.
    set(f, F_PHASE, IN_WRAPPER);
    set(f, F_SPEC, spec);
    set(f, F_MODE, mode);
    set(f, F_SKIP, (mode & SHM_AFTER_ONE) != 0 ? 1 : 0);
    set(f, F_FLAGS, keep | ((mode & SHM_APPENDS) != 0 ? APPENDS : 0));
    if ((mode & SHM_WRITES) != 0) fixedWrites(f, spec);
    if ((mode & SHM_OPAQUE) != 0) opaqueWith("program", name, len);
    if (factBase > 0) opaqueWith("program named by a path", p, n);
    return;
  }
  let flags = keep;
  if (wordValueHashed(network, name, len, h) >= 0) flags |= NETWORK;
  if (wordValueHashed(shells, name, len, h) >= 0) flags |= SHELL;
  const builtin = factBase == 0 ? builtinKind(name, len) : 0;
  if (builtin == B_CD) flags |= CD;
  if (builtin == B_SU) flags |= SU;
  set(f, F_FLAGS, flags);
  set(f, F_BUILTIN, builtin);
  set(f, F_SPEC, spec);
  set(f, F_MODE, mode);
  if ((mode & SHM_SUBCOMMAND) != 0 || builtin == B_HASH) { // its name outlives the word: "git log", fc
    const copy = scratchAlloc(<usize>len);
    if (copy == 0) { fail(TARGETS_OOM); return; }
    memory.copy(copy, name, len);
    set(f, F_NAME, <u32>copy);
    set(f, F_NAME_LEN, len);
  }
  if ((mode & SHM_OPAQUE) != 0) opaqueWith("program", name, len);
  if ((mode & SHM_WRITES) != 0) fixedWrites(f, spec);
  // A program named by a path is whatever that file is, not the program its name suggests.
  if (factBase > 0) opaqueWith("program named by a path", p, n);
}

export function wrapperWord(f: usize, p: usize, n: u32, depth: u32): void {
  const expect = get(f, F_EXPECT_N);
  if (expect > 0) { // an option's value
    set(f, F_EXPECT_N, expect - 1);
    optionValue(f, get(f, F_EXPECT), p, n, depth);
    return;
  }
  if (!hasFlag(f, OPTIONS_DONE) && n == 1 && at(p, 0) == 0x2d && !wordPattern) {
    addTargetCopy(SUBJ_PROGRAM, p, 1); // `env -` is env -i; to another wrapper "-" may be the program
    return;
  }
  if (!hasFlag(f, OPTIONS_DONE) && n > 1 && at(p, 0) == 0x2d && !wordPattern) {
    if (isWord(p, n, "--")) { setFlag(f, OPTIONS_DONE); return; }
    clearFlag(f, UNCERTAIN);
    if (get(f, F_SPEC) != NONE) knownOption(f, p, n, depth);
    else { setFlag(f, UNCERTAIN); wordTargets(p, n); } // a wrapper nobody described
    // An option the entry does not know may take the next word, or not: where the program starts
    // is unknown (nice's -5, a value after '=' are no such option).
    if (hasFlag(f, UNCERTAIN) && !hasByte(p, n, 0x3d) && !allDigits(p + 1, n - 1)) opaqueWith("wrapper option", p, n);
    clearFlag(f, UNCERTAIN);
    return;
  }
  const skip = get(f, F_SKIP);
  if (skip > 0) { // its own operand: timeout's duration, chroot's directory, flock's lock file
    set(f, F_SKIP, skip - 1);
    if ((get(f, F_MODE) & SHM_AFTER_FILE) != 0) { usePath(p, n, wordPattern, USE_WRITE); writes(f); }
    else wordTargets(p, n);
    return;
  }
  // The program it runs: an assignment (`env X=1 cmd`) before it is one of its environment.
  set(f, F_PHASE, AT_START);
  set(f, F_SPEC, NONE);
  set(f, F_MODE, 0);
  set(f, F_OPTS, 0);
  set(f, F_FLAGS, get(f, F_FLAGS) & (UNTIL_END | PIPED_IN | APPENDS | ASSIGNS));
  if (assignmentName(p, n) > 0 && wordLiteral) { wordAssign = assignmentName(p, n); assignment(f, p, n); return; }
  startProgram(f, p, n, depth);
}

// Arguments of a shell (-c, options with values), `su` (-c), and a shell's script operand.
export function shellArgument(f: usize, p: usize, n: u32, depth: u32): void {
  if (hasFlag(f, EXPECT_VALUE)) {
    const command = hasFlag(f, VALUE_IS_COMMAND);
    clearFlag(f, EXPECT_VALUE | VALUE_IS_COMMAND);
    if (command) shellString(p, n, depth);
    return;
  }
  const isOption = n > 0 && (at(p, 0) == 0x2d || at(p, 0) == 0x2b) && !hasFlag(f, OPTIONS_DONE);
  if (isOption) {
    if (isWord(p, n, "--") || (isWord(p, n, "-") && !hasFlag(f, SU))) { setFlag(f, OPTIONS_DONE); return; }
    if (hasFlag(f, SU)) {
      if (isWord(p, n, "-c") || isWord(p, n, "--command")) setFlag(f, EXPECT_VALUE | VALUE_IS_COMMAND);
      else if (startsWithLit(p, n, "--command=")) shellString(p + 10, n - 10, depth);
      else if (isWord(p, n, "-s") || isWord(p, n, "--shell") || isWord(p, n, "-g") || isWord(p, n, "-G") ||
               isWord(p, n, "-u") || isWord(p, n, "--group") || isWord(p, n, "--supp-group")) setFlag(f, EXPECT_VALUE);
      return;
    }
    if (isWord(p, n, "-o") || isWord(p, n, "+o") || isWord(p, n, "-O") || isWord(p, n, "+O") ||
        isWord(p, n, "--rcfile") || isWord(p, n, "--init-file")) { setFlag(f, EXPECT_VALUE); return; }
    if (at(p, 0) == 0x2d && at(p, 1) != 0x2d) {
      for (let k: u32 = 1; k < n; k++) {
        if (at(p, k) == 0x63) setFlag(f, COMMAND_NEXT);
        else if (at(p, k) == 0x73) setFlag(f, STDIN_OPTION);
      }
    }
    return;
  }
  if (!hasFlag(f, SHELL)) { wordTargets(p, n); return; }
  // The first operand is the -c command line, or a script whose arguments follow.
  if (!hasFlag(f, HAS_OPERAND)) {
    if (hasFlag(f, COMMAND_NEXT)) {
      if (!wordPattern) readAgain(p, n, depth, true);
      else if (wordSubst) addTargetCopy(SUBJ_PROGRAM, DEV_STDIN, 10); // sh -c "$(curl …)": output run as code
      else opaqueWith("shell string", p, n);
    } else {
      setFlag(f, SCRIPT_OPERAND);
      if (wordSubst) addTargetCopy(SUBJ_PROGRAM, DEV_STDIN, 10); // bash <(curl …)
      else opaqueWith("script", p, n); // a script the reader does not read
      operandPath(p, n, USE_READ);
    }
  } else {
    wordTargets(p, n);
  }
  setFlag(f, HAS_OPERAND | OPTIONS_DONE);
}

// ---- sub-commands: find -exec … ; ----

export function startSub(f: usize): void {
  const g = pushFrame();
  if (g == 0) return;
  set(g, F_PARENT, <u32>f);
  set(g, F_FLAGS, UNTIL_END | PIPED_IN);
  cur = g;
}

// Ends the sub-command being read and goes back to the command it is part of.
export function endSub(depth: u32): void {
  const g = cur;
  endCommand(g, T_END, depth);
  cur = <usize>get(g, F_PARENT);
  frameTop--;
}

// Ends every sub-command left open above frame f (a find -exec without its ';').
export function closeSubs(f: usize, depth: u32): void {
  while (cur != f && cur != 0 && get(cur, F_PARENT) != 0) endSub(depth);
}

// ---- the end of a simple command ----
export const T_END: u32 = 0;   // ; newline ) or the end
export const T_PIPE: u32 = 1;  // | |&
export const T_BG: u32 = 2;    // &
export const T_ANDOR: u32 = 3; // && ||
export let afterAndOr = false; // the command follows && or || in its list

export function endCommand(f: usize, term: u32, depth: u32): void {
  if (f == 0) return;
  const phase = get(f, F_PHASE);
  const kind = get(f, F_BUILTIN);
  if (phase == AT_START && get(f, F_NOPER) > 0 && !hasFlag(f, PROGRAM_SEEN)) {
    // Assignments alone: they change the shell's variables (and, exported, every later program's
    // environment). Known from here on when plain, at the top level, certainly run.
    const certain = depth == 0 && cdepth == 0 && cOverflow == 0 && varScope == 0 && !afterAndOr &&
      !hasFlag(f, PIPED_IN | UNTIL_END) && term != T_PIPE && term != T_BG;
    const count = get(f, F_NOPER);
    for (let k: u32 = 0; k < count; k++) {
      const p = operandPtr(f, k), name = operandFlags(f, k) >> 8, fl = operandFlags(f, k) & 0xff;
      opaqueWith("assignment", p, name);
      let v = name;
      while (v < operandLen(f, k) && at(p, v) != 0x3d) v++;
      v++;
      const plain = (fl & OP_PATTERN) == 0 && at(p, name) == 0x3d; // NAME=…, not NAME+= or NAME[i]=
      if (certain && plain && v <= operandLen(f, k)) varAssign(p, name, p + v, operandLen(f, k) - v, true);
      else if (certain) varAssign(p, name, 0, 0, false);
      else varEvent(p, name);
    }
  } else if (phase == AT_ARGS || phase == IN_WRAPPER) {
    if (kind == B_EVAL || kind == B_TRAP) evalEnd(f, kind, depth);
    else if ((kind == B_ECHO || kind == B_PRINTF) && term == T_PIPE) printedUrls(f);
    else if (kind == B_SET && !hasFlag(f, HAS_OPERAND)) opaqueWith("every variable printed by", SET_WORD, 3);
    else if (kind == B_CD) cdEnd(f);
    else if (kind == B_POPD) baseUnknown = true;
    else if (get(f, F_SPEC) != NONE) knownOperands(f);
    else if (hasFlag(f, APPENDS)) usePath(ANY, 2, true, USE_READ);
    // `… | sh`, `sh < file`, `sh -s`: commands from a pipe or a file, which no rule can read.
    if (phase == AT_ARGS && hasFlag(f, SHELL) && !hasFlag(f, COMMAND_NEXT | STDIN_READ) &&
        (hasFlag(f, STDIN_OPTION) || !hasFlag(f, HAS_OPERAND))) {
      addTargetCopy(SUBJ_PROGRAM, DEV_STDIN, 10);
    }
  }
  const caseNext = phase == CASE_PATTERN;
  beginCommand(f);
  if (caseNext) set(f, F_PHASE, CASE_PATTERN);
}

// eval's words, joined by spaces, are one command line of this shell; a trap's is its action.
function evalEnd(f: usize, kind: u32, depth: u32): void {
  const count = get(f, F_NOPER);
  if (count == 0) return;
  let total: u32 = 0;
  let subst = false;
  let pattern = false;
  for (let k: u32 = 0; k < count; k++) {
    total += operandLen(f, k) + 1;
    const fl = operandFlags(f, k);
    if ((fl & OP_PATTERN) != 0) pattern = true;
    if ((fl & OP_SUBST) != 0) subst = true;
  }
  if (pattern) {
    // A command's output run as code (eval "$(curl …)") is code the reader cannot see, as
    // `| sh` is; any other text it cannot read is opaque.
    if (subst) addTargetCopy(SUBJ_PROGRAM, DEV_STDIN, 10);
    else opaqueWith(kind == B_EVAL ? "eval" : "trap", operandPtr(f, 0), operandLen(f, 0));
    return;
  }
  const t = scratchAlloc(<usize>total);
  if (t == 0) { fail(TARGETS_OOM); return; }
  let n: u32 = 0;
  for (let k: u32 = 0; k < count; k++) {
    if (k > 0) { store<u8>(t + n, 0x20); n++; }
    memory.copy(t + n, operandPtr(f, k), operandLen(f, k));
    n += operandLen(f, k);
  }
  set(f, F_NOPER, 0);
  readAgain(t, n, depth, false);
}

// cd DIR: bash may be in DIR from here on, or (when cd fails, or runs in a subshell) where it
// was; inside a function, which runs when it is called, anywhere.
function cdEnd(f: usize): void {
  if (funcDepth > 0 || cOverflow > 0) { baseUnknown = true; return; }
  if (get(f, F_NOPER) == 0) {
    if (homeLen() > 0) addBase(span(homePtr(), homeLen()));
    else baseUnknown = true;
    return;
  }
  recall(f, 0);
  const p = operandPtr(f, 0), n = operandLen(f, 0);
  if (wordPattern || isWord(p, n, "-")) { baseUnknown = true; return; }
  const count = baseCount;
  if (at(p, 0) == 0x2f) { addBase(resolvePath(p, n, 0, 0)); return; }
  for (let k: u32 = 0; k < count; k++) {
    const b = baseAt(k);
    addBase(resolvePath(p, n, spanPtr(b), spanLen(b)));
  }
}
