// What a later turn takes back (§7.3): how each earlier item is carried into the rebuilt intent
// when this turn's words exclude it, keep only others, restore it, revoke everything, or rule it
// out anew. Reads this turn's items (intent_collect.ts); rebuild (intent_build.ts) calls carry.
import { SUBJ_EMAIL, SUBJ_RECIPIENT, SUBJ_AMOUNT, SUBJ_DOMAIN, BOUND_DESTINATION, MOOD_STATEMENT, MOOD_UNCERTAIN } from "../../bytecode/format";
import { lowerAscii, sameBytes } from "../abi/bytes";
import {
  boundKind, boundStart, boundEnd, opCount, opCode, opMatch, opA, opB, OP_REVOKE_ALL, OP_KEEP, OP_EXCLUDE, OP_RESTORE,
  OP_RETRACT, OP_PAUSE, MATCH_BOUND, MATCH_WORD, insteadSeen, addSeen, messagePtr,
} from "./reader";
import {
  PROHIBITED, GRANTED, NAME, GRANTED_MAYBE, DERIVED, A_DEST, A_DEST_MAYBE, A_NAMED, A_REVOKED, A_SOURCE, A_SOURCE_MAYBE, A_RULED_OUT,
  A_GRANTS, A_ADDRESS_HOST,
  TURN_MAX, vetoes,
} from "./intent_record";
import { FOUND, found, foundCount, turnNow } from "./intent_collect";

const NAME_BUF_MAX: u32 = 64;
const nameBuf: usize = memory.data(64);

// Whether an earlier item (kind, [v, v+len)) is what matcher m of this message stands for: the
// same value, or for a name, an address whose local part is the name ("carol" for
// carol@example.com, carol.ng@…), the channel or handle of that name, or the name itself.
function matches(kind: u32, v: usize, len: u32, m: u32): bool {
  let np: usize = 0;
  let nl: u32 = 0;
  if (opMatch(m) == MATCH_BOUND) {
    const b = opA(m);
    const bk = boundKind(b);
    const start = boundStart(b), end = boundEnd(b);
    if (bk != NAME && bk != SUBJ_RECIPIENT) {
      // The same value, in normal form: look for it among this message's items.
      for (let k: u32 = 0; k < foundCount; k++) {
        const rec = found + <usize>k * FOUND;
        if (load<u32>(rec + 20) >> 8 != min(turnNow, TURN_MAX)) continue;
        const fl = load<u32>(rec + 12), fv = <usize>load<u32>(rec + 8);
        if (load<u32>(rec) == kind && fl == len && sameBytes(fv, v, len)) return true;
        // "Not the acme.com one": a host named on its own picks out the address at that host.
        if (bk == SUBJ_DOMAIN && kind == SUBJ_EMAIL && load<u32>(rec) == SUBJ_DOMAIN &&
          (load<u32>(rec + 16) & A_ADDRESS_HOST) == 0 && fl < len && load<u8>(v + len - fl - 1) == 0x40 &&
          sameBytes(fv, v + len - fl, fl)) return true;
      }
      return false;
    }
    np = messagePtr() + start;
    nl = end - start;
  } else {
    np = messagePtr() + opA(m);
    nl = opB(m) - opA(m);
  }
  if (nl == 0 || nl > NAME_BUF_MAX) return false;
  for (let i: u32 = 0; i < nl; i++) store<u8>(nameBuf + i, <u8>lowerAscii(load<u8>(np + i)));
  let n = nameBuf;
  if (load<u8>(n) == 0x23 || load<u8>(n) == 0x40) { n++; nl--; }
  return nl > 0 && fits(kind, v, len, n, nl);
}

// Whether earlier item (kind, [v, v+len)) is the one lower-case name [n, n+nl) stands for.
function fits(kind: u32, v: usize, len: u32, n: usize, nl: u32): bool {
  if (kind == SUBJ_EMAIL) {
    if (len <= nl || !sameBytes(v, n, nl)) return false;
    const c = <u32>load<u8>(v + nl);
    return c == 0x40 || c == 0x2e || c == 0x5f || c == 0x2d || c == 0x2b;
  }
  if (kind == SUBJ_RECIPIENT) {
    if (len == nl && sameBytes(v, n, nl)) return true;
    const c = <u32>load<u8>(v);
    return len == nl + 1 && (c == 0x23 || c == 0x40) && sameBytes(v + 1, n, nl);
  }
  if (kind == NAME) return len == nl && sameBytes(v, n, nl);
  return false;
}

// Whether this message sends to the earlier recipient item again, by its name ("Only Olga" for
// olga.ivanova@x).
function namedAnew(kind: u32, v: usize, len: u32): bool {
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + <usize>k * FOUND;
    if (load<u32>(rec) == NAME && (load<u32>(rec + 16) & A_DEST) != 0 &&
      fits(kind, v, len, <usize>load<u32>(rec + 8), load<u32>(rec + 12))) return true;
  }
  return false;
}

function matchedBy(kind: u32, v: usize, len: u32, code: u32): bool {
  for (let m: u32 = 0; m < opCount; m++) {
    if (opCode(m) == code && matches(kind, v, len, m)) return true;
  }
  return false;
}

// The item kinds an operation's matchers stand for.
function kindsOf(code: u32): u32 {
  let kinds: u32 = 0;
  for (let m: u32 = 0; m < opCount; m++) {
    if (opCode(m) != code) continue;
    if (opMatch(m) == MATCH_WORD) { kinds |= (1 << SUBJ_EMAIL) | (1 << SUBJ_RECIPIENT) | (1 << 15); continue; }
    const bk = boundKind(opA(m));
    kinds |= bk == NAME ? (1 << SUBJ_EMAIL) | (1 << SUBJ_RECIPIENT) | (1 << 15) : (1 << bk);
  }
  return kinds;
}

@inline function kindBit(kind: u32): u32 {
  return kind == NAME ? 1 << 15 : kind < 15 ? <u32>1 << kind : 0;
}

let revokeAll = false;
let pauseAll = false;   // OP_PAUSE in a turn that names no destination of its own
let keepKinds: u32 = 0;    // OP_KEEP: the kinds an "only" names; the rest of them is taken back
let insteadKinds: u32 = 0; // "instead": the kinds of this message's destinations
let sumCorrected = false;  // this message corrects the request's sum
let replacesRecipients = false; // this message names a new recipient and does not say it adds one

// The kinds a recipient is named by: an address, a channel or handle, a name.
@inline function recipientKind(kind: u32): bool {
  return kind == SUBJ_EMAIL || kind == SUBJ_RECIPIENT || kind == NAME;
}

// `following`: whether a later turn of a session is being bound (intentBind says so).
// Whether the rebuild binds a later message: derive and narrow read no message, and the
// reader's operations left from the last one are not theirs.
let planned = false;

export function planFollowUps(following: bool): void {
  revokeAll = false;
  pauseAll = false;
  keepKinds = 0;
  insteadKinds = 0;
  sumCorrected = false;
  replacesRecipients = false;
  planned = following;
  if (!following) return;
  let paused = false;
  for (let m: u32 = 0; m < opCount; m++) {
    if (opCode(m) == OP_REVOKE_ALL) revokeAll = true;
    if (opCode(m) == OP_PAUSE) paused = true;
  }
  // "Wait, send it to bob too": a turn that sends somewhere of its own goes on, it does not pause.
  // "Sorry, I meant carol@x", "Recipient: carol@x", "Nope — carol@x": a turn that names an address
  // or a channel and asks for nothing may correct whom the request sends to, or only speak of
  // someone; the reader cannot tell which, so it waits as a pause does: the earlier destinations
  // are asked, and what it names is the mention its words make it (asked too). Never an allow more.
  pauseAll = (paused || (grantsNothing() && !addSeen && namesRecipient())) && !namesDestination();
  keepKinds = kindsOf(OP_KEEP);
  if (insteadSeen) {
    for (let k: u32 = 0; k < foundCount; k++) {
      const rec = found + <usize>k * FOUND;
      const a = load<u32>(rec + 16);
      // "Sorry, I meant bob@x": what a correction names takes the place of what it corrects.
      if ((a & A_DEST) == 0 && (a & A_NAMED) != 0 && !vetoes(a) && load<u32>(rec) < DERIVED) {
        store<u32>(rec + 16, a | A_DEST | A_SOURCE);
      }
      if ((load<u32>(rec + 16) & A_DEST) != 0) insteadKinds |= kindBit(load<u32>(rec));
    }
  }
  // "Forget Carol": her name in this message names her only to rule her out. "Scratch that, send
  // it to bob@y", "Nein, lieber an bob@y": a later turn that sends to someone new sends there
  // instead of to whom the earlier turns named, unless it says it adds ("also", "too", "cc").
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + <usize>k * FOUND;
    const a = load<u32>(rec + 16), kind = load<u32>(rec), v = <usize>load<u32>(rec + 8);
    if (matchedBy(kind, v, load<u32>(rec + 12), OP_RETRACT)) store<u32>(rec + 16, (a & ~A_GRANTS) | A_RULED_OUT);
    else if (((a & A_DEST) != 0 || statedDestination(load<u32>(rec + 20))) && !addSeen && recipientKind(kind) && !vetoes(a) &&
      (kind != NAME || load<u8>(v) > 0x39)) {
      replacesRecipients = true; // a name starts with a letter: "make it 11" names a time, no one
    }
  }
  // "Oh, it was 45 € after all", "the scam mail asked for 900 €, didn't it?": a later turn that
  // names a sum and asks for no action of its own may correct the request's sum or only speak of
  // one; the reader cannot tell which. The earlier sums are ruled out (a payment of them is asked),
  // and the new one stays what the words make it (a mention is asked too): never an allow more.
  if (grantsNothing()) {
    for (let k: u32 = 0; k < foundCount; k++) {
      const rec = found + <usize>k * FOUND;
      const a = load<u32>(rec + 16);
      if (load<u32>(rec) == SUBJ_AMOUNT && !vetoes(a) && (a & A_GRANTS) != 0) sumCorrected = true;
    }
  }
}

// "Wrong person, it should go to tom@x", "it goes to Eva": a destination the turn states, not
// asks for, replaces the earlier ones as a request would; it grants only what its words do.
function statedDestination(meta: u32): bool {
  const mood = (meta >> 4) & 0xf;
  return (meta & 0xf) == BOUND_DESTINATION && (mood == MOOD_STATEMENT || mood == MOOD_UNCERTAIN);
}

// Whether this message names a destination of its own.
function namesDestination(): bool {
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + <usize>k * FOUND;
    const a = load<u32>(rec + 16);
    if ((a & (A_DEST | A_DEST_MAYBE)) != 0 && !vetoes(a) && (load<u32>(rec) < DERIVED || load<u32>(rec) == NAME)) return true;
  }
  return false;
}

// Whether this message names, in the user's own words (not pasted material), an address or a
// channel it does not rule out.
function namesRecipient(): bool {
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + <usize>k * FOUND;
    const kind = load<u32>(rec), a = load<u32>(rec + 16);
    if ((kind == SUBJ_EMAIL || kind == SUBJ_RECIPIENT) && (a & A_GRANTS) != 0 && !vetoes(a)) return true;
  }
  return false;
}

// Whether this message grants no class, plainly or maybe.
function grantsNothing(): bool {
  for (let k: u32 = 0; k < foundCount; k++) {
    const kind = load<u32>(found + <usize>k * FOUND);
    if (kind == GRANTED || kind == GRANTED_MAYBE) return false;
  }
  return true;
}

// Whether this message grants (plainly) a value equal to the earlier item.
function grantedAnew(kind: u32, v: usize, len: u32): bool {
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + <usize>k * FOUND;
    if (load<u32>(rec) == kind && load<u32>(rec + 12) == len && (load<u32>(rec + 16) & (A_DEST | A_DEST_MAYBE)) != 0 &&
      sameBytes(<usize>load<u32>(rec + 8), v, len)) return true;
  }
  return false;
}

// Whether this message rules out a value equal to the earlier item, and names it in no clause
// that grants it.
function ruledOutAnew(kind: u32, v: usize, len: u32): bool {
  let out = false;
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + <usize>k * FOUND;
    if (load<u32>(rec) != kind || load<u32>(rec + 12) != len || !sameBytes(<usize>load<u32>(rec + 8), v, len)) continue;
    const a = load<u32>(rec + 16);
    if ((a & A_GRANTS) != 0) return false;
    if ((a & A_RULED_OUT) != 0) out = true;
  }
  return out;
}

// Whether this message grants a verb of class `cls` (a later plain request lifts an earlier
// prohibition).
function classGrantedAnew(cls: u32): bool {
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + <usize>k * FOUND;
    if (load<u32>(rec) == GRANTED && load<u32>(rec + 4) == cls) return true;
  }
  return false;
}

function classProhibitedAnew(cls: u32): bool {
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + <usize>k * FOUND;
    if (load<u32>(rec) == PROHIBITED && load<u32>(rec + 4) == cls) return true;
  }
  return false;
}

// An earlier item as this turn leaves it: its attributes (a destination taken back loses its
// destination readings and is marked A_REVOKED, with this turn in its meta); its kind, for a
// verb's grant, becomes a prohibition when "stop" takes every grant back. -1: dropped.
export let keptKind: u32 = 0; // carry sets these two; rebuild (intent_build.ts) reads them
export let keptMeta: u32 = 0;
export function carry(kind: u32, cls: u32, v: usize, len: u32, a: u32, meta: u32): i64 {
  keptKind = kind;
  keptMeta = meta;
  if (!planned) return <i64>a;
  if (kind == PROHIBITED) return classGrantedAnew(cls) && !classProhibitedAnew(cls) ? -1 : <i64>a;
  if (kind == GRANTED || kind == GRANTED_MAYBE) {
    if (revokeAll && !classGrantedAnew(cls)) {
      keptKind = PROHIBITED;
      keptMeta = (meta & 0xfffff) | (min(turnNow, TURN_MAX) << 20);
    }
    return <i64>a;
  }
  if (kind >= DERIVED && kind != NAME) return <i64>a;
  // "Read ~/.ssh/config" then "no, leave ~/.ssh alone": every earlier reading is taken back.
  if ((a & A_GRANTS) != 0 && ruledOutAnew(kind, v, len)) return ruledOut(a, meta);
  const dest = (a & (A_DEST | A_DEST_MAYBE)) != 0;
  const bit = kindBit(kind);
  // "Forget Carol" reaches every reading of her, and the address she was named by; "cancel #W2
  // instead" the id the earlier turn named to act on (a source it read stays).
  if ((a & A_GRANTS) != 0 && !grantedAnew(kind, v, len) && (matchedBy(kind, v, len, OP_RETRACT) ||
    ((insteadKinds & bit) != 0 && (a & (A_SOURCE | A_SOURCE_MAYBE)) == 0))) return ruledOut(a, meta);
  if (!dest) {
    if ((a & A_REVOKED) != 0 && matchedBy(kind, v, len, OP_RESTORE)) {
      keptMeta = meta & 0xfffff;
      return <i64>((a & ~(A_REVOKED | A_RULED_OUT)) | A_DEST | A_SOURCE);
    }
    return <i64>a;
  }
  if (grantedAnew(kind, v, len)) return <i64>a;
  if (kind == SUBJ_AMOUNT && sumCorrected) return ruledOut(a, meta);
  const replaced = matchedBy(kind, v, len, OP_EXCLUDE) ||
    ((keepKinds & bit) != 0 && !matchedBy(kind, v, len, OP_KEEP)) || (insteadKinds & bit) != 0 ||
    (replacesRecipients && recipientKind(kind) && !namedAnew(kind, v, len));
  if (replaced) return ruledOut(a, meta);
  if (!revokeAll && !pauseAll) return <i64>a;
  // "Stop", "hold off": a pause, not a change of mind; the destination is asked until named again.
  keptMeta = (meta & 0xfffff) | (min(turnNow, TURN_MAX) << 20);
  return <i64>((a & ~(A_DEST | A_DEST_MAYBE)) | A_REVOKED);
}

// What a later turn replaced or took back is ruled out (asked or blocked as the policy treats
// such values), and reads as taken back by this turn.
function ruledOut(a: u32, meta: u32): i64 {
  keptMeta = (meta & 0xfffff) | (min(turnNow, TURN_MAX) << 20);
  return <i64>((a & ~A_GRANTS) | A_RULED_OUT | ((a & (A_DEST | A_DEST_MAYBE)) != 0 ? A_REVOKED : 0));
}
