// The message's sentences and clauses: each sentence's flags (a question, a script without
// spaces, a language the grammar knows), the per-token indices, and the condition word that
// governs each token.
import {
  G_AUX, G_QUESTION, G_POLITE, G_ADDRESSEE, G_CONDITION, G_CONDITION_AFTER, G_SUBJECT, G_DETERMINER, G_LEAD, G_CONJ,
  G_VERB, G_NEGATION,
} from "../../bytecode/format";
import { scratchAlloc } from "../abi/mem";
import {
  T_PUNCT, P_STOP, P_QUESTION, P_LINE, tokCount, tType, tG, tCjk, isWord, isPunct, wordHas, S_QMARK, S_CJK, S_KNOWN,
  S_QUESTION, S_POLITE, SR, sents, sentCount, sStart, sEnd, sentIndex, clauseBounds, condIndex, sentFacts,
  SCAN_WINDOW, verbIndexOf, clauseStart, clauseEnd, at, msg, tStart, tEnd,
} from "./reader_state";

@inline export function endsSentence(k: u32): bool {
  return isPunct(k, P_STOP) || isPunct(k, P_QUESTION) || isPunct(k, P_LINE);
}

@inline export function endsClause(k: u32): bool {
  return tType(k) == T_PUNCT;
}

export function sentences(): bool {
  sents = scratchAlloc((<usize>tokCount + 1) * SR);
  if (sents == 0) return false;
  sentCount = 0;
  let start: u32 = 0;
  for (let k: u32 = 0; k <= tokCount; k++) {
    if (k < tokCount && !endsSentence(k)) continue;
    const end = k < tokCount ? k + 1 : tokCount;
    if (end > start) {
      const r = sents + <usize>sentCount * SR;
      store<u32>(r, start);
      store<u32>(r + 4, end);
      store<u32>(r + 8, sentenceFlags(start, end));
      sentCount++;
    }
    start = end;
  }
  return true;
}

function sentenceFlags(start: u32, end: u32): u32 {
  let f: u32 = 0;
  let words: u32 = 0;
  for (let k = start; k < end; k++) {
    if (isPunct(k, P_QUESTION)) f |= S_QMARK;
    if (!isWord(k)) continue;
    words++;
    if (tCjk(k)) f |= S_CJK;
    if (tG(k) != 0) f |= S_KNOWN;
    if ((tG(k) & G_POLITE) != 0) f |= S_POLITE;
  }
  if (words < 2 && (f & S_CJK) == 0) f |= S_KNOWN; // too few words to tell the language
  // A question or an explanation: the first word (past lead words) asks, or a polite form
  // ("could you", "would you mind") whose verb asks ("can you explain").
  let k = start;
  while (k < end && (wordHas(k, G_LEAD | G_CONJ) && !wordHas(k, G_QUESTION | G_POLITE) || tType(k) == T_PUNCT)) k++;
  if ((f & S_CJK) != 0) {
    if ((f & S_QMARK) != 0) f |= S_QUESTION;
    for (let j = start; j < end; j++) if (wordHas(j, G_QUESTION)) f |= S_QUESTION;
  } else if (k < end && isWord(k)) {
    const g = tG(k);
    if ((g & G_QUESTION) != 0 && ((g & G_CONDITION) == 0 || (f & S_QMARK) != 0)) f |= S_QUESTION;
    else if ((g & G_AUX) != 0) {
      // "Did you send …", "Should I email …", "Is this right?"; not "Do not send", "Please do the tasks".
      const n = k + 1 < end && isWord(k + 1) ? tG(k + 1) : 0;
      if ((n & G_NEGATION) == 0 && ((n & (G_SUBJECT | G_ADDRESSEE)) != 0 || (f & S_QMARK) != 0)) f |= S_QUESTION;
    } else if ((g & G_POLITE) != 0) {
      let j = k + 1;
      while (j < end && wordHas(j, G_LEAD)) j++;
      if (j < end && wordHas(j, G_ADDRESSEE)) {
        j++;
        while (j < end && wordHas(j, G_LEAD | G_POLITE)) j++;
        if (j < end && wordHas(j, G_QUESTION)) f |= S_QUESTION;
      } else {
        f |= S_QUESTION;
      }
    }
  }
  return f;
}

// Works out the per-token indices of reader_state.ts, sentence by sentence.
export function indexSentences(): bool {
  sentIndex = scratchAlloc((<usize>tokCount + 1) * 4);
  clauseBounds = scratchAlloc((<usize>tokCount + 1) * 8);
  condIndex = scratchAlloc((<usize>tokCount + 1) * 4);
  sentFacts = scratchAlloc((<usize>sentCount + 1) * 8);
  if (sentIndex == 0 || clauseBounds == 0 || condIndex == 0 || sentFacts == 0) return false;
  for (let s: u32 = 0; s < sentCount; s++) {
    const start = sStart(s), end = sEnd(s);
    let negation: u32 = 0, firstVerb: u32 = 0;
    let cs = start;
    for (let k = start; k < end; k++) {
      store<u32>(sentIndex + (<usize>k << 2), s);
      if (wordHas(k, G_NEGATION)) negation = 1;
      if (firstVerb == 0 && wordHas(k, G_VERB) && verbIndexOf(k) != 0) firstVerb = k + 1;
      if (k + 1 == end || endsClause(k)) {
        // The clause [cs, k] (a punctuation token closes the clause before it and starts none).
        const ce = endsClause(k) ? k : k + 1;
        for (let j = cs; j <= k; j++) {
          store<u32>(clauseBounds + (<usize>j << 3), cs);
          store<u32>(clauseBounds + (<usize>j << 3) + 4, ce);
        }
        cs = k + 1;
      }
    }
    store<u32>(sentFacts + (<usize>s << 3), negation);
    store<u32>(sentFacts + (<usize>s << 3) + 4, firstVerb);
    indexConditions(s);
  }
  return true;
}

// ---- conditions ----

// The condition word that governs token k (-1: none): one that opens its clause with more of
// the sentence after it governs the rest of the sentence ("If the tests pass, send …"); a
// suffix condition (たら, 면) too; any other governs the sentence up to its clause's end
// ("Email bob the report if the numbers are final").
export function conditionOf(k: u32): i32 {
  return <i32>load<u32>(condIndex + (<usize>k << 2)) - 1;
}

// A sentence governed by more condition words than this is conditional throughout.
const CONDITIONS_READ: u32 = 8;

// Marks, in sentence s, the tokens each condition word governs; the first word whose range holds
// a token is its condition (as a reading from the sentence's start would find it).
function indexConditions(s: u32): void {
  const start = sStart(s), end = sEnd(s);
  for (let k = start; k < end; k++) store<u32>(condIndex + (<usize>k << 2), 0);
  let read: u32 = 0;
  for (let c = start; c < end; c++) {
    if (!wordHas(c, G_CONDITION | G_CONDITION_AFTER)) continue;
    // "tell me if", "check if", "ask them whether": a question the verb asks, not a condition.
    if (c > start && !tCjk(c) && (wordHas(c - 1, G_VERB | G_QUESTION) || (c > start + 1 && wordHas(c - 1, G_DETERMINER) && wordHas(c - 2, G_VERB)))) continue;
    if (read == CONDITIONS_READ) { governs(start, end, c); return; } // past the bound: all of it
    read++;
    const cs = clauseStart(c);
    if (wordHas(c, G_CONDITION_AFTER)) { governs(cs, end, c); continue; }
    const aside = asideEnd(c, end);
    if (aside > 0) { governs(c, aside, c); continue; }
    let initial = true;
    for (let j = cs; j < c && initial && j < cs + SCAN_WINDOW; j++) initial = wordHas(j, G_LEAD | G_CONJ);
    const ce = clauseEnd(c);
    const more = ce + 1 < end;
    if (initial && more) governs(c, end, c);
    else governs(start, ce, c);
  }
}

// A condition that opens an aside ("keep the kettle (if not possible, do not do anything on that
// order), and return the sneaker") governs the aside to its closing bracket: the token after
// that bracket, or `end`; 0 when no bracket opens right before token c.
function asideEnd(c: u32, end: u32): u32 {
  if (!byteBetween(c > 0 ? tEnd(c - 1) : 0, tStart(c), 0x28)) return 0;
  for (let t = c + 1; t < end; t++) if (byteBetween(tEnd(t - 1), tStart(t), 0x29)) return t;
  return end;
}

function byteBetween(a: u32, b: u32, byte: u32): bool {
  for (let i = a; i < b; i++) if (at(msg, i) == byte) return true;
  return false;
}

function governs(from: u32, to: u32, c: u32): void {
  for (let k = from; k < to; k++) {
    const at = condIndex + (<usize>k << 2);
    if (load<u32>(at) == 0) store<u32>(at, c + 1);
  }
}
