// Reads a command line the way bash reads it (docs/bytecode.md §6.6) and adds what it does to the
// call's table: per simple command its PROGRAM, the paths it reads (PATH) and writes (WRITE), the
// hosts it reaches (DOMAIN, URL), and OPAQUE for whatever the reader cannot model. Words are
// expanded as bash expands them: quotes and escapes, brace lists, tildes, variables assigned
// earlier in the line, command and arithmetic substitution, field splitting and globs. What the
// reader cannot resolve is a pattern (§6.7): `**` for an unknown expansion, `*` `?` for a glob.
// Redirections are reads, writes or connections; a write, a connection, a prefix assignment, an
// executing option and a program named by a path each leave a fact no allow rule over PROGRAM
// can pass (§6.6). What programs' options do is the policy's SHELL_PROGRAMS (§3.4); only bash
// itself is known here. Shell strings (`sh -c`, `eval`, `trap`, `find -exec`) are read again as
// commands, at most maxDepth levels deep; deeper nesting fails the call with TARGETS_LIMIT.
//
// The reader, by job: state.ts (the settings, the word buffer, working directories, variables,
// compound commands, frames), facts.ts (what it adds to the table; word tests; programs and
// builtins), read.ts (reading a word), expand.ts (expanding it; shell strings read again),
// command.ts (the command state machine, sub-commands, a command's end), arguments.ts (options
// and operands); here: redirections, here-documents, words to their command, and the entry.
import { scratchAlloc } from "../../abi/mem";
import { isAsciiDigit, sameBytes } from "../../abi/bytes";
import { findUrl, urlEnd } from "../scan";
import { globsMeet } from "../glob";
import { TARGETS_OOM, fail, addHost, addUrlIn, pathBase, directoryMoved } from "../targettable";
import {
  ok, at, wrappers, network, shells, extensions, programs, maxDepth, topP, topLen, unterminated, buf, half,
  bufTop, wStart, wMask, byteClassReady, fillByteClass, startWord, popTo, resumeWord, basesReset, basesMoved, basesSave,
  varsBegin, isNameStart, isNameByte, varEvent, varsCheck, K_PAREN, K_CASE, K_FUNC, cstack, cdepth, cOverflow,
  funcDepth, cpush, ctop, cpop, MAX_HEREDOCS, frameTop, cur, F_PHASE, F_REDIRECT, F_HEREDOCS, F_EXPECT,
  F_OPERANDS, F_NOPER, AT_START, IN_WRAPPER, AT_ARGS, IGNORED, FOR_NAME, FUNC_NAME, CASE_PATTERN, DBRACKET,
  CASE_WORD, SHELL, APPENDS, UNTIL_END, HAS_OPERAND, STDIN_READ, HAS_ARGS, PIPED_IN, PROGRAM_SEEN, R_IN,
  R_OUT, R_DUP_OUT, R_DUP_IN, R_HEREDOC, R_HEREDOC_DASH, R_HERESTRING, H_DASH, H_QUOTED, H_SHELL, OP_PATTERN,
  get, set, hasFlag, setFlag, clearFlag, beginCommand, pushFrame,
} from "./state";
import {
  ANY, writes, opaqueWith, opaque, USE_READ, USE_WRITE, usePath, isWord, startsWithLit, allDigits, hasByte,
  factScheme, wordFacts, wordPattern, wordSplit, wordQuoted, rawPtr, rawLen, wordUrls,
} from "./facts";
import { nested, backquoted, arithName, arithmetic, braced, parameter, nextByte, readWord } from "./read";
import { wordPlain, readAgain, replacePtr, replaceLen, holdsReplace } from "./expand";
import {
  startProgram, wrapperWord, endSub, closeSubs, T_END, T_PIPE, T_BG, T_ANDOR, afterAndOr, endCommand,
} from "./command";
import { quietFile, boundName, EXPECT_NAME, EXPECT_TEST, argumentWord } from "./arguments";

// ---- redirections ----

// The target of a redirection: a file read, a file written, a connection (/dev/tcp/HOST/PORT),
// a descriptor, or a here-document's delimiter.
function redirectTarget(f: usize, r: u32, p: usize, n: u32): void {
  const kind = r & 0xff;
  if (kind == R_HERESTRING) { wordUrls(p, n); return; }
  if (kind == R_HEREDOC || kind == R_HEREDOC_DASH) { pushHeredoc(f, p, n, kind == R_HEREDOC_DASH); return; }
  if ((kind == R_DUP_OUT || kind == R_DUP_IN) && !wordPattern && (allDigits(p, n) || isWord(p, n, "-"))) return;
  if (quietFile(p, n)) return;
  if (startsWithLit(p, n, "/dev/tcp/") || startsWithLit(p, n, "/dev/udp/")) {
    // bash connects itself: egress to HOST, whichever way the redirection points.
    let e: u32 = 9;
    while (e < n && at(p, e) != 0x2f) e++;
    let wild = false;
    for (let k: u32 = 9; k < e; k++) if (at(p, k) == 0x2a || at(p, k) == 0x3f) wild = true;
    if (wordPattern && wild) opaqueWith("connection", p, n);
    else addHost(p + 9, e - 9);
    writes(f);
    return;
  }
  if (wordPattern && (globsMeet(p, n, DEV_TCP_ANY, 12) || globsMeet(p, n, DEV_UDP_ANY, 12))) {
    opaqueWith("connection", p, n); // an expansion may name /dev/tcp/…
  }
  if (kind == R_IN || kind == R_DUP_IN) { usePath(p, n, wordPattern, USE_READ); return; }
  usePath(p, n, wordPattern, USE_WRITE);
  writes(f);
}

const DEV_TCP_ANY: usize = memory.data<u8>([0x2f, 0x64, 0x65, 0x76, 0x2f, 0x74, 0x63, 0x70, 0x2f, 0x2a, 0x2f, 0x2a]); // /dev/tcp/*/*
const DEV_UDP_ANY: usize = memory.data<u8>([0x2f, 0x64, 0x65, 0x76, 0x2f, 0x75, 0x64, 0x70, 0x2f, 0x2a, 0x2f, 0x2a]); // /dev/udp/*/*

// A redirection operator at i; returns the index after it. Its target is the next word.
function redirection(p: usize, len: u32, i: u32, f: usize, fd: u32): u32 {
  const c = at(p, i);
  const d = i + 1 < len ? at(p, i + 1) : 0;
  let kind = R_OUT;
  if (c == 0x26) { // &> &>>
    i += 2;
    if (i < len && at(p, i) == 0x3e) i++;
  } else if (c == 0x3c) {
    kind = R_IN;
    if (d == 0x3c) {
      if (i + 2 < len && at(p, i + 2) == 0x3c) { kind = R_HERESTRING; i += 3; }
      else if (i + 2 < len && at(p, i + 2) == 0x2d) { kind = R_HEREDOC_DASH; i += 3; }
      else { kind = R_HEREDOC; i += 2; }
    } else if (d == 0x26) { kind = R_DUP_IN; i += 2; }
    else if (d == 0x3e) { kind = R_OUT; i += 2; } // <> opens (and creates) the file to write
    else i++;
  } else {
    if (d == 0x3e || d == 0x7c) i += 2;
    else if (d == 0x26) { kind = R_DUP_OUT; i += 2; }
    else i++;
  }
  set(f, F_REDIRECT, kind | (fd << 8));
  return i;
}

// ---- here-documents ----

function pushHeredoc(f: usize, p: usize, n: u32, dash: bool): void {
  const count = get(f, F_HEREDOCS);
  if (count >= MAX_HEREDOCS) { unterminated = true; return; }
  const copy = scratchAlloc(max<usize>(<usize>n, 1));
  if (copy == 0) { fail(TARGETS_OOM); return; }
  memory.copy(copy, p, n);
  let flags: u32 = dash ? H_DASH : 0;
  if (wordQuoted) flags |= H_QUOTED;
  if (get(f, F_PHASE) == AT_ARGS && hasFlag(f, SHELL)) {
    flags |= H_SHELL;
    setFlag(f, STDIN_READ);
  }
  const rec = f + 24 + (<usize>count << 4);
  store<u32>(rec, <u32>copy);
  store<u32>(rec + 4, n);
  store<u32>(rec + 8, flags);
  set(f, F_HEREDOCS, count + 1);
}

// URLs in text that a program reads as data.
function textUrls(p: usize, n: u32): void {
  let from: u32 = 0;
  while (from < n && ok()) {
    const u = findUrl(p, n, from);
    if (u < 0) return;
    addUrlIn(p + <u32>u, urlEnd - <u32>u, false);
    from = urlEnd;
  }
}

// Reads the bodies of the pending here-documents, which start at `pos` (after a newline).
function heredocBodies(f: usize, p: usize, len: u32, pos: u32, depth: u32): u32 {
  const count = get(f, F_HEREDOCS);
  set(f, F_HEREDOCS, 0);
  let i = pos;
  for (let h: u32 = 0; h < count && ok(); h++) {
    const rec = f + 24 + (<usize>h << 4);
    const delim = <usize>load<u32>(rec);
    const delimLen = load<u32>(rec + 4);
    const flags = load<u32>(rec + 8);
    const bodyStart = i;
    let bodyEnd = len;
    let closed = false;
    while (i < len) {
      let e = i;
      while (e < len && at(p, e) != 0x0a) e++;
      let s = i;
      if ((flags & H_DASH) != 0) while (s < e && at(p, s) == 0x09) s++;
      const next = e < len ? e + 1 : len;
      if (e - s == delimLen && sameBytes(p + s, delim, delimLen)) {
        bodyEnd = i;
        i = next;
        closed = true;
        break;
      }
      i = next;
    }
    if (!closed) unterminated = true;
    if (bodyEnd > bodyStart) heredocBody(p + bodyStart, bodyEnd - bodyStart, flags, depth);
  }
  return i;
}

function heredocBody(p: usize, n: u32, flags: u32, depth: u32): void {
  if ((flags & H_SHELL) != 0) {
    readAgain(p, n, depth, true);
    return;
  }
  textUrls(p, n);
  if ((flags & H_QUOTED) == 0) substitutionsIn(p, n, depth);
}

// Runs the command substitutions of text that is otherwise data (an unquoted here-document, an
// array's values).
function substitutionsIn(p: usize, n: u32, depth: u32): void {
  let k: u32 = 0;
  while (k < n && ok()) {
    const c = at(p, k);
    if (c == 0x5c) { k += 2; continue; }
    if (c == 0x24 && k + 1 < n && at(p, k + 1) == 0x28) {
      if (k + 2 < n && at(p, k + 2) == 0x28) {
        const end = arithmetic(p, n, k + 3, depth, false);
        if (end >= 0) {
          if (arithName) opaqueWith("arithmetic", p + k, <u32>end - k);
          k = <u32>end;
          continue;
        }
      }
      k = nested(p, n, k + 2, depth);
      continue;
    }
    if (c == 0x24 && k + 1 < n && at(p, k + 1) == 0x7b) {
      const end = braced(p, n, k + 2, depth);
      const s = k + 2, e = end > s && at(p, end - 1) == 0x7d ? end - 1 : end;
      if (e > s && (at(p, s) == 0x21 || hasByte(p + s, e - s, 0x40) || hasByte(p + s, e - s, 0x5b))) {
        const start = wStart, m = <u32>(bufTop - wStart), h = half, mask = wMask;
        startWord();
        parameter(p, s, e, true); // ${!x}, ${x@P}, subscripts: opaque as in a word
        popTo(wStart);
        resumeWord(start, m, h, mask);
      }
      k = end;
      continue;
    }
    if (c == 0x60) { k = backquoted(p, n, k + 1, depth, false); continue; }
    k++;
  }
}

// ---- words to the command they belong to ----

export function handleWord(depth: u32, p: usize, n: u32): void {
  const f = cur;
  if (f == 0 || !ok()) return;
  if (rawLen > 0) { // a glob that matches no file is its own text: its URLs as written
    wordFacts(rawPtr, rawLen);
    if (factScheme) textUrls(rawPtr, rawLen);
  }
  wordFacts(p, n);
  const redirect = get(f, F_REDIRECT);
  if (redirect != 0) {
    set(f, F_REDIRECT, 0);
    redirectTarget(f, redirect, p, n);
    return;
  }
  if (hasFlag(f, UNTIL_END) && !wordPattern && (isWord(p, n, ";") || isWord(p, n, "+"))) { endSub(depth); return; }
  if (hasFlag(f, APPENDS) && replaceLen > 0 && get(f, F_PHASE) != IN_WRAPPER && holdsReplace(p, n)) {
    // xargs -I {}: what its input puts there, any text: `**` in the word's place of it.
    const t = scratchAlloc(<usize>n * 2);
    if (t == 0) { fail(TARGETS_OOM); return; }
    let m: u32 = 0;
    for (let k: u32 = 0; k < n;) {
      if (k + replaceLen <= n && sameBytes(p + k, replacePtr, replaceLen)) {
        store<u8>(t + m, 0x2a); store<u8>(t + m + 1, 0x2a);
        m += 2; k += replaceLen;
      } else { store<u8>(t + m, at(p, k)); m++; k++; }
    }
    wordPattern = true;
    p = t;
    n = m;
    wordFacts(p, n);
  }
  if (hasFlag(f, UNTIL_END) && !wordPattern && isWord(p, n, "{}")) { // the files find passes
    wordPattern = true;
    wordSplit = false;
    p = ANY;
    n = 2;
    wordFacts(p, n);
  }
  const phase = get(f, F_PHASE);
  if (phase == AT_START) startProgram(f, p, n, depth);
  else if (phase == AT_ARGS) argumentWord(f, p, n, depth);
  else if (phase == IN_WRAPPER) wrapperWord(f, p, n, depth);
  else if (phase == FOR_NAME) {
    boundName(p, n);
    set(f, F_PHASE, IGNORED);
  } else if (phase == FUNC_NAME) {
    cpush(K_FUNC, 0);
    set(f, F_PHASE, AT_START);
  } else if (phase == CASE_WORD) {
    if (wordPlain && isWord(p, n, "in")) set(f, F_PHASE, CASE_PATTERN);
  } else if (phase == CASE_PATTERN) {
    if (wordPlain && isWord(p, n, "esac")) { cpop(K_CASE); set(f, F_PHASE, AT_START); }
  } else if (phase == DBRACKET) {
    if (wordPlain && isWord(p, n, "]]")) { set(f, F_PHASE, IGNORED); return; }
    const expect = get(f, F_EXPECT);
    set(f, F_EXPECT, 0);
    if (expect == EXPECT_TEST && hasByte(p, n, 0x5b)) opaqueWith("arithmetic subscript", p, n);
    if (expect == EXPECT_NAME && !allDigits(p, n) && !(n > 1 && at(p, 0) == 0x2d && allDigits(p + 1, n - 1))) {
      opaqueWith("arithmetic", p, n); // [[ X -eq Y ]]: both sides are arithmetic
    }
    if (wordPlain && isWord(p, n, "-v")) set(f, F_EXPECT, EXPECT_TEST);
    else if (wordPlain && (isWord(p, n, "-eq") || isWord(p, n, "-ne") || isWord(p, n, "-lt") ||
             isWord(p, n, "-le") || isWord(p, n, "-gt") || isWord(p, n, "-ge"))) {
      set(f, F_EXPECT, EXPECT_NAME);
      if (get(f, F_NOPER) > 0 && hasFlag(f, HAS_OPERAND)) opaque("arithmetic");
    } else {
      // The left side of a comparison, in case an arithmetic operator follows: numbers only.
      if (allDigits(p, n)) clearFlag(f, HAS_OPERAND); else setFlag(f, HAS_OPERAND);
      set(f, F_NOPER, 1);
    }
  }
}

// Whether the text at i opens `{NAME}` right before a redirection (exec {fd}>file): the index
// after the '}', else 0.
function varnameRedirect(p: usize, len: u32, i: u32): u32 {
  let k = i + 1;
  if (k >= len || !isNameStart(at(p, k))) return 0;
  while (k < len && isNameByte(at(p, k))) k++;
  if (k + 1 >= len || at(p, k) != 0x7d) return 0;
  const c = at(p, k + 1);
  return c == 0x3c || c == 0x3e ? k + 1 : 0;
}

// An array's values `NAME=(…)` from `from` (after the '('): the index after its ')'. The
// values' substitutions run; the array itself is not known.
function arrayValues(p: usize, len: u32, from: u32, depth: u32): u32 {
  let d: u32 = 1;
  let k = from;
  while (k < len) {
    const c = at(p, k);
    if (c == 0x5c) { k += 2; continue; }
    if (c == 0x27) { k++; while (k < len && at(p, k) != 0x27) k++; k++; continue; }
    if (c == 0x22) { k++; while (k < len && at(p, k) != 0x22) { if (at(p, k) == 0x5c) k++; k++; } k++; continue; }
    if (c == 0x28) d++;
    else if (c == 0x29) { d--; if (d == 0) break; }
    k++;
  }
  if (k >= len) { unterminated = true; k = len; }
  substitutionsIn(p + from, k - from, depth);
  return min(k + 1, len);
}

// Reads a list of commands from `pos`: to the end, or (inside `$(…)`) to its closing ')',
// whose index + 1 it returns.
export function parseList(p: usize, len: u32, pos: u32, depth: u32, inSubstitution: bool): u32 {
  const saved = cur;
  const f = pushFrame();
  if (f == 0) return len;
  const level = frameTop - 1;
  const savedAndOr = afterAndOr;
  const savedDepth = cdepth;
  afterAndOr = false;
  cur = f;
  let parens: u32 = 0;
  let arithmeticPossible = true;
  let i = pos;
  let closed = !inSubstitution;
  while (i < len && ok()) {
    const c = at(p, i);
    const d = i + 1 < len ? at(p, i + 1) : 0;
    if (c == 0x20 || c == 0x09) { i++; continue; }
    if (c == 0x5c && d == 0x0a) { i += 2; continue; }
    const phase = get(cur, F_PHASE);
    if (phase == DBRACKET && (c == 0x3c || c == 0x3e || c == 0x28 || c == 0x29 || c == 0x21 ||
        ((c == 0x26 || c == 0x7c) && d == c))) { // operators of [[ … ]]
      i += (c == 0x26 || c == 0x7c) ? 2 : 1;
      continue;
    }
    if (c == 0x0a) {
      closeSubs(f, depth);
      endCommand(cur, T_END, depth);
      afterAndOr = false;
      i = heredocBodies(cur, p, len, i + 1, depth);
      continue;
    }
    if (c == 0x23) { // a comment, to the end of the line
      while (i < len && at(p, i) != 0x0a) i++;
      continue;
    }
    if (c == 0x3b || c == 0x7c || (c == 0x26 && d != 0x3e)) {
      closeSubs(f, depth);
      let term = T_END;
      if (c == 0x7c) term = d == 0x7c ? T_ANDOR : T_PIPE;
      else if (c == 0x26) term = d == 0x26 ? T_ANDOR : T_BG;
      endCommand(cur, term, depth);
      const caseEnd = c == 0x3b && d == 0x3b;
      i++;
      if (d == c || (c == 0x7c && d == 0x26) || (c == 0x3b && d == 0x26)) i++;
      if (caseEnd && i < len && at(p, i) == 0x26) i++; // ;;&
      if (term == T_ANDOR) afterAndOr = true;
      else if (term != T_PIPE) afterAndOr = false;
      if (term == T_PIPE) setFlag(cur, PIPED_IN);
      if ((caseEnd || (c == 0x3b && d == 0x26)) && ctop() == K_CASE) set(cur, F_PHASE, CASE_PATTERN);
      continue;
    }
    if (c == 0x28) {
      const ph = get(cur, F_PHASE);
      if (ph == CASE_PATTERN) { i++; continue; } // case x in (a) …
      if (d == 0x28 && (ph == AT_START || ph == FOR_NAME) && arithmeticPossible) { // ((…)), for ((…))
        const end = arithmetic(p, len, i + 2, depth, false);
        if (end >= 0) {
          if (arithName) opaqueWith("arithmetic", p + i, <u32>end - i);
          if (ph == FOR_NAME) set(cur, F_PHASE, IGNORED);
          i = <u32>end;
          continue;
        }
        if (end == -2) arithmeticPossible = false;
      }
      // NAME ( ): a function definition. Its body, read as any commands, runs when it is called.
      if (ph == AT_ARGS && hasFlag(cur, PROGRAM_SEEN) && !hasFlag(cur, HAS_ARGS) && nextByte(p, len, i + 1) == 0x29) {
        let k = i + 1;
        while (at(p, k) != 0x29) k++;
        beginCommand(cur);
        cpush(K_FUNC, 0);
        i = k + 1;
        continue;
      }
      if (ph == AT_START && nextByte(p, len, i + 1) == 0x29 && funcDepth > 0 && ctop() == K_FUNC) { // function f ()
        let k = i + 1;
        while (at(p, k) != 0x29) k++;
        i = k + 1;
        continue;
      }
      closeSubs(f, depth);
      endCommand(cur, T_END, depth);
      parens++;
      cpush(K_PAREN, basesSave());
      i++;
      continue;
    }
    if (c == 0x29) {
      if (get(cur, F_PHASE) == CASE_PATTERN) { set(cur, F_PHASE, AT_START); i++; continue; }
      closeSubs(f, depth);
      endCommand(cur, T_END, depth);
      if (inSubstitution && parens == 0) { closed = true; i++; break; }
      if (parens > 0) { parens--; cpop(K_PAREN); }
      i++;
      continue;
    }
    if (c == 0x7b) {
      const v = varnameRedirect(p, len, i);
      if (v != 0) { varEvent(p + i + 1, v - i - 2); i = v; continue; }
    }
    if ((c == 0x3c || c == 0x3e) && d != 0x28) { i = redirection(p, len, i, cur, 0); continue; }
    if (c == 0x26) { i = redirection(p, len, i, cur, 0); continue; }
    if (isAsciiDigit(c)) { // an fd number before a redirection: 2>file
      let k = i;
      while (k < len && isAsciiDigit(at(p, k))) k++;
      if (k < len && (at(p, k) == 0x3c || at(p, k) == 0x3e) && !(k + 1 < len && at(p, k + 1) == 0x28)) {
        i = redirection(p, len, k, cur, min<u32>(k - i, 3));
        continue;
      }
    }
    i = readWord(p, len, i, depth);
    // NAME=(…): an array assignment.
    if (i < len && at(p, i) == 0x28 && get(cur, F_PHASE) == AT_START && get(cur, F_NOPER) > 0 && i > 0 && at(p, i - 1) == 0x3d) {
      i = arrayValues(p, len, i + 1, depth);
      const k = get(cur, F_NOPER) - 1;
      const r = <usize>get(cur, F_OPERANDS) + <usize>k * 12;
      store<u32>(r + 8, load<u32>(r + 8) | OP_PATTERN);
    }
  }
  closeSubs(f, depth);
  endCommand(cur, T_END, depth);
  if (!closed) unterminated = true;
  if (inSubstitution || depth > 0) {
    // A compound left open inside a substitution or a string read again is not the line's.
    if (cdepth > savedDepth) unterminated = true;
    while (cdepth > savedDepth) { cdepth--; if (load<u32>(cstack + (<usize>cdepth << 3)) == K_FUNC) funcDepth--; }
  }
  frameTop = level;
  cur = saved;
  afterAndOr = savedAndOr;
  return i;
}

// Adds the targets of command line [p, p+len). Sets are word sets (wordset.ts); programSet is
// SHELL_PROGRAMS (NONE: no program is described); maxShellDepth bounds the nesting of shell
// strings and substitutions read (at most 16).
export function shellTargets(p: usize, len: u32, wrapperSet: u64, networkSet: u64, shellSet: u64,
                             extensionSet: u64, programSet: u32, maxShellDepth: u32): void {
  wrappers = wrapperSet;
  network = networkSet;
  shells = shellSet;
  extensions = extensionSet;
  programs = programSet;
  maxDepth = min<u32>(maxShellDepth, 16);
  basesReset(pathBase());
  varsBegin();
  cdepth = 0;
  cOverflow = 0;
  funcDepth = 0;
  frameTop = 0;
  cur = 0;
  afterAndOr = false;
  unterminated = false;
  replaceLen = 0;
  topP = p;
  topLen = len;
  if (!byteClassReady) fillByteClass();
  const size = <usize>len + 256;
  buf = scratchAlloc(size << 1);
  if (buf == 0) { fail(TARGETS_OOM); return; }
  half = size;
  bufTop = buf;
  wStart = buf;
  parseList(p, len, 0, 0, false);
  if (cdepth > 0 || cOverflow > 0) unterminated = true; // an `if`, a loop, a `{` never closed
  if (unterminated) opaque("unterminated");
  varsCheck();
  // Hermes' terminal keeps the directory a command leaves it in for the next one.
  if (basesMoved()) directoryMoved();
}
