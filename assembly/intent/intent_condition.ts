// What a decision shows of the intent: the condition an item, or a class's grant, was granted
// under, for the message of an ask (decision/record.ts).
import { SUBJ_EMAIL, SUBJ_RECIPIENT, MOOD_CONDITION } from "../../bytecode/format";
import { sameBytes } from "../abi/bytes";
import { NAME, GRANTED_MAYBE, ITEM_HEAD, recSize, noteOf, H_ITEMS, H_ITEMS_BYTES, field, kindMatches } from "./intent_record";

// The condition an item was granted under, for an ask's message: the note of the conditional
// item of `subject`'s kinds equal to [p, p+len) (or of the class's grant, subject 0xffff), or 0.
export let conditionLen: u32 = 0;
export function intentConditionOf(intent: usize, subject: u32, p: usize, len: u32): usize {
  conditionLen = 0;
  if (intent == 0) return 0;
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let off: u32 = 0;
  while (off < bytes) {
    const rec = items + <usize>off;
    off += recSize(rec);
    const kind = load<u32>(rec);
    const meta = load<u32>(rec + 16);
    if (((meta >> 4) & 15) != MOOD_CONDITION || load<u32>(rec + 20) == 0) {
      if (!(subject == CONDITION_OF_CLASS && kind == GRANTED_MAYBE && load<u32>(rec + 20) != 0)) continue;
    }
    if (subject == CONDITION_OF_CLASS) {
      if (kind != GRANTED_MAYBE || load<u32>(rec + 4) != <u32>len) continue;
    } else {
      if (!kindMatches(subject, kind) && !(subject == SUBJ_RECIPIENT && (kind == SUBJ_EMAIL || kind == NAME))) continue;
      const l = load<u32>(rec + 8);
      if (!(l == len && sameBytes(rec + ITEM_HEAD, p, len)) && !suffixMatch(kind, rec + ITEM_HEAD, l, p, len)) continue;
    }
    conditionLen = load<u32>(rec + 20);
    return noteOf(rec);
  }
  return 0;
}
export const CONDITION_OF_CLASS: u32 = 0xffff;

// "telegram:alice" stands for the name "alice".
function suffixMatch(kind: u32, v: usize, l: u32, p: usize, len: u32): bool {
  if (kind != NAME && kind != SUBJ_RECIPIENT) return false;
  return len > l + 1 && load<u8>(p + len - l - 1) == 0x3a && sameBytes(p + len - l, v, l);
}
