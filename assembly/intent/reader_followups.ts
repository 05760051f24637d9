// What a later turn does to what earlier ones granted: take it all back, keep only some, leave
// some out, add some back (the follow-up operations, and whether INSTEAD was said).
import {
  G_ONLY, G_INSTEAD, G_REVOKE, G_EXCLUDE, G_RESTORE, G_VERB, G_NEGATION, G2_ADD, G2_RETRACT, G2_AFTER_ALL, G2_PAUSE,
} from "../../bytecode/format";
import {
  OP_REVOKE_ALL, OP_KEEP, OP_EXCLUDE, OP_RESTORE, OP_RETRACT, OP_PAUSE, MATCH_BOUND, MATCH_WORD, OPR, ops, opCount, insteadSeen, addSeen,
  tA, tB, tG, tStart, tEnd, isThing, isWord, tCjk, tokCount, lookupSecond, S_QUESTION, sentCount, sStart, sEnd, sFlags, verbIndexOf,
  sentenceOf,
} from "./reader_state";
import { endsClause } from "./reader_sentences";
import { nameLike } from "./reader_roles";

function pushOp(code: u32, match: u32, a: u32, b: u32): bool {
  const r = ops + <usize>opCount * OPR;
  store<u32>(r, code);
  store<u32>(r + 4, match);
  store<u32>(r + 8, a);
  store<u32>(r + 12, b);
  opCount++;
  return true;
}

// The second table's categories (GRAMMAR2_PREFIX) of the longest phrase of at most four words
// that starts at token k, and in secondSpan how many tokens it takes.
let secondSpan: u32 = 1;
function second(k: u32): u32 {
  secondSpan = 1;
  if (!isWord(k)) return 0;
  for (let n: u32 = 4; n >= 1; n--) {
    if (k + n > tokCount) continue;
    let joined = true;
    for (let j = k + 1; j < k + n && joined; j++) joined = isWord(j) && !tCjk(j) && tA(j) == tA(j - 1) + tB(j - 1);
    const len = tA(k + n - 1) + tB(k + n - 1) - tA(k);
    if (!joined) continue;
    const g = lookupSecond(<usize>tA(k), len);
    if (g != 0) { secondSpan = n; return g; }
  }
  return 0;
}

// The matchers of a clause's follow-up: its values and the words the grammar does not know.
function pushMatchers(code: u32, cs: u32, ce: u32): void {
  for (let j = cs; j < ce; j++) {
    if (second(j) != 0) { j += secondSpan - 1; continue; }
    if (isThing(j)) { for (let b = tA(j); b < tA(j) + tB(j); b++) pushOp(code, MATCH_BOUND, b, 0); }
    else if (nameLike(j)) pushOp(code, MATCH_WORD, tStart(j), tEnd(j));
  }
}

// Whether the clause of word k takes back and names nothing: no value, no word the grammar does
// not know, no verb but those that take back ("cancel that", "stop").
export function revokesOnly(k: u32): bool {
  const s = sentenceOf(k);
  let cs = k;
  while (cs > sStart(s) && !endsClause(cs - 1)) cs--;
  for (let j = cs; j < sEnd(s) && !endsClause(j); j++) {
    if (isThing(j)) return false;
    const g = tG(j);
    if (g == 0 || ((g & G_VERB) != 0 && verbIndexOf(j) != 0 && (g & G_REVOKE) == 0)) return false;
  }
  return true;
}

export function followUps(): void {
  insteadSeen = false;
  addSeen = false;
  for (let s: u32 = 0; s < sentCount; s++) {
    const f = sFlags(s);
    if ((f & S_QUESTION) != 0) continue;
    let cs = sStart(s);
    while (cs < sEnd(s)) {
      let ce = cs;
      while (ce < sEnd(s) && !endsClause(ce)) ce++;
      let revoke = false, only = false, exclude = false, restore = false, content = false, values = false;
      let negation = false, verb = false, negated = false, retract = false, afterAll = false, pause = false;
      for (let j = cs; j < ce; j++) {
        if (isThing(j)) { values = true; continue; }
        const g2 = second(j);
        if (g2 != 0) {
          if ((g2 & G2_ADD) != 0) addSeen = true;
          if ((g2 & G2_RETRACT) != 0) retract = true;
          if ((g2 & G2_AFTER_ALL) != 0) afterAll = true;
          if ((g2 & G2_PAUSE) != 0) pause = true;
          j += secondSpan - 1;
          continue;
        }
        const g = tG(j);
        if ((g & G_NEGATION) != 0 && !values && !content) negation = true;
        if ((g & G_NEGATION) != 0) negated = true;
        if ((g & G_VERB) != 0 && verbIndexOf(j) != 0) verb = true;
        if ((g & G_REVOKE) != 0) revoke = true;
        if ((g & G_ONLY) != 0) only = true;
        if ((g & G_INSTEAD) != 0) insteadSeen = true;
        if ((g & G_EXCLUDE) != 0) exclude = true;
        if ((g & G_RESTORE) != 0) restore = true;
        // A verb that also takes back ("cancel") is not the clause's content: "cancel that" revokes.
        if (g == 0 || ((g & G_VERB) != 0 && verbIndexOf(j) != 0 && (g & G_REVOKE) == 0)) content = true;
      }
      // "Hold off on that", "not yet": a pause, whatever else the clause says; "don't wait" is none.
      if (pause && !negated) pushOp(OP_PAUSE, 0, 0, 0);
      // "Don't.", "Wait, don't.", "No, not yet": a negation alone, of no verb and naming nothing,
      // takes back what it answers; which grant that is the reader cannot tell, so all wait.
      if (negation && !verb && !values && !content && !pause && !revoke && !retract && !afterAll) pushOp(OP_PAUSE, 0, 0, 0);
      // "Forget Carol", "Carol is out of the loop", "don't send it to her after all": what the
      // clause names is ruled out; with nothing named, every earlier grant is taken back. "Don't
      // forget Carol" retracts nothing.
      if ((retract && !negated) || (afterAll && negated)) {
        // "Al final no lo canceles": what "after all" negates is the request, not a word of it.
        if (values || (content && !negated)) pushMatchers(OP_RETRACT, cs, ce);
        else pushOp(OP_REVOKE_ALL, 0, 0, 0);
      } else if (revoke && !content && !values) pushOp(OP_REVOKE_ALL, 0, 0, 0);
      else if (only && (values || content)) pushMatchers(OP_KEEP, cs, ce);
      else if (exclude && (values || content)) pushMatchers(OP_EXCLUDE, cs, ce);
      // "…, not Raj", "nicht an carol@x": a clause that opens with a negation and names, with no
      // verb of its own, leaves out what it names (the correction's other half names the new one).
      else if (negation && !verb && (values || content)) pushMatchers(OP_EXCLUDE, cs, ce);
      else if (restore && (values || content)) pushMatchers(OP_RESTORE, cs, ce);
      cs = ce + 1;
    }
  }
}
