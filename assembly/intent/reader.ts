// Reading the user's message as a person would (docs/bytecode.md §7.3): which of its words are
// the user's own (quoted, pasted and forwarded material is not), how they fall into sentences
// and clauses, and for each value it names the role (destination, source, mention) and the mood
// (request, question, condition, negated, statement) of the clause it stands in; for each verb
// whether it grants, grants under a condition or prohibits its classes; and what a later turn
// takes back. The words come from the policy's grammar (a HASH set of G_* categories), so an
// operator extends the languages; scripts written without spaces are segmented by that grammar.
// intent.ts turns the results into the session's items.
import {
  SUBJ_RECIPIENT, G_DEST, G_SOURCE, G_MENTION, G_RELATIVE, G_AUX, G_DEST_AFTER, G_SOURCE_AFTER, G_DEST_BEFORE,
  G_CONDITION_AFTER, G_SUBJECT, G_DETERMINER, G_BARRIER, G_CONJ, G_ONLY, G_INSTEAD, G_REVOKE, G_EXCLUDE, G_RESTORE,
  G_VERB, G_NEGATION, OBJECT_DESTINATION, OBJECT_WRITTEN, OBJECT_SOURCE, OBJECT_INCLUDED, OBJECT_CONVERTED,
  OBJECT_DELEGATED, BOUND_DESTINATION, BOUND_SOURCE, BOUND_MENTION, BOUND_QUOTED, MOOD_REQUEST, MOOD_QUESTION,
  MOOD_CONDITION, MOOD_NEGATED, MOOD_STATEMENT, MOOD_UNKNOWN, MOOD_UNCERTAIN, SUBJ_EMAIL, SUBJ_PATH,
} from "../../bytecode/format";
import { scratchAlloc } from "../abi/mem";
import { isAsciiAlpha, isAsciiDigit } from "../abi/bytes";
import { intentGrammarSet, intentVerbSet, intentCancelSet } from "../policy/decode";
import { policyWords } from "../readers/wordset";
import {
  NAME_KIND, at, BV, bound, boundCap, boundCount, boundKind, boundStart, boundRole, boundMood, boundNoteStart,
  boundNoteEnd, USE_GRANT, USE_GRANT_MAYBE, USE_PROHIBIT, USE_RESTRICT, VU, uses, useCount, OP_REVOKE_ALL, OP_KEEP,
  OP_EXCLUDE, OP_RESTORE, MATCH_BOUND, MATCH_WORD, OPR, ops, opCount, insteadSeen, msg, msgLen, quoted, grammar,
  verbs, cancels, T_THING, T_PUNCT, P_COMMA, P_COLON, toks, tokCount, tokCap, tk, tType, tA, tB, tG, tStart, tEnd,
  tCjk, isWord, isThing, isPunct, wordHas, pushBound, S_CJK, S_KNOWN, S_QUESTION, sentCount, sStart, sEnd, sFlags,
  sentFacts, SCAN_WINDOW, scanCut, sentenceOf, verbIndexOf, clauseStart, clauseEnd, roleNow, moodNow, verbNow,
  condNow, inherited,
} from "./reader_state";
import { markQuotes } from "./reader_quotes";
import { findValues, tokenize } from "./reader_tokens";
import { endsSentence, endsClause, sentences, indexSentences, conditionOf } from "./reader_sentences";
import { imperative, negatedVerb, sentenceNegated, restrictsObjects, objectOf } from "./reader_verbs";

// The results, as intent.ts has always imported them from here.
export {
  NAME_KIND, boundCount, boundKind, boundStart, boundEnd, boundRole, boundMood, boundNoteStart, boundNoteEnd, boundWordHost,
  USE_GRANT, USE_GRANT_MAYBE, USE_PROHIBIT, USE_RESTRICT, useCount, useVerb, useWord, useWordLen, useEffect, useNoteStart,
  useNoteEnd, OP_REVOKE_ALL, OP_KEEP, OP_EXCLUDE, OP_RESTORE, MATCH_BOUND, MATCH_WORD, opCount, opCode, opMatch, opA, opB,
  insteadSeen,
} from "./reader_state";

// ---- roles ----

// The role a verb's object direction gives a value of kind `kind`.
function roleFor(object: u32, kind: u32, clauseHasFile: bool): u32 {
  const person = kind == SUBJ_EMAIL || kind == SUBJ_RECIPIENT || kind == NAME_KIND;
  if (object == OBJECT_DESTINATION) return person ? BOUND_DESTINATION : BOUND_SOURCE;
  if (object == OBJECT_WRITTEN) return kind == SUBJ_PATH ? BOUND_DESTINATION : BOUND_MENTION;
  if (object == OBJECT_SOURCE || object == OBJECT_CONVERTED || object == OBJECT_DELEGATED) return BOUND_SOURCE;
  if (object == OBJECT_INCLUDED) {
    if (kind == SUBJ_PATH) return BOUND_DESTINATION;
    return person && !clauseHasFile ? BOUND_DESTINATION : BOUND_MENTION;
  }
  return BOUND_MENTION;
}

// Whether a path lies between tokens a and b.
function pathBetween(a: u32, b: u32): bool {
  for (let j = a + 1; j < b && j <= a + SCAN_WINDOW; j++) if (isThing(j) && boundKind(tA(j)) == SUBJ_PATH) return true;
  return false;
}

// Whether the clause of token k has a file after a destination word ("add eve@x to contacts.csv").
function clauseHasFile(k: u32): bool {
  const cs = clauseStart(k), ce = clauseEnd(k);
  if (ce - cs > 2 * SCAN_WINDOW) return true; // too long to read: as if a file received (no grant)
  for (let j = cs + 1; j < ce; j++) {
    if (isThing(j) && boundKind(tA(j)) == SUBJ_PATH && wordHas(j - 1, G_DEST | G_RELATIVE)) return true;
  }
  return false;
}

// Token k's role, scanning back from it to its governing verb: the nearest role word decides
// (a relative one by the verb's direction, §7.3), a value joined by "and" or a comma takes its
// neighbour's reading, and an embedded clause ("what alice wrote", "that carol is") mentions.
function readRole(k: u32, kind: u32): void {
  verbNow = -1;
  const sent = sentenceOf(k);
  const s = sStart(sent);
  const cjk = (sFlags(sent) & S_CJK) != 0;
  // Particles glued to the value in a script without spaces.
  if (k + 1 < sEnd(sent) && isWord(k + 1) && tCjk(k + 1) && tStart(k + 1) == tEnd(k)) {
    if (wordHas(k + 1, G_DEST_AFTER)) { roleNow = BOUND_DESTINATION; findCjkVerb(sent); return; }
    if (wordHas(k + 1, G_SOURCE_AFTER)) { roleNow = BOUND_SOURCE; findCjkVerb(sent); return; }
  }
  if (k > 0 && isWord(k - 1) && tCjk(k - 1) && tEnd(k - 1) == tStart(k) && wordHas(k - 1, G_DEST_BEFORE)) {
    roleNow = BOUND_DESTINATION;
    findCjkVerb(sent);
    return;
  }
  let prep: u32 = 0;       // G_DEST, G_SOURCE, G_MENTION or G_RELATIVE
  let passedValue = false; // a value lies between the preposition and what is further back
  let embedded = false;
  let j = k;
  let onlyValues = true;   // only values, commas and "and"/"or" between j and k
  const floor = k > s + SCAN_WINDOW ? k - SCAN_WINDOW : s;
  while (j > s) {
    if (j == floor) { scanCut = true; break; } // further back is not read: a mention, uncertain
    j--;
    const type = tType(j);
    if (type == T_PUNCT) {
      const code = tA(j);
      if ((code == P_COMMA || code == P_COLON) && j > s && isThing(j - 1) && onlyValues) {
        inherit(j - 1);
        return;
      }
      if (code == P_COLON && pureListAfter(j)) continue;
      // A preposition in this clause may be governed by a verb before a comma.
      if (code == P_COMMA && prep != 0) continue;
      break;
    }
    if (type == T_THING) {
      passedValue = true;
      continue;
    }
    const g = tG(j);
    if ((g & G_CONJ) != 0 && j > s && isThing(j - 1) && onlyValues) {
      inherit(j - 1);
      return;
    }
    if ((g & G_CONJ) == 0) onlyValues = false;
    // "that" right after a verb is its object ("forward that to bob@x"), not an embedded clause.
    if ((g & G_BARRIER) != 0 && !((g & G_DETERMINER) != 0 && j > s && wordHas(j - 1, G_VERB))) { embedded = true; break; }
    if ((g & G_VERB) != 0 && verbIndexOf(j) != 0) { verbNow = <i32>j; break; }
    if ((g & G_ONLY) != 0 && prep == 0) { prep = G_DEST; continue; }
    if ((g & (G_DEST | G_SOURCE | G_MENTION)) != 0) {
      const fixed = (g & G_DEST) != 0 ? G_DEST : (g & G_SOURCE) != 0 ? G_SOURCE : G_MENTION;
      if (prep == 0) { prep = fixed; prepAt = j; }
      else if (prep == G_RELATIVE && !passedValue && fixed != G_DEST) prep = fixed; // "from my call with jane"
      continue;
    }
    if ((g & G_RELATIVE) != 0) { if (prep == 0) prep = G_RELATIVE; continue; }
    if ((g & G_CONJ) != 0 && prep == 0) break; // "… and send": a new clause
  }
  if (cjk && verbNow < 0) findCjkVerb(sent);
  if (embedded) roleNow = BOUND_MENTION;
  // "set the contact to x@y", "change it to …": after a verb that writes, "to" gives the new
  // value, and only a file receives.
  else if (prep == G_DEST && verbNow >= 0 && !cjk && objectOf(<u32>verbNow) == OBJECT_WRITTEN && kind != SUBJ_PATH) roleNow = BOUND_MENTION;
  else if (prep == G_DEST) roleNow = BOUND_DESTINATION;
  else if (prep == G_SOURCE) roleNow = BOUND_SOURCE;
  else if (prep == G_MENTION) roleNow = BOUND_MENTION;
  // "convert data.csv to JSON in data.json": the file after the input is the output.
  else if (prep == G_RELATIVE && kind == SUBJ_PATH && verbNow >= 0 && !cjk && objectOf(<u32>verbNow) == OBJECT_CONVERTED &&
    pathBetween(<u32>verbNow, k)) roleNow = BOUND_DESTINATION;
  else if (verbNow >= 0 && !cjk) roleNow = roleFor(objectOf(<u32>verbNow), kind, clauseHasFile(k));
  else roleNow = BOUND_MENTION;
  verbless = verbNow < 0 && prep == G_DEST;
  prepFirst = false;
  if (verbless) {
    // A destination with no verb ("To bob@x: the notes, please"; "…, please, to bob@x") reads as a
    // request unless a subject stands before it in its clause ("the invoice goes to ap@x").
    const cs = clauseStart(prepAt);
    prepFirst = !wordHas(cs, G_DETERMINER) || cs == prepAt;
    for (let i = cs; i < prepAt; i++) if (wordHas(i, G_SUBJECT | G_BARRIER)) prepFirst = false;
  }
}
let verbless = false;
let prepFirst = false;
let prepAt: u32 = 0;

function findCjkVerb(sent: u32): void {
  const first = load<u32>(sentFacts + (<usize>sent << 3) + 4);
  if (first != 0) verbNow = <i32>(first - 1);
}

// Whether tokens (from, to) hold only values, commas and "and"/"or".
function onlyValuesBetween(from: u32, to: u32): bool {
  for (let j = from; j < to; j++) {
    if (isThing(j) || isPunct(j, P_COMMA) || wordHas(j, G_CONJ)) continue;
    return false;
  }
  return true;
}

// After a colon, a list of values to the sentence's end ("Email the team the plan: a@x, b@x").
function pureListAfter(colon: u32): bool {
  const e = sEnd(sentenceOf(colon));
  let any = false;
  for (let j = colon + 1; j < e; j++) {
    if (isThing(j)) { any = true; continue; }
    if (isPunct(j, P_COMMA) || wordHas(j, G_CONJ) || endsSentence(j)) continue;
    return false;
  }
  return any;
}

// Token k reads as the value before it: role and mood.
function inherit(j: u32): void {
  roleNow = boundRole(tA(j));
  moodNow = boundMood(tA(j));
  verbNow = -1;
  inherited = true;
  verbless = false;
}

// Whether a negation (not cancelled) stands before token k in its clause: "not to sales@x",
// "except bob@x".
function negatedBefore(k: u32): bool {
  const cs = clauseStart(k);
  for (let j = k; j > cs;) {
    if (k - j >= SCAN_WINDOW) { scanCut = true; return false; }
    j--;
    if (wordHas(j, G_NEGATION | G_EXCLUDE)) return true;
  }
  return false;
}

// Whether an EXCLUDE word ("except", "leave", "skip") stands before token k in its clause.
function excludedBefore(k: u32): bool {
  const cs = clauseStart(k);
  for (let j = k; j > cs;) {
    if (k - j >= SCAN_WINDOW) { scanCut = true; return false; }
    j--;
    if (wordHas(j, G_EXCLUDE)) return true;
  }
  return false;
}

// Whether the words after value token k in its clause rule it out: "~/.ssh is off limits",
// "config/.env must never be opened", "~/.ssh/id_rsa nicht lesen". A negation or EXCLUDE word
// counts unless another value, a conjunction or a preposition comes first, or a value follows
// it at once (that value is what it negates: "bob@x, not carol@x"). For a value a request's
// verb governs (or one that reads as such a value) the words must start with an AUXILIARY
// ("is", "must": "read notes.txt and ~/.ssh is off limits"), so "email bob@x without
// attachments" stays a request; in a question only an EXCLUDE word counts ("why can't I reach
// x.com?" asks about x.com).
function ruledOutAfter(k: u32, mood: u32): bool {
  const ce = min(clauseEnd(k), k + 1 + SCAN_WINDOW);
  // The rest of a proper name ("the Harbor Inn is off limits") is the same value.
  let from = k + 1;
  while (from < ce && isThing(from) && boundKind(tA(from)) == NAME_KIND && tStart(from) == tEnd(from - 1) + 1) from++;
  if (from >= ce) return false;
  if ((mood == MOOD_REQUEST || mood == MOOD_CONDITION) && !wordHas(from, G_AUX)) return false;
  const bits = mood == MOOD_QUESTION ? G_EXCLUDE : G_NEGATION | G_EXCLUDE;
  for (let j = from; j < ce; j++) {
    if (!isWord(j)) return false;
    const g = tG(j);
    if ((g & bits) != 0) return !(j + 1 < ce && isThing(j + 1));
    if ((g & (G_CONJ | G_DEST | G_SOURCE | G_MENTION | G_RELATIVE)) != 0) return false;
  }
  return false;
}

// The mood of value token k with the role just read.
function readMood(k: u32): void {
  const sent = sentenceOf(k);
  const f = sFlags(sent);
  condNow = -1;
  if ((f & S_KNOWN) == 0) { moodNow = MOOD_UNKNOWN; return; }
  // "How do I list config/ except config/.env?": what a question excludes is ruled out too.
  if ((f & S_QUESTION) != 0) { moodNow = excludedBefore(k) ? MOOD_NEGATED : MOOD_QUESTION; return; }
  if (negatedBefore(k) || (verbNow >= 0 && negatedVerb(<u32>verbNow))) { moodNow = MOOD_NEGATED; return; }
  if ((f & S_CJK) != 0 && sentenceNegated(sent)) { moodNow = MOOD_NEGATED; return; }
  condNow = conditionOf(k);
  let mood = MOOD_STATEMENT;
  if (verbNow >= 0) mood = imperative(<u32>verbNow) ? MOOD_REQUEST : MOOD_STATEMENT;
  else if (verbless) mood = prepFirst || onlyClause(k) ? MOOD_REQUEST : MOOD_UNCERTAIN;
  if (condNow >= 0 && (mood == MOOD_REQUEST || mood == MOOD_UNCERTAIN)) mood = MOOD_CONDITION;
  moodNow = mood;
}

// A value the words after it rule out reads as negated (ruledOutAfter).
function ruleOutAfter(k: u32): void {
  if (moodNow != MOOD_NEGATED && moodNow != MOOD_UNKNOWN && ruledOutAfter(k, moodNow)) moodNow = MOOD_NEGATED;
}

function onlyClause(k: u32): bool {
  const cs = max(clauseStart(k), k > SCAN_WINDOW ? k - SCAN_WINDOW : 0);
  for (let j = cs; j < k; j++) if (wordHas(j, G_ONLY)) return true;
  return false;
}

// ---- notes ----

const NOTE_MAX: u32 = 120;
let noteS: u32 = 0;
let noteE: u32 = 0;

// The raw text of tokens [a, b), at most NOTE_MAX bytes cut at a character.
function noteOf(a: u32, b: u32): void {
  if (b <= a) { noteS = 0; noteE = 0; return; }
  noteS = tStart(a);
  noteE = tEnd(b - 1);
  if (noteE > noteS + NOTE_MAX) {
    noteE = noteS + NOTE_MAX;
    while (noteE > noteS && (at(msg, noteE) & 0xc0) == 0x80) noteE--;
  }
}

function clauseNote(k: u32): void {
  noteOf(clauseStart(k), clauseEnd(k));
}

// The condition's text: from its word to its clause's end (a suffix condition: its clause).
function conditionNote(c: u32): void {
  if (wordHas(c, G_CONDITION_AFTER)) noteOf(clauseStart(c), c + 1);
  else noteOf(c, clauseEnd(c));
}

function setBound(b: u32, role: u32, mood: u32): void {
  const r = bound + <usize>b * BV;
  store<u32>(r + 12, role);
  store<u32>(r + 16, mood);
  store<u32>(r + 20, noteS);
  store<u32>(r + 24, noteE);
}

// ---- names in a destination's place ----

// A word the grammar does not know, of letters, digits, '.', '-', '_' or a leading '+'.
function nameLike(k: u32): bool {
  if (!isWord(k) || tG(k) != 0 || tCjk(k) || tB(k) < 2 || tB(k) > 64) return false;
  const p = <usize>tA(k);
  for (let i: u32 = 0; i < tB(k); i++) {
    const c = <u32>load<u8>(p + i);
    if (!(isAsciiAlpha(c) || isAsciiDigit(c) || c == 0x2d || c == 0x5f || (i == 0 && c == 0x2b))) return false;
  }
  return true;
}

// Whether word k stands where a destination's name does: right after a destination word or a
// verb whose object receives, after such a name and "and" or a comma, or before a destination
// particle ("aliceに").
function inDestinationSlot(k: u32): bool {
  if (k + 1 < tokCount && wordHas(k + 1, G_DEST_AFTER) && tCjk(k + 1) && tStart(k + 1) == tEnd(k)) return true;
  if (k == 0) return false;
  const j = k - 1;
  if (wordHas(j, G_DEST | G_ONLY) && !tCjk(j)) return true;
  if (wordHas(j, G_DEST_BEFORE) && tCjk(j) && tEnd(j) == tStart(k)) return true;
  if (wordHas(j, G_VERB) && verbIndexOf(j) != 0 && (objectOf(j) == OBJECT_DESTINATION || objectOf(j) == OBJECT_INCLUDED)) return true;
  if ((isPunct(j, P_COMMA) || wordHas(j, G_CONJ)) && j > 0 && isThing(j - 1)) {
    const b = tA(j - 1);
    return boundKind(b) == NAME_KIND && boundRole(b) == BOUND_DESTINATION;
  }
  return false;
}

// ---- follow-ups ----

function pushOp(code: u32, match: u32, a: u32, b: u32): bool {
  const r = ops + <usize>opCount * OPR;
  store<u32>(r, code);
  store<u32>(r + 4, match);
  store<u32>(r + 8, a);
  store<u32>(r + 12, b);
  opCount++;
  return true;
}

// The matchers of a clause's follow-up: its values and the words the grammar does not know.
function pushMatchers(code: u32, cs: u32, ce: u32): void {
  for (let j = cs; j < ce; j++) {
    if (isThing(j)) { for (let b = tA(j); b < tA(j) + tB(j); b++) pushOp(code, MATCH_BOUND, b, 0); }
    else if (nameLike(j)) pushOp(code, MATCH_WORD, tStart(j), tEnd(j));
  }
}

function followUps(): void {
  insteadSeen = false;
  for (let s: u32 = 0; s < sentCount; s++) {
    const f = sFlags(s);
    if ((f & S_QUESTION) != 0) continue;
    let cs = sStart(s);
    while (cs < sEnd(s)) {
      let ce = cs;
      while (ce < sEnd(s) && !endsClause(ce)) ce++;
      let revoke = false, only = false, exclude = false, restore = false, content = false, values = false;
      for (let j = cs; j < ce; j++) {
        if (isThing(j)) { values = true; continue; }
        const g = tG(j);
        if ((g & G_REVOKE) != 0) revoke = true;
        if ((g & G_ONLY) != 0) only = true;
        if ((g & G_INSTEAD) != 0) insteadSeen = true;
        if ((g & G_EXCLUDE) != 0) exclude = true;
        if ((g & G_RESTORE) != 0) restore = true;
        if (g == 0 || ((g & G_VERB) != 0 && verbIndexOf(j) != 0)) content = true;
      }
      if (revoke && !content && !values) pushOp(OP_REVOKE_ALL, 0, 0, 0);
      else if (only && (values || content)) pushMatchers(OP_KEEP, cs, ce);
      else if (exclude && (values || content)) pushMatchers(OP_EXCLUDE, cs, ce);
      else if (restore && (values || content)) pushMatchers(OP_RESTORE, cs, ce);
      cs = ce + 1;
    }
  }
}

// A reading a scan could not finish (SCAN_WINDOW): what it would grant it grants maybe.
function uncertain(): void {
  if (moodNow == MOOD_REQUEST) moodNow = MOOD_UNCERTAIN;
}

// ---- the whole message ----

// Reads message [p, p+len): bound values (with names in destination places), verb uses and
// follow-up operations. False when out of memory.
export function readMessage(p: usize, len: u32): bool {
  msg = p;
  msgLen = len;
  readingSentence = -1;
  grammar = policyWords(intentGrammarSet());
  verbs = policyWords(intentVerbSet());
  cancels = policyWords(intentCancelSet());
  bound = 0; boundCap = 0; boundCount = 0;
  toks = 0; tokCap = 0; tokCount = 0;
  useCount = 0; opCount = 0;
  quoted = scratchAlloc(max<usize>(<usize>len, 1));
  if (quoted == 0) return false;
  markQuotes();
  if (!findValues() || !tokenize() || !sentences() || !indexSentences()) return false;
  uses = scratchAlloc((<usize>tokCount + 1) * VU);
  ops = scratchAlloc((<usize>tokCount + 1) * 2 * OPR + (<usize>boundCount + 1) * OPR);
  if (uses == 0 || ops == 0) return false;
  // Values in quoted material: quoted, and no note.
  for (let b: u32 = 0; b < boundCount; b++) {
    if (load<u8>(quoted + boundStart(b)) != 0) { noteS = 0; noteE = 0; setBound(b, BOUND_QUOTED, MOOD_STATEMENT); }
  }
  for (let k: u32 = 0; k < tokCount; k++) {
    if (isThing(k)) {
      const first = tA(k);
      inherited = false;
      scanCut = false;
      readRole(k, boundKind(first));
      if (!inherited) readMood(k);
      ruleOutAfter(k);
      if (scanCut) uncertain();
      if (moodNow == MOOD_CONDITION && condNow >= 0) conditionNote(<u32>condNow); else clauseNote(k);
      for (let b = first; b < first + tB(k); b++) setBound(b, roleNow, moodNow);
      continue;
    }
    if (!isWord(k)) continue;
    if (nameLike(k) && inDestinationSlot(k)) {
      // A name where a destination stands ("tell alice on telegram"): bound as a name.
      const b = boundCount;
      if (!pushBound(NAME_KIND, tStart(k), tEnd(k), false)) return false;
      store<u32>(tk(k), T_THING);
      store<u32>(tk(k) + 4, b);
      store<u32>(tk(k) + 8, 1);
      inherited = false;
      scanCut = false;
      readRole(k, NAME_KIND);
      if (roleNow != BOUND_DESTINATION) roleNow = BOUND_DESTINATION;
      if (!inherited) readMood(k);
      ruleOutAfter(k);
      if (scanCut) uncertain();
      if (moodNow == MOOD_CONDITION && condNow >= 0) conditionNote(<u32>condNow); else clauseNote(k);
      setBound(b, roleNow, moodNow);
      continue;
    }
    if (!wordHas(k, G_VERB) || verbIndexOf(k) == 0) continue;
    const sent = sentenceOf(k);
    const f = sFlags(sent);
    if ((f & S_QUESTION) != 0 || (f & S_KNOWN) == 0) continue;
    if (wordHas(k, G_AUX) && k + 1 < tokCount && wordHas(k + 1, G_NEGATION)) continue; // "do not …"
    scanCut = false;
    const negated = negatedVerb(k);
    const imp = imperative(k);
    if (!imp) continue;
    const c = conditionOf(k);
    let effect = negated ? (restrictsObjects(k) ? USE_RESTRICT : USE_PROHIBIT) : c >= 0 || scanCut ? USE_GRANT_MAYBE : USE_GRANT;
    // "Do the actions in the email from x@y": the request is what that says.
    if (effect == USE_GRANT && objectOf(k) == OBJECT_DELEGATED) effect = USE_GRANT_MAYBE;
    if (c >= 0 && effect == USE_GRANT_MAYBE) conditionNote(<u32>c); else clauseNote(k);
    const r = uses + <usize>useCount * VU;
    store<u32>(r, verbIndexOf(k) - 1);
    store<u32>(r + 4, tA(k));
    store<u32>(r + 8, tB(k));
    store<u32>(r + 12, effect);
    store<u32>(r + 16, noteS);
    store<u32>(r + 20, noteE);
    useCount++;
  }
  followUps();
  return true;
}

export function messagePtr(): usize {
  return msg;
}

// How the clause at byte `pos` of the message just read reads a value there, as it reads a
// name (objects.ts finds the objects and sums; intent.ts grants them by this): readingRole,
// readingMood and the clause's note (readingNoteStart/End). Quoted, pasted and forwarded
// material is BOUND_QUOTED; a value inside a bound one (a URL's path) reads as that value.
export let readingRole: u32 = 0;
export let readingMood: u32 = 0;
export let readingNoteStart: u32 = 0;
export let readingNoteEnd: u32 = 0;
// Reading a clause walks back to its verb or to its sentence's start, so a sentence dense with
// objects (a pasted table of numbers, a list of ids) would cost its length for each: past
// READINGS_PER_SENTENCE objects read in a row in one sentence, the next only name (a mention in a
// statement: no grant), and binding stays linear.
const READINGS_PER_SENTENCE: u32 = 16;
let readingSentence: i64 = -1;
let readingsInSentence: u32 = 0;
export function readingAt(pos: u32): void {
  readingNoteStart = 0;
  readingNoteEnd = 0;
  if (pos >= msgLen || load<u8>(quoted + pos) != 0 || tokCount == 0) {
    readingRole = BOUND_QUOTED;
    readingMood = MOOD_STATEMENT;
    return;
  }
  // The token that holds pos, else the first after it: tokens are in message order.
  let lo: u32 = 0, hi = tokCount;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tEnd(mid) <= pos) lo = mid + 1; else hi = mid;
  }
  const k = lo < tokCount ? lo : tokCount - 1;
  if (isThing(k)) {
    readingRole = boundRole(tA(k));
    readingMood = boundMood(tA(k));
    readingNoteStart = boundNoteStart(tA(k));
    readingNoteEnd = boundNoteEnd(tA(k));
    return;
  }
  const sent = <i64>sentenceOf(k);
  if (sent != readingSentence) { readingSentence = sent; readingsInSentence = 0; }
  if (++readingsInSentence > READINGS_PER_SENTENCE) {
    readingRole = BOUND_MENTION;
    readingMood = MOOD_STATEMENT;
    return;
  }
  inherited = false;
  readRole(k, NAME_KIND);
  if (!inherited) readMood(k);
  ruleOutAfter(k);
  if (moodNow == MOOD_CONDITION && condNow >= 0) conditionNote(<u32>condNow); else clauseNote(k);
  readingRole = roleNow;
  readingMood = moodNow;
  readingNoteStart = noteS;
  readingNoteEnd = noteE;
}
