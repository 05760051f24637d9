// The reader's state for one message: the results intent.ts reads (bound values, verb uses,
// follow-up operations), the message with its grammar and tokens, the sentences with what is
// worked out once per token, and the reading of the value at hand.
import { NAME } from "./intent_record";
import { G_VERB, GRAMMAR2_PREFIX } from "../../bytecode/format";
import { scratchAlloc } from "../abi/mem";
import { wordValueHashed } from "../readers/wordset";

// Who writes what: readMessage (reader.ts) resets all of it, allocates `quoted`, `uses` and `ops`
// and records the verb uses and each value's reading (setBound); markQuotes marks `quoted`;
// findValues and tokenize write the bound values and the tokens (pushBound, pushToken);
// sentences and indexSentences the sentences and the per-token indices; readRole, readMood and
// ruleOutAfter the reading of a value; the scans of verbs and roles set scanCut; followUps the
// operations and insteadSeen. Everything else only reads.

export const NAME_KIND: u32 = NAME; // the kind the intent keeps names under (intent_record.ts)

@inline export function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// ---- results ----

// Bound values: kind, raw start, raw end, role, mood, note start, note end, word host (0/1).
export const BV: u32 = 32;
export let bound: usize = 0;
export let boundCap: u32 = 0;
export let boundCount: u32 = 0;
export function boundKind(k: u32): u32 { return load<u32>(bound + <usize>k * BV); }
export function boundStart(k: u32): u32 { return load<u32>(bound + <usize>k * BV + 4); }
export function boundEnd(k: u32): u32 { return load<u32>(bound + <usize>k * BV + 8); }
export function boundRole(k: u32): u32 { return load<u32>(bound + <usize>k * BV + 12); }
export function boundMood(k: u32): u32 { return load<u32>(bound + <usize>k * BV + 16); }
export function boundNoteStart(k: u32): u32 { return load<u32>(bound + <usize>k * BV + 20); }
export function boundNoteEnd(k: u32): u32 { return load<u32>(bound + <usize>k * BV + 24); }
export function boundWordHost(k: u32): bool { return load<u32>(bound + <usize>k * BV + 28) != 0; }

// Verb uses: verb value, word ptr, word len, effect, note start, note end.
export const USE_GRANT: u32 = 1;
export const USE_GRANT_MAYBE: u32 = 2;
export const USE_PROHIBIT: u32 = 3;
// A negation of the verb's objects, not of the act: "don't email carol@x", "no need to copy
// anyone else". It prohibits the verb's classes only where the message grants none of them.
export const USE_RESTRICT: u32 = 4;
// A verb that neither grants nor prohibits, not negated: it names its action as the user's own
// ("you want to return it", "if not, cancel the order"; §7.5), and grants no class.
export const USE_ACTION: u32 = 5;
export const VU: u32 = 24;
export let uses: usize = 0;
export let useCount: u32 = 0;
export function useVerb(k: u32): u32 { return load<u32>(uses + <usize>k * VU); }
export function useWord(k: u32): usize { return <usize>load<u32>(uses + <usize>k * VU + 4); }
export function useWordLen(k: u32): u32 { return load<u32>(uses + <usize>k * VU + 8); }
export function useEffect(k: u32): u32 { return load<u32>(uses + <usize>k * VU + 12); }
export function useNoteStart(k: u32): u32 { return load<u32>(uses + <usize>k * VU + 16); }
export function useNoteEnd(k: u32): u32 { return load<u32>(uses + <usize>k * VU + 20); }

// Follow-up operations on what earlier turns granted: op, then the matchers' range in `bound`
// (values) or a word (a name) by raw start/end.
export const OP_REVOKE_ALL: u32 = 1; // "stop", "cancel that", "never mind"
export const OP_KEEP: u32 = 2;       // "only X from now on", "X instead": the rest of X's kinds
export const OP_EXCLUDE: u32 = 3;    // "leave X out", "except X"
export const OP_RESTORE: u32 = 4;    // "add X back"
export const OP_RETRACT: u32 = 5;    // "forget X", "X is out of the loop": X is ruled out
export const OP_PAUSE: u32 = 6;      // "hold off", "not yet": the earlier destinations wait
export const MATCH_BOUND: u32 = 1;
export const MATCH_WORD: u32 = 2;
export const OPR: u32 = 16;
export let ops: usize = 0;
export let opCount: u32 = 0;
export function opCode(k: u32): u32 { return load<u32>(ops + <usize>k * OPR); }
export function opMatch(k: u32): u32 { return load<u32>(ops + <usize>k * OPR + 4); }
export function opA(k: u32): u32 { return load<u32>(ops + <usize>k * OPR + 8); }
export function opB(k: u32): u32 { return load<u32>(ops + <usize>k * OPR + 12); }
// INSTEAD: the destinations of this message replace the earlier ones of their kinds.
export let insteadSeen = false;
// ADD: this message adds to the earlier destinations ("also", "too", "cc") rather than replacing them.
export let addSeen = false;

// ---- the message ----

export let msg: usize = 0;
export let msgLen: u32 = 0;
export let quoted: usize = 0; // a byte per message byte: 1 when it is quoted, pasted or forwarded
export let grammar: u64 = 0;
export let verbs: u64 = 0;
export let cancels: u64 = 0;

// Tokens: type, a, b, grammar value, raw start, raw end, aux.
export const T_WORD: u32 = 1;
export const T_THING: u32 = 2; // a value (a bound range: a = first bound index, b = count)
export const T_PUNCT: u32 = 3;
export const P_COMMA: u32 = 1;
export const P_COLON: u32 = 2;
export const P_SEMI: u32 = 3;
export const P_STOP: u32 = 4;
export const P_QUESTION: u32 = 5;
export const P_LINE: u32 = 6;
export const TK: u32 = 32;
export let toks: usize = 0;
export let tokCount: u32 = 0;
export let tokCap: u32 = 0;

@inline export function tk(k: u32): usize { return toks + <usize>k * TK; }
@inline export function tType(k: u32): u32 { return load<u32>(tk(k)); }
@inline export function tA(k: u32): u32 { return load<u32>(tk(k) + 4); }
@inline export function tB(k: u32): u32 { return load<u32>(tk(k) + 8); }
@inline export function tG(k: u32): u32 { return load<u32>(tk(k) + 12); }
@inline export function tStart(k: u32): u32 { return load<u32>(tk(k) + 16); }
@inline export function tEnd(k: u32): u32 { return load<u32>(tk(k) + 20); }
@inline function tSent(k: u32): u32 { return load<u32>(tk(k) + 24); }
@inline export function tCjk(k: u32): bool { return load<u32>(tk(k) + 28) != 0; }
@inline export function isWord(k: u32): bool { return tType(k) == T_WORD; }
@inline export function isThing(k: u32): bool { return tType(k) == T_THING; }
@inline export function isPunct(k: u32, code: u32): bool { return tType(k) == T_PUNCT && tA(k) == code; }
@inline export function wordHas(k: u32, bits: u32): bool { return tType(k) == T_WORD && (tG(k) & bits) != 0; }

export function pushToken(type: u32, a: u32, b: u32, g: u32, start: u32, end: u32, cjk: bool): bool {
  if (tokCount == tokCap) {
    const more = tokCap == 0 ? 64 : tokCap << 1;
    const t = scratchAlloc(<usize>more * TK);
    if (t == 0) return false;
    if (tokCount > 0) memory.copy(t, toks, <usize>tokCount * TK);
    toks = t;
    tokCap = more;
  }
  const r = tk(tokCount);
  store<u32>(r, type);
  store<u32>(r + 4, a);
  store<u32>(r + 8, b);
  store<u32>(r + 12, g);
  store<u32>(r + 16, start);
  store<u32>(r + 20, end);
  store<u32>(r + 24, 0);
  store<u32>(r + 28, cjk ? 1 : 0);
  tokCount++;
  return true;
}

export function pushBound(kind: u32, start: u32, end: u32, wordHost: bool): bool {
  if (boundCount == boundCap) {
    const more = boundCap == 0 ? 32 : boundCap << 1;
    const t = scratchAlloc(<usize>more * BV);
    if (t == 0) return false;
    if (boundCount > 0) memory.copy(t, bound, <usize>boundCount * BV);
    bound = t;
    boundCap = more;
  }
  const r = bound + <usize>boundCount * BV;
  memory.fill(r, 0, BV);
  store<u32>(r, kind);
  store<u32>(r + 4, start);
  store<u32>(r + 8, end);
  store<u32>(r + 28, wordHost ? 1 : 0);
  boundCount++;
  return true;
}

// The grammar value of [p, p+len) (0: none) and, for a verb, its verb index + 1 in verbOf.
export let verbOf: u32 = 0;
export function lookup(p: usize, len: u32): u32 {
  verbOf = 0;
  if (len == 0) return 0;
  let h: u32 = 0x811c9dc5;
  for (let i: u32 = 0; i < len; i++) h = (h ^ <u32>load<u8>(p + i)) * 0x01000193;
  const v = wordValueHashed(grammar, p, len, h);
  if (v < 0) return 0;
  const g = <u32>v;
  if ((g & G_VERB) != 0) {
    const verb = wordValueHashed(verbs, p, len, h);
    if (verb >= 0) verbOf = <u32>verb + 1;
  }
  return g;
}

// The second table's value of a word or phrase (GRAMMAR2_PREFIX before its key); 0 if none.
const KEY2_MAX: u32 = 47;
const key2Buf: usize = memory.data(48);
export function lookupSecond(p: usize, len: u32): u32 {
  if (len == 0 || len > KEY2_MAX) return 0;
  store<u8>(key2Buf, GRAMMAR2_PREFIX);
  memory.copy(key2Buf + 1, p, len);
  return lookup(key2Buf, len + 1);
}

// ---- sentences ----

// Per sentence: first token, end token, flags.
export const S_QMARK: u32 = 1;
export const S_CJK: u32 = 2;
export const S_KNOWN: u32 = 4;
export const S_QUESTION: u32 = 8;
export const S_POLITE: u32 = 16;
export const SR: u32 = 16;
export let sents: usize = 0;
export let sentCount: u32 = 0;
@inline export function sStart(s: u32): u32 { return load<u32>(sents + <usize>s * SR); }
@inline export function sEnd(s: u32): u32 { return load<u32>(sents + <usize>s * SR + 4); }
@inline export function sFlags(s: u32): u32 { return load<u32>(sents + <usize>s * SR + 8); }

// Per token, worked out once: its sentence, its clause's bounds, the condition word that governs
// it (conditionOf), and per sentence whether it holds a negation and where its first verb stands
// (for scripts without spaces): every later question about a token is a lookup, so reading a
// message costs time linear in it, however long its sentences.
export let sentIndex: usize = 0;  // token -> sentence
export let clauseBounds: usize = 0; // token -> (clause start, clause end)
export let condIndex: usize = 0;  // token -> governing condition word + 1 (0: none)
export let sentFacts: usize = 0;  // sentence -> (negation anywhere, first verb + 1)

// Backward and forward scans from a token look at most this many tokens: a word further away in
// a run-on sentence is not read as the value's verb, preposition or negation. What such a cut
// scan could not see makes the reading uncertain (it asks), never a grant.
export const SCAN_WINDOW: u32 = 48;
export let scanCut = false;

@inline export function sentenceOf(k: u32): u32 { return load<u32>(sentIndex + (<usize>k << 2)); }
@inline export function verbIndexOf(k: u32): u32 { return load<u32>(tk(k) + 24); }

// The clause of token k: [clauseStart, clauseEnd) between punctuation, in its sentence.
@inline export function clauseStart(k: u32): u32 { return load<u32>(clauseBounds + (<usize>k << 3)); }
@inline export function clauseEnd(k: u32): u32 { return load<u32>(clauseBounds + (<usize>k << 3) + 4); }

// ---- the reading of one value ----

// The role, mood and governing verb found for token k: roleNow, moodNow, verbNow (-1: none).
export let roleNow: u32 = 0;
export let moodNow: u32 = 0;
export let verbNow: i32 = -1;
export let toValue = false; // "to" after a verb that writes or converts: it gives the new value, no receiver
export let condNow: i32 = -1;
// Whether the value just read took the reading of the value before it (inherit).
export let inherited = false;
