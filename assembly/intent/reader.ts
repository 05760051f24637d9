// Reading the user's message as a person would (docs/bytecode.md §7.3): which of its words are
// the user's own (quoted, pasted and forwarded material is not), how they fall into sentences
// and clauses, and for each value it names the role (destination, source, mention) and the mood
// (request, question, condition, negated, statement) of the clause it stands in; for each verb
// whether it grants, grants under a condition or prohibits its classes; and what a later turn
// takes back. The words come from the policy's grammar (a HASH set of G_* categories), so an
// operator extends the languages; scripts written without spaces are segmented by that grammar.
// intent.ts turns the results into the session's items.
//
// This file reads the whole message (readMessage, readingAt) and keeps every name intent.ts
// imports; the steps are reader_quotes.ts, reader_tokens.ts, reader_sentences.ts, reader_verbs.ts,
// reader_roles.ts and reader_followups.ts, over the state of reader_state.ts.
import {
  G_ADDRESSEE, G_AUX, G_CONDITION_AFTER, G_VERB, G_NEGATION, G_REVOKE, G_SUBJECT, OBJECT_DELEGATED, BOUND_DESTINATION, BOUND_MENTION, BOUND_QUOTED,
  MOOD_CONDITION, MOOD_STATEMENT, MOOD_REQUEST, MOOD_UNCERTAIN, SUBJ_EMAIL, SUBJ_RECIPIENT, G_NOTHING,
} from "../../bytecode/format";
import { scratchAlloc } from "../abi/mem";
import { intentGrammarSet, intentVerbSet, intentCancelSet } from "../policy/decode";
import { policyWords } from "../readers/wordset";
import {
  NAME_KIND, at, BV, bound, boundCap, boundCount, boundKind, boundStart, boundRole, boundMood, boundNoteStart,
  boundNoteEnd, USE_GRANT, USE_GRANT_MAYBE, USE_PROHIBIT, USE_RESTRICT, USE_ACTION, VU, uses, useCount, OPR, ops, opCount, msg,
  msgLen, quoted, grammar, verbs, cancels, T_THING, toks, tokCount, tokCap, tk, tA, tB, tStart, tEnd, isWord, isThing,
  wordHas, pushBound, S_KNOWN, S_QUESTION, sFlags, scanCut, sentenceOf, verbIndexOf, clauseStart, clauseEnd, roleNow,
  moodNow, condNow, inherited, toValue,
} from "./reader_state";
import { markQuotes, materialStart, quoteFrom } from "./reader_quotes";
import { findValues, tokenize } from "./reader_tokens";
import { sentences, indexSentences, conditionOf } from "./reader_sentences";
import { imperative, negatedVerb, restrictsObjects, objectOf } from "./reader_verbs";
import { readRole, readMood, ruleOutAfter, nameLike, inDestinationSlot, uncertain, participantNow, inAside, authorOf } from "./reader_roles";
import { followUps, revokesOnly } from "./reader_followups";

// The results, as intent.ts has always imported them from here.
export {
  NAME_KIND, boundCount, boundKind, boundStart, boundEnd, boundRole, boundMood, boundNoteStart, boundNoteEnd, boundWordHost,
  USE_GRANT, USE_GRANT_MAYBE, USE_PROHIBIT, USE_RESTRICT, USE_ACTION, useCount, useVerb, useWord, useWordLen, useEffect, useNoteStart,
  useNoteEnd, OP_REVOKE_ALL, OP_KEEP, OP_EXCLUDE, OP_RESTORE, OP_RETRACT, OP_PAUSE, MATCH_BOUND, MATCH_WORD, opCount, opCode, opMatch, opA, opB,
  insteadSeen, addSeen,
} from "./reader_state";

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

function keptBySpeaker(k: u32): bool {
  const cs = clauseStart(k);
  let subject = false;
  for (let j = cs; j < k; j++) if (wordHas(j, G_SUBJECT)) subject = true;
  if (!subject) return false;
  const ce = clauseEnd(k);
  for (let j = k + 1; j < ce && j <= k + 2; j++) if (wordHas(j, G_NOTHING)) return true;
  return false;
}

function personKind(kind: u32): bool {
  return kind == SUBJ_EMAIL || kind == SUBJ_RECIPIENT || kind == NAME_KIND;
}

// A participant of a meeting the request asks for ("book a meeting with bob@x") is invited: the
// meeting's noun grants what its verb does (an invitation), once, as the value's mood grants.
let participantNoun: i32 = -1;
function participantUse(): void {
  if (participantNow < 0 || participantNow == participantNoun || roleNow != BOUND_DESTINATION) return;
  if (moodNow != MOOD_REQUEST && moodNow != MOOD_CONDITION && moodNow != MOOD_UNCERTAIN) return;
  participantNoun = participantNow;
  const n = <u32>participantNow;
  const r = uses + <usize>useCount * VU;
  store<u32>(r, verbIndexOf(n) - 1);
  store<u32>(r + 4, tA(n));
  store<u32>(r + 8, tB(n));
  store<u32>(r + 12, moodNow == MOOD_REQUEST ? USE_GRANT : USE_GRANT_MAYBE);
  store<u32>(r + 16, noteS);
  store<u32>(r + 20, noteE);
  useCount++;
}

// Records verb k's use with `effect`, with the note last set.
function addUse(k: u32, effect: u32): void {
  const r = uses + <usize>useCount * VU;
  store<u32>(r, verbIndexOf(k) - 1);
  store<u32>(r + 4, tA(k));
  store<u32>(r + 8, tB(k));
  store<u32>(r + 12, effect);
  store<u32>(r + 16, effect == USE_ACTION ? 0 : noteS);
  store<u32>(r + 20, effect == USE_ACTION ? 0 : noteE);
  useCount++;
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
  participantNoun = -1;
  quoted = scratchAlloc(max<usize>(<usize>len, 1));
  if (quoted == 0) return false;
  markQuotes();
  if (!findValues() || !tokenize()) return false;
  const material = materialStart();
  if (material >= 0) { // tokens again, without the material
    quoteFrom(<u32>material);
    toks = 0; tokCap = 0; tokCount = 0;
    if (!tokenize()) return false;
  }
  if (!sentences() || !indexSentences()) return false;
  uses = scratchAlloc((<usize>tokCount * 2 + 1) * VU); // a verb's use, and a meeting noun's participant use
  // An operation per clause or word, and per value: a name bound below in a destination's place
  // was a word, so the tokens' share covers it.
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
      // A person in an aside is mentioned, not addressed.
      if (!inherited && roleNow == BOUND_DESTINATION && personKind(boundKind(first)) && inAside(k)) roleNow = BOUND_MENTION;
      // The author of what the request acts on ("the report bruno@x wrote") is mentioned.
      if (roleNow == BOUND_DESTINATION && personKind(boundKind(first)) && authorOf(k)) roleNow = BOUND_MENTION;
      if (!inherited) readMood(k);
      ruleOutAfter(k);
      if (scanCut) uncertain();
      if (moodNow == MOOD_CONDITION && condNow >= 0) conditionNote(<u32>condNow); else clauseNote(k);
      for (let b = first; b < first + tB(k); b++) setBound(b, roleNow, moodNow);
      participantUse();
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
      if (roleNow != BOUND_DESTINATION && !toValue) roleNow = BOUND_DESTINATION;
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
    if ((f & S_KNOWN) == 0) continue;
    // "do not …", "do I want", "under no circumstances do you want": an auxiliary, not the verb "do"
    if (wordHas(k, G_AUX) && k + 1 < tokCount && wordHas(k + 1, G_NEGATION | G_SUBJECT | G_ADDRESSEE)) continue;
    if (wordHas(k, G_REVOKE) && revokesOnly(k)) continue; // "cancel that": a follow-up, no request
    scanCut = false;
    const negated = negatedVerb(k);
    // A verb that grants nothing still names its action as the user's own, unless negated
    // ("you want to cancel the order", "if it cannot be exchanged, return it"): §7.5.
    if ((f & S_QUESTION) != 0) {
      if (!negated) addUse(k, USE_ACTION);
      continue;
    }
    const imp = imperative(k);
    // "I'll send it myself": a verb the speaker keeps for themselves (a subject before it, a
    // NOTHING word right after) prohibits what it would grant, though it asks for nothing.
    if (!imp && !(negated && keptBySpeaker(k))) {
      if (!negated) addUse(k, USE_ACTION);
      continue;
    }
    const c = conditionOf(k);
    // "If that is not possible, do not do anything": a prohibition under a condition the fence
    // cannot check rules nothing out; the request it qualifies still stands as said.
    if (negated && c >= 0) continue;
    let effect = negated ? (restrictsObjects(k) ? USE_RESTRICT : USE_PROHIBIT) : c >= 0 || scanCut ? USE_GRANT_MAYBE : USE_GRANT;
    // "Do the actions in the email from x@y": the request is what that says.
    if (effect == USE_GRANT && objectOf(k) == OBJECT_DELEGATED) effect = USE_GRANT_MAYBE;
    if (c >= 0 && effect == USE_GRANT_MAYBE) conditionNote(<u32>c); else clauseNote(k);
    addUse(k, effect);
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
