// The role (destination, source, mention) and mood (request, question, condition, negated, …) of
// each value, read back from it to its verb, and the unknown words that stand where a
// destination's name does.
import {
  SUBJ_RECIPIENT, G_DEST, G_SOURCE, G_MENTION, G_RELATIVE, G_AUX, G_DEST_AFTER, G_SOURCE_AFTER, G_DEST_BEFORE,
  G_SUBJECT, G_DETERMINER, G_BARRIER, G_CONJ, G_ONLY, G_QUESTION, G_EXCLUDE, G_INSTEAD, G_VERB, G_NEGATION, G_LEAD, OBJECT_DESTINATION,
  OBJECT_WRITTEN, OBJECT_SOURCE, OBJECT_INCLUDED, OBJECT_CONVERTED, OBJECT_DELEGATED, BOUND_DESTINATION, BOUND_SOURCE,
  BOUND_MENTION, MOOD_REQUEST, MOOD_QUESTION, MOOD_CONDITION, MOOD_NEGATED, MOOD_STATEMENT, MOOD_UNKNOWN,
  MOOD_UNCERTAIN, SUBJ_EMAIL, SUBJ_PATH,
} from "../../bytecode/format";
import { isAsciiAlpha, isAsciiDigit } from "../abi/bytes";
import {
  NAME_KIND, boundKind, boundRole, boundMood, T_THING, T_PUNCT, P_COMMA, P_COLON, tokCount, tType, tA, tB, tG, tStart,
  tEnd, tCjk, isWord, isThing, isPunct, wordHas, S_CJK, S_KNOWN, S_QUESTION, sStart, sEnd, sFlags, sentFacts,
  SCAN_WINDOW, scanCut, sentenceOf, verbIndexOf, clauseStart, clauseEnd, roleNow, moodNow, verbNow, condNow,
  inherited, toValue, at, msg, msgLen,
} from "./reader_state";
import { cjkLen } from "../readers/scan";
import { endsSentence, endsClause, conditionOf } from "./reader_sentences";
import { imperative, negatedVerb, clauseNegated, objectOf, cancelsAt } from "./reader_verbs";
import { possessive } from "./reader_tokens";

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

// Whether bytes [a, b) are a short run of ideographs the grammar does not know: the title or
// name a particle's value carries ("转给法务legal@x": to legal, legal@x).
const TITLE_MAX: u32 = 4;
function titleBetween(a: u32, b: u32): bool {
  if (b <= a || b - a > TITLE_MAX * 3) return false;
  for (let i = a; i < b;) {
    const n = cjkLen(msg, msgLen, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// Whether the person of kind `kind` the RELATIVE word at giverAt introduces stands "with" the
// object of verb v, a verb that makes, sets or books (object written, or none): the word before
// the preposition is a noun (a verb word read as one, a word the grammar does not know, or a
// value), and no value stands between the verb and it but values of that object.
function madeWith(v: u32, kind: u32): bool {
  if (giverAt <= 0 || !(kind == SUBJ_EMAIL || kind == SUBJ_RECIPIENT || kind == NAME_KIND)) return false;
  const o = objectOf(v);
  if (o != OBJECT_WRITTEN && o != 0) return false;
  const g = <u32>giverAt;
  if (!wordHas(g, G_RELATIVE) || wordHas(g, G_DEST | G_SOURCE | G_MENTION)) return false;
  const n = g - 1;
  if (n <= v) return false;
  if (isThing(n)) return !personThing(n);
  if (!isWord(n) || tCjk(n)) return false;
  return tG(n) == 0 || (verbIndexOf(n) != 0 && !wordHas(n, G_VERB));
}

function personThing(j: u32): bool {
  const kind = boundKind(tA(j));
  return kind == SUBJ_EMAIL || kind == SUBJ_RECIPIENT || kind == NAME_KIND;
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


// Whether name k stands between a determiner and a word the grammar does not know ("the Payment
// module"), unquoted: a quoted name ("the 'general' channel") is the name of what it stands in.
function modifiesNoun(k: u32): bool {
  if (k == 0 || !wordHas(k - 1, G_DETERMINER) || k + 1 >= tokCount || !isWord(k + 1) || tG(k + 1) != 0 || tCjk(k + 1)) return false;
  const before = tStart(k) > 0 ? at(msg, tStart(k) - 1) : 0;
  return before != 0x27 && before != 0x22 && before != 0x99 && before != 0x9c; // ' " and the last bytes of ’ “
}

// Token k's role, scanning back from it to its governing verb: the nearest role word decides
// (a relative one by the verb's direction, §7.3), a value joined by "and" or a comma takes its
// neighbour's reading, and an embedded clause ("what alice wrote", "that carol is") mentions.
export function readRole(k: u32, kind: u32): void {
  verbNow = -1;
  participantNow = -1;
  giverAt = -1;
  toValue = false;
  const sent = sentenceOf(k);
  const s = sStart(sent);
  const cjk = (sFlags(sent) & S_CJK) != 0;
  // Particles glued to the value in a script without spaces; values joined by a conjunction
  // particle share the particle after the last ("aとbに", "aとbを").
  let last = k;
  while (last + 2 < sEnd(sent) && isWord(last + 1) && tCjk(last + 1) && wordHas(last + 1, G_CONJ) &&
    tStart(last + 1) == tEnd(last) && isThing(last + 2) && tStart(last + 2) == tEnd(last + 1)) last += 2;
  if (last + 1 < sEnd(sent) && isWord(last + 1) && tCjk(last + 1) && tStart(last + 1) == tEnd(last)) {
    if (wordHas(last + 1, G_DEST_AFTER)) { roleNow = BOUND_DESTINATION; findCjkVerb(sent); return; }
    if (wordHas(last + 1, G_SOURCE_AFTER)) { roleNow = BOUND_SOURCE; findCjkVerb(sent); return; }
    // An object particle ("を", "를"): the verb's object direction decides, as for an English
    // object ("xを招待して": the person invited receives; "xを送って": x is what is sent).
    if (wordHas(last + 1, G_RELATIVE)) {
      findCjkVerb(sent);
      roleNow = verbNow >= 0 ? roleFor(objectOf(<u32>verbNow), kind, false) : BOUND_MENTION;
      return;
    }
  }
  if (k > 0 && isWord(k - 1) && tCjk(k - 1) && wordHas(k - 1, G_DEST_BEFORE) && (tEnd(k - 1) == tStart(k) || titleBetween(tEnd(k - 1), tStart(k)))) {
    roleNow = BOUND_DESTINATION;
    findCjkVerb(sent);
    return;
  }
  let prep: u32 = 0;       // G_DEST, G_SOURCE, G_MENTION or G_RELATIVE
  let passedValue = false; // a value lies between the preposition and what is further back
  let embedded = false;
  let phraseAfter = false; // a determiner or possessive between a RELATIVE word and what is further back
  let nested = false;      // the RELATIVE phrase hangs off a noun of another ("for the dinner with bob")
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
      // "Settle the Acme invoice, €120": an object set off by a comma at its clause's end belongs
      // to the clause before ("…, Alice is on leave" does not).
      if (code == P_COMMA && j + 1 == k && kind == NAME_KIND && (k + 1 >= tokCount || endsClause(k + 1) || endsSentence(k + 1))) continue;
      // A preposition in this clause may be governed by a verb before a comma.
      if (code == P_COMMA && prep != 0) continue;
      break;
    }
    if (type == T_THING) {
      passedValue = true;
      continue;
    }
    const g = tG(j);
    if (prep == G_RELATIVE && ((g & G_DETERMINER) != 0 || (isWord(j) && tB(j) == 1 && load<u8>(<usize>tA(j)) == 0x73 && j > s && tEnd(j - 1) < tStart(j)))) phraseAfter = true;
    if ((g & G_CONJ) != 0 && j > s && isThing(j - 1) && onlyValues) {
      inherit(j - 1);
      return;
    }
    if ((g & G_CONJ) == 0) onlyValues = false;
    // "that" right after a verb is its object ("forward that to bob@x"), not an embedded clause.
    if ((g & G_BARRIER) != 0 && !((g & G_DETERMINER) != 0 && j > s && wordHas(j - 1, G_VERB))) { embedded = true; break; }
    if ((g & G_VERB) != 0 && verbIndexOf(j) != 0) { verbNow = <i32>j; break; }
    // "book a meeting with bob@x", "crea una reunión … con carmen@x": "with" after a noun of a
    // verb whose object joins (a meeting, an invitation) names a participant, who is invited.
    if (prep == G_RELATIVE && participantNow < 0 && verbIndexOf(j) != 0 && objectOf(j) == OBJECT_INCLUDED) participantNow = <i32>j;
    if ((g & G_ONLY) != 0 && prep == 0) { prep = G_DEST; giverAt = <i32>j; continue; }
    if ((g & (G_DEST | G_SOURCE | G_MENTION)) != 0) {
      const fixed = (g & G_DEST) != 0 ? G_DEST : (g & G_SOURCE) != 0 ? G_SOURCE : G_MENTION;
      if (prep == 0) { prep = fixed; giverAt = <i32>j; }
      // "from my call with jane": the source's own phrase (a determiner or a possessive opens
      // it) holds the relative one; "la hoja de gastos … con x@y" ("de": of) does not.
      else if (prep == G_RELATIVE && !passedValue && fixed != G_DEST && phraseAfter) prep = fixed;
      continue;
    }
    if ((g & G_RELATIVE) != 0) {
      if (prep == 0) { prep = G_RELATIVE; giverAt = <i32>j; }
      else if (prep == G_RELATIVE && phraseAfter && !passedValue) nested = true;
      continue;
    }
    if ((g & G_CONJ) != 0 && prep == 0) break; // "… and send": a new clause
  }
  if (cjk && verbNow < 0) findCjkVerb(sent);
  // "And in #customer-success too": a verbless sentence that opens with "and" goes on with the
  // request before it, where "in", "on" or "with" a channel or a person names where it goes.
  if (verbNow < 0 && !embedded && !cjk && prep == G_RELATIVE && wordHas(s, G_CONJ) &&
    (kind == SUBJ_EMAIL || kind == SUBJ_RECIPIENT || kind == NAME_KIND)) prep = G_DEST;
  // "set the contact to x@y", "change it to …", "convert the csv to json", "translate it to
  // French": after a verb that writes or converts, "to" gives the new value or what it makes,
  // and only a file receives.
  const object = verbNow >= 0 ? objectOf(<u32>verbNow) : 0;
  toValue = prep == G_DEST && verbNow >= 0 && !cjk && (object == OBJECT_WRITTEN || object == OBJECT_CONVERTED) && kind != SUBJ_PATH;
  if (giverAt < 0) giverAt = verbNow;
  if (embedded) roleNow = BOUND_MENTION;
  else if (toValue) roleNow = BOUND_MENTION;
  // "to the Payment module", "for the UserService class": a name between a determiner and a noun
  // the grammar does not know modifies that noun, which is what the phrase names: no receiver.
  else if (kind == NAME_KIND && modifiesNoun(k)) roleNow = BOUND_MENTION;
  else if (prep == G_DEST) roleNow = BOUND_DESTINATION;
  else if (participantNow >= 0 && prep == G_RELATIVE && (kind == SUBJ_EMAIL || kind == SUBJ_RECIPIENT || kind == NAME_KIND)) roleNow = BOUND_DESTINATION;
  // "set up a 30-minute call with raul@x", "crée la démo … avec client@x": a person "with" the
  // thing a request makes or books takes part in it, and receives what it sends.
  else if (prep == G_RELATIVE && verbNow >= 0 && !cjk && madeWith(<u32>verbNow, kind)) roleNow = BOUND_DESTINATION;
  else if (prep == G_SOURCE) roleNow = BOUND_SOURCE;
  else if (prep == G_MENTION) roleNow = BOUND_MENTION;
  // "convert data.csv to JSON in data.json": the file after the input is the output.
  else if (prep == G_RELATIVE && kind == SUBJ_PATH && verbNow >= 0 && !cjk && objectOf(<u32>verbNow) == OBJECT_CONVERTED &&
    pathBetween(<u32>verbNow, k)) roleNow = BOUND_DESTINATION;
  // "pay the invoice for the dinner with bob": a name in a phrase that tells of what is paid or
  // sent is no receiver of it (an address there is: "reply in the thread with ines@x").
  else if (nested && object == OBJECT_DESTINATION && kind == NAME_KIND) roleNow = BOUND_MENTION;
  else if (verbNow >= 0 && !cjk) roleNow = roleFor(objectOf(<u32>verbNow), kind, clauseHasFile(k));
  else roleNow = BOUND_MENTION;
  // "pay bob's invoice", "forward ana@x's notes": the owner of what the request acts on is where
  // it comes from, as "the invoice from bob" is, not whom it goes to.
  if (roleNow == BOUND_DESTINATION && possessive(k + 1)) roleNow = BOUND_SOURCE;
  verbless = verbNow < 0 && prep == G_DEST;
  prepFirst = false;
  if (verbless) {
    // A destination with no verb ("To bob@x: the notes, please"; "…, please, to bob@x") reads as a
    // request unless a subject stands before it in its clause ("the invoice goes to ap@x").
    // The word that gave the role ("to", "only") is this value's own: every way prep becomes
    // G_DEST with no verb sets giverAt in this scan.
    const giver = <u32>giverAt;
    const cs = clauseStart(giver);
    prepFirst = !wordHas(cs, G_DETERMINER) || cs == giver;
    for (let i = cs; i < giver; i++) if (wordHas(i, G_SUBJECT | G_BARRIER)) prepFirst = false;
  }
}
let verbless = false;
let prepFirst = false;
let giverAt: i32 = -1; // the word that gave the role (a preposition or the verb), -1: none

// Whether a person value k that reads as a destination stands in an aside: inside brackets
// opened after the word that gave its role, which hold more than values ("send the minutes to
// jonas@x (tim@x took them, he doesn't need a copy)"), not an apposition ("to Maria (maria@x)").
export function inAside(k: u32): bool {
  if (giverAt < 0) return false;
  const sent = sentenceOf(k);
  const floor = tEnd(<u32>giverAt);
  let depth = 0;
  let open: i64 = -1;
  for (let i = tStart(k); i > floor;) {
    i--;
    const c = at(msg, i);
    if (c == 0x29 || c == 0x5d) depth++;
    else if (c == 0x28 || c == 0x5b) { if (depth == 0) { open = i; break; } depth--; }
    else if (c == 0x89 && i >= 2 && at(msg, i - 1) == 0xbc && at(msg, i - 2) == 0xef) { depth++; i -= 2; }  // ）
    else if (c == 0x88 && i >= 2 && at(msg, i - 1) == 0xbc && at(msg, i - 2) == 0xef) {                     // （
      if (depth == 0) { open = i - 2; break; }
      depth--; i -= 2;
    }
  }
  if (open < 0) return false;
  // A word besides values, commas and conjunctions inside the brackets: an aside.
  const s = sStart(sent), e = sEnd(sent);
  for (let j = k; j > s && k - j < SCAN_WINDOW;) {
    j--;
    if (<i64>tStart(j) <= open) break;
    if (isWord(j) && !wordHas(j, G_CONJ)) return true;
  }
  for (let j = k + 1; j < e && j <= k + SCAN_WINDOW; j++) {
    if (closesBefore(<u32>open, tStart(j))) break;
    if (isWord(j) && !wordHas(j, G_CONJ)) return true;
  }
  return false;
}

// Whether value k is the subject of an act of saying or writing right after it ("the report
// bruno@x wrote", "the file carol@x sent"): the author, mentioned, not addressed. The act is a
// BARRIER word the grammar reads as nothing else, in a past form ("saying" after a recipient
// says what the message says).
export function authorOf(k: u32): bool {
  const j = k + 1;
  if (j >= tokCount || !isWord(j) || tCjk(j) || tStart(j) != tEnd(k) + 1) return false;
  const g = tG(j);
  if ((g & G_BARRIER) == 0 || (g & (G_DETERMINER | G_QUESTION | G_SUBJECT | G_CONJ | G_VERB)) != 0) return false;
  const n = tB(j);
  if (n < 3) return false;
  const p = <usize>tA(j);
  const a = load<u8>(p + n - 2), b = load<u8>(p + n - 1);
  return (a == 0x65 && b == 0x64) || (a == 0x6e && b == 0x74) || (a == 0x69 && b == 0x64) || (a == 0x79 && b == 0x73) ||
    (a == 0x74 && b == 0x65) || (a == 0x6c && b == 0x64) || (a == 0x6f && b == 0x74);
}

// Whether the bracket opened at `open` closes before byte `at_`.
function closesBefore(open: u32, end: u32): bool {
  let depth = 0;
  for (let i = open + 1; i < end; i++) {
    const c = at(msg, i);
    if (c == 0x28 || c == 0x5b) depth++;
    else if (c == 0x29 || c == 0x5d) { if (depth == 0) return true; depth--; }
    else if (c == 0xef && i + 2 < end && at(msg, i + 1) == 0xbc && at(msg, i + 2) == 0x89) { if (depth == 0) return true; depth--; }
  }
  return false;
}
// The noun whose participant the value just read is ("a meeting with bob@x"), -1: none.
export let participantNow: i32 = -1;

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
// "except bob@x", "instead of sales@x", "rather than the old account". In a script without
// spaces the word for instead comes before the new value ("改为qian@x", "やっぱりsuzuki@xに"): no
// negation.
function negatedBefore(k: u32): bool {
  const cs = clauseStart(k);
  let cancelled = false;
  for (let j = k; j > cs;) {
    if (k - j >= SCAN_WINDOW) { scanCut = true; return false; }
    j--;
    if (cancelsAt(j)) cancelled = true;
    if (wordHas(j, G_NEGATION) && !cancelled && !(j > cs && cancelsAt(j - 1))) return true;
    if (wordHas(j, G_EXCLUDE)) return true;
    if (wordHas(j, G_INSTEAD) && !tCjk(j) && !insteadLeads(j, k)) return true;
  }
  return false;
}

// Whether the instead word j, one word right before the preposition of value k, says how the
// clause's verb acts, with no value before it in its clause to stand against: "Non, plutôt à
// bob@y", "envoie-le plutôt à bob@y", "überweise sie stattdessen an Eva" name the new value;
// "schick es an bob@y statt an carol@x" the old one.
function insteadLeads(j: u32, k: u32): bool {
  if (j + 2 != k || !wordHas(j + 1, G_DEST) || tB(j) != tEnd(j) - tStart(j)) return false;
  for (let i = clauseStart(k); i < j; i++) if (isThing(i)) return false;
  return true;
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
export function readMood(k: u32): void {
  const sent = sentenceOf(k);
  const f = sFlags(sent);
  condNow = -1;
  if ((f & S_KNOWN) == 0) { moodNow = MOOD_UNKNOWN; return; }
  // "How do I list config/ except config/.env?": what a question excludes is ruled out too.
  if ((f & S_QUESTION) != 0) { moodNow = excludedBefore(k) ? MOOD_NEGATED : MOOD_QUESTION; return; }
  if (negatedBefore(k) || (verbNow >= 0 && negatedVerb(<u32>verbNow))) { moodNow = MOOD_NEGATED; return; }
  if ((f & S_CJK) != 0 && clauseNegated(k)) { moodNow = MOOD_NEGATED; return; }
  condNow = conditionOf(k);
  let mood = MOOD_STATEMENT;
  if (verbNow >= 0) mood = imperative(<u32>verbNow) ? MOOD_REQUEST : MOOD_STATEMENT;
  else if (verbless) mood = prepFirst || onlyClause(k) ? MOOD_REQUEST : MOOD_UNCERTAIN;
  if (condNow >= 0 && (mood == MOOD_REQUEST || mood == MOOD_UNCERTAIN)) mood = MOOD_CONDITION;
  moodNow = mood;
}

// A value the words after it rule out reads as negated (ruledOutAfter).
export function ruleOutAfter(k: u32): void {
  if (moodNow != MOOD_NEGATED && moodNow != MOOD_UNKNOWN && ruledOutAfter(k, moodNow)) moodNow = MOOD_NEGATED;
}

function onlyClause(k: u32): bool {
  const cs = max(clauseStart(k), k > SCAN_WINDOW ? k - SCAN_WINDOW : 0);
  for (let j = cs; j < k; j++) if (wordHas(j, G_ONLY)) return true;
  return false;
}

// A reading a scan could not finish (SCAN_WINDOW): what it would grant it grants maybe.
export function uncertain(): void {
  if (moodNow == MOOD_REQUEST) moodNow = MOOD_UNCERTAIN;
}

// ---- names in a destination's place ----

// A word the grammar does not know, of letters, digits, '.', '-', '_' or a leading '+'.
export function nameLike(k: u32): bool {
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
export function inDestinationSlot(k: u32): bool {
  if (k + 1 < tokCount && possessive(k + 1)) return false; // "pay bob's invoice": bob owns the invoice
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
