// The summary of an intent (§8), as the intent, derive and narrow exports answer: a line per
// item, named or derived, then the prohibitions, grants and asks of classes.
import {
  SUBJ_EMAIL, SUBJ_DOMAIN, SUBJ_URL, SUBJ_PATH, SUBJ_RECIPIENT, SUBJ_OBJECT, SUBJ_AMOUNT, BOUND_DESTINATION,
  BOUND_SOURCE, BOUND_QUOTED, MOOD_REQUEST, MOOD_QUESTION, MOOD_CONDITION, MOOD_NEGATED, MOOD_UNKNOWN, MOOD_UNCERTAIN,
} from "../../bytecode/format";
import { classCount, classCapability, strPtr, strLen } from "../policy/decode";
import { outAscii, outByte, outBytes, Text } from "../abi/out";
import {
  PROHIBITED, GRANTED, NAME, ASKED, GRANTED_MAYBE, DERIVED, A_DEST, A_DEST_MAYBE, A_NAMED, A_NAMED_MAYBE, A_REVOKED,
  A_BARE_HOST, A_SOURCE, A_SOURCE_MAYBE, A_RULED_OUT, ITEM_HEAD, recSize, noteOf, H_ITEMS, H_ITEMS_BYTES, field,
  TURN_MAX, addressHostOnly,
} from "./intent_record";

function outDecimalU(n: u32): void {
  if (n >= 10) outDecimalU(n / 10);
  outByte(0x30 + n % 10);
}

function roleWord(role: u32): Text {
  if (role == BOUND_DESTINATION) return "destination";
  if (role == BOUND_SOURCE) return "source";
  if (role == BOUND_QUOTED) return "quoted";
  return "mention";
}

function moodWord(mood: u32): Text {
  if (mood == MOOD_REQUEST) return "request";
  if (mood == MOOD_QUESTION) return "question";
  if (mood == MOOD_CONDITION) return "condition";
  if (mood == MOOD_NEGATED) return "negated";
  if (mood == MOOD_UNKNOWN) return "unknown-language";
  if (mood == MOOD_UNCERTAIN) return "uncertain";
  return "statement";
}

// The grants of attributes `a`: a comma-separated list of destination, destination-maybe,
// source, source-maybe, named, named-maybe, revoked, whole-host, ruled-out (or "none").
function outGrants(a: u32): void {
  let any = false;
  if ((a & A_DEST) != 0) { outAscii("destination"); any = true; }
  if ((a & A_DEST_MAYBE) != 0) { if (any) outByte(0x2c); outAscii("destination-maybe"); any = true; }
  if ((a & A_SOURCE) != 0) { if (any) outByte(0x2c); outAscii("source"); any = true; }
  if ((a & A_SOURCE_MAYBE) != 0) { if (any) outByte(0x2c); outAscii("source-maybe"); any = true; }
  if ((a & A_NAMED) != 0) { if (any) outByte(0x2c); outAscii("named"); any = true; }
  if ((a & A_NAMED_MAYBE) != 0) { if (any) outByte(0x2c); outAscii("named-maybe"); any = true; }
  if ((a & A_REVOKED) != 0) { if (any) outByte(0x2c); outAscii("revoked"); any = true; }
  if ((a & A_BARE_HOST) != 0) { if (any) outByte(0x2c); outAscii("whole-host"); any = true; }
  if ((a & A_RULED_OUT) != 0) { if (any) outByte(0x2c); outAscii("ruled-out"); any = true; }
  if (!any) outAscii("none");
}

// A note as one line: tabs and line breaks as spaces.
function outNote(rec: usize): void {
  const n = load<u32>(rec + 20);
  const p = noteOf(rec);
  for (let i: u32 = 0; i < n; i++) {
    const c = load<u8>(p + i);
    outByte(c == 0x09 || c == 0x0a || c == 0x0d ? 0x20 : c);
  }
}

// `kind<TAB>value<TAB>role<TAB>mood<TAB>turn<TAB>grants<TAB>revoked-turn<TAB>clause`.
function writeKind(intent: usize, kind: u32, name: Text): void {
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let off: u32 = 0;
  while (off < bytes) {
    const rec = items + <usize>off;
    const l = load<u32>(rec + 8);
    // The host an address names alone is that address's line, not one of its own.
    if (load<u32>(rec) == kind && !addressHostOnly(load<u32>(rec + 12))) {
      const meta = load<u32>(rec + 16);
      outAscii(name);
      outByte(9);
      outBytes(rec + ITEM_HEAD, l);
      if (kind < DERIVED || kind == NAME) {
        outByte(9);
        outAscii(roleWord(meta & 15));
        outByte(9);
        outAscii(moodWord((meta >> 4) & 15));
        outByte(9);
        outDecimalU((meta >> 8) & TURN_MAX);
        outByte(9);
        outGrants(load<u32>(rec + 12));
        outByte(9);
        outDecimalU(meta >> 20);
        outByte(9);
        outNote(rec);
      }
      outByte(10);
    }
    off += recSize(rec);
  }
}

// `kind<TAB>capability<TAB>verb<TAB>turn<TAB>revoked-turn<TAB>clause`.
function writeVerbUses(intent: usize, kind: u32, name: Text): void {
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  const classes = classCount();
  let off: u32 = 0;
  while (off < bytes) {
    const rec = items + <usize>off;
    const l = load<u32>(rec + 8);
    const cls = load<u32>(rec + 4);
    if (load<u32>(rec) == kind && cls < classes) {
      const cap = classCapability(cls);
      const meta = load<u32>(rec + 16);
      outAscii(name);
      outByte(9);
      outBytes(strPtr(cap), strLen(cap));
      outByte(9);
      outBytes(rec + ITEM_HEAD, l);
      outByte(9);
      outDecimalU((meta >> 8) & TURN_MAX);
      outByte(9);
      outDecimalU(meta >> 20);
      outByte(9);
      outNote(rec);
      outByte(10);
    }
    off += recSize(rec);
  }
}

// Appends the summary lines: the named items, the derived ones, then `prohibit`, `grant`,
// `grant-maybe` and `ask` lines (§8).
export function intentWriteSummary(intent: usize): void {
  if (intent == 0) return;
  writeKind(intent, SUBJ_EMAIL, "email");
  writeKind(intent, SUBJ_URL, "url");
  writeKind(intent, SUBJ_DOMAIN, "domain");
  writeKind(intent, SUBJ_PATH, "path");
  writeKind(intent, SUBJ_RECIPIENT, "recipient");
  writeKind(intent, NAME, "name");
  writeKind(intent, SUBJ_OBJECT, "object");
  writeKind(intent, SUBJ_AMOUNT, "amount");
  writeKind(intent, DERIVED + SUBJ_EMAIL, "derived-email");
  writeKind(intent, DERIVED + SUBJ_URL, "derived-url");
  writeKind(intent, DERIVED + SUBJ_DOMAIN, "derived-domain");
  writeKind(intent, DERIVED + SUBJ_PATH, "derived-path");
  writeKind(intent, DERIVED + SUBJ_RECIPIENT, "derived-recipient");
  writeKind(intent, DERIVED + SUBJ_OBJECT, "derived-object");
  writeKind(intent, DERIVED + SUBJ_AMOUNT, "derived-amount");
  writeVerbUses(intent, PROHIBITED, "prohibit");
  writeVerbUses(intent, GRANTED, "grant");
  writeVerbUses(intent, GRANTED_MAYBE, "grant-maybe");
  writeVerbUses(intent, ASKED, "ask");
}
