// How a verb stands in its clause: as an imperative, negated, negating its objects rather than
// the act, and the direction its object takes (a destination, a source, …).
import {
  G_ADDRESSEE, G_SUBJECT, G_DETERMINER, G_BARRIER, G_CONJ, G_REVOKE, G_EXCLUDE, GRAMMAR_OBJECT_SHIFT, G_NEGATION,
  G_NOTHING, G_DEST_AFTER, G_DEST_BEFORE,
} from "../../bytecode/format";
import { hasWord } from "../readers/wordset";
import {
  cancels, T_PUNCT, tType, tA, tB, tG, tCjk, isWord, isThing, wordHas, S_CJK, sStart, sFlags, sentFacts, SCAN_WINDOW,
  scanCut, sentenceOf, clauseStart, clauseEnd, at, msg, tStart, tEnd,
} from "./reader_state";

// Whether verb k stands where an imperative does: nothing before it in its clause but lead
// words, negations and unknown words, or an addressee ("could you", "I need you to").
export function imperative(k: u32): bool {
  if (tCjk(k) || (sFlags(sentenceOf(k)) & S_CJK) != 0) return true;
  const s = sStart(sentenceOf(k));
  const floor = k > s + SCAN_WINDOW ? k - SCAN_WINDOW : s;
  let j = k;
  while (j > s) {
    if (j == floor) { scanCut = true; return false; } // too far to tell: no request
    j--;
    if (tType(j) == T_PUNCT) return true;
    if (isThing(j)) return false;
    const g = tG(j);
    if ((g & G_ADDRESSEE) != 0) return true;
    if ((g & G_CONJ) != 0 && (g & (G_SUBJECT | G_DETERMINER | G_BARRIER)) == 0) return true;
    if ((g & (G_SUBJECT | G_DETERMINER | G_BARRIER)) != 0) return false;
  }
  return true;
}

// Whether verb k is negated: a negation before it in its clause (with no cancelling word between:
// "do not forget to invite"), "stop" right before it, or a nothing word just after ("send nothing").
// In a script without spaces, a negation anywhere in its clause ("不对，发给qian@x，别发给赵敏": the
// clause that says not to send is not the one that sends).
export function negatedVerb(k: u32): bool {
  const sent = sentenceOf(k);
  if ((sFlags(sent) & S_CJK) != 0) return clauseNegated(k);
  if (k > 0 && wordHas(k - 1, G_REVOKE)) return true;
  const cs = clauseStart(k);
  let cancelled = false;
  let aside = 0; // brackets closed between a word and the verb: the word is in an aside
  for (let j = k; j > cs;) {
    if (k - j >= SCAN_WINDOW) { scanCut = true; break; }
    j--;
    aside = max(0, aside + bracketsClosed(tType(j) == T_PUNCT ? tStart(j) : tEnd(j), tStart(j + 1)));
    if (!isWord(j) || aside > 0) continue; // "(they are no longer needed) and return it": not negated
    if (cancelsAt(j)) cancelled = true;
    if ((tG(j) & G_NEGATION) != 0 && !cancelled && !(j > cs && cancelsAt(j - 1))) return true;
  }
  const ce = clauseEnd(k);
  for (let j = k + 1; j < ce && j <= k + 2; j++) if (wordHas(j, G_NOTHING)) return true;
  return false;
}

// Whether token k is a word that turns a negation beside it into a request: "do not forget to",
// and, standing first, "n'oublie pas d'envoyer", "vergiss nicht zu senden".
export function cancelsAt(k: u32): bool {
  return isWord(k) && !tCjk(k) && hasWord(cancels, <usize>tA(k), tB(k));
}

// The closing parentheses less the opening ones among the message's bytes [a, b).
function bracketsClosed(a: u32, b: u32): i32 {
  let n: i32 = 0;
  for (let i = a; i < b; i++) {
    const c = at(msg, i);
    if (c == 0x29) n++;
    else if (c == 0x28) n--;
  }
  return n;
}

@inline export function sentenceNegated(s: u32): bool {
  return load<u32>(sentFacts + (<usize>s << 3)) != 0;
}

// Whether a negation stands in the clause of token k (a script without spaces puts it anywhere:
// "别发给赵敏", "送らないで").
export function clauseNegated(k: u32): bool {
  const cs = clauseStart(k), ce = clauseEnd(k);
  if (ce - cs > 4 * SCAN_WINDOW) return sentenceNegated(sentenceOf(k));
  for (let j = cs; j < ce; j++) if (wordHas(j, G_NEGATION)) return true;
  return false;
}

// Whether negated verb k negates its objects: a value after it in its clause, or an EXCLUDE
// word ("else") after it there ("anyone else"); in a script without spaces, a destination
// particle anywhere in its clause ("别发给赵敏", "山田さんには送らないで": not to that person).
export function restrictsObjects(k: u32): bool {
  const ce = min(clauseEnd(k), k + 1 + SCAN_WINDOW);
  for (let j = k + 1; j < ce; j++) if (isThing(j) || wordHas(j, G_EXCLUDE)) return true;
  if (tCjk(k)) {
    const cs = clauseStart(k);
    for (let j = cs; j < ce; j++) if (tCjk(j) && wordHas(j, G_DEST_AFTER | G_DEST_BEFORE)) return true;
  }
  return false;
}

export function objectOf(k: u32): u32 {
  return (tG(k) >>> GRAMMAR_OBJECT_SHIFT) & 7;
}
