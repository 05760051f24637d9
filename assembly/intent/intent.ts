// The tests a decision asks of a session's intent (§7) beyond IN_INTENT's lookups, and the one
// path other modules import the intent by: it re-exports what the intent_*.ts files beside it
// hold (the block's layout, lookups, binding, an ask's condition, the summary).
import { SUBJ_DOMAIN, SUBJ_PATH, INTENT_EXACT } from "../../bytecode/format";
import { NO, YES, MAYBE } from "../decision/tri";
import { globsMeet } from "../readers/glob";
import { free, scratchAlloc } from "../abi/mem";
import { NAME, DERIVED, GRANTED, ACTION, NEGATED_ACTION, ANY_ACTION, ITEM_HEAD, recSize, H_ITEMS, H_ITEMS_BYTES, field, kindMatches, classBit } from "./intent_record";
import { reading } from "./intent_lookup";
import { toolNameHas } from "../decision/classify";

export {
  A_DEST, A_DEST_MAYBE, A_NAMED, A_NAMED_MAYBE, A_REVOKED, A_BARE_HOST, A_SOURCE, A_SOURCE_MAYBE, A_RULED_OUT,
} from "./intent_record";
export { intentHas, intentDerivedHas } from "./intent_lookup";
export { intentBind, intentDerive, intentNarrow, narrowMalformed } from "./intent_build";
export { intentConditionOf, conditionLen, CONDITION_OF_CLASS } from "./intent_condition";
export { intentWriteSummary } from "./intent_summary";

// Whether pattern [pat, pat+patLen) (§6.7) may stand for a value the intent grants (a named item
// under the reading `flavor`, a derived one with `derived`): an item, or for a path one below it,
// or for a host one of its subdomains, that some value of the pattern is.
export function intentMeetsPattern(intent: usize, derived: bool, subject: u32, pat: usize, patLen: u32, flavor: u32): bool {
  if (intent == 0) return false;
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  const base: u32 = derived ? DERIVED : 0;
  let off: u32 = 0;
  while (off < bytes) {
    const rec = items + <usize>off;
    const kind = load<u32>(rec), l = load<u32>(rec + 8);
    off += recSize(rec);
    if (kind < base || !kindMatches(subject, kind - base)) continue;
    if (!derived && reading(load<u32>(rec + 12), flavor) == NO) continue;
    const v = rec + ITEM_HEAD;
    if (globsMeet(pat, patLen, v, l)) return true;
    if (!derived && flavor == INTENT_EXACT) continue; // the value itself, not one below it
    const tail = scratchAlloc(<usize>l + 3);
    if (tail == 0) return true; // out of memory: the safe answer is "may"
    const path = kind - base == SUBJ_PATH;
    if (path) {
      memory.copy(tail, v, l);
      store<u8>(tail + l, 0x2f);
      store<u8>(tail + l + 1, 0x2a);
      store<u8>(tail + l + 2, 0x2a);
    } else {
      store<u8>(tail, 0x2a);
      store<u8>(tail + 1, 0x2a);
      store<u8>(tail + 2, 0x2e);
      memory.copy(tail + 3, v, l);
    }
    if ((path || kind - base == SUBJ_DOMAIN) && globsMeet(pat, patLen, tail, l + 3)) return true;
  }
  return false;
}

export function intentProhibits(intent: usize, classIdx: u32): bool {
  return intent != 0 && classBit(intent, 0, classIdx);
}

// Whether the user's own messages named any item of the subject's kind that the reading
// `flavor` grants, yes or maybe (§7, TEST_INTENT_ANY).
export function intentNamesKind(intent: usize, subject: u32, flavor: u32): bool {
  if (intent == 0) return false;
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let off: u32 = 0;
  while (off < bytes) {
    const rec = items + <usize>off;
    if (kindMatches(subject, load<u32>(rec)) && load<u32>(rec) != NAME && reading(load<u32>(rec + 12), flavor) != NO) return true;
    off += recSize(rec);
  }
  return false;
}

// Whether a verb of the user's own messages, not negated, granted the class (§7, TEST_GRANTED):
// YES in a plain request, MAYBE under a condition the fence cannot check. A tool whose name says
// an action (`toolActions`, §7.5: "cancel_pending_order") is granted for certain only when the
// user's words name that action (a verb of it, not negated, in any mood: "you want to return
// it", "if it cannot be exchanged, return it"), or a plain verb that names no action (an
// operator's own) granted the class. "Change the address" grants a change; a cancel, of the
// class the request did grant, is then only maybe granted: asked, never allowed nor blocked by
// the grant (the request asked for this kind of work, not for this action).
export function intentGrants(intent: usize, classIdx: u32, toolActions: u32): u32 {
  if (intent == 0) return NO;
  const byClass = classBit(intent, 1, classIdx) ? YES : classBit(intent, 3, classIdx) ? MAYBE : NO;
  if (byClass != YES || toolActions == 0) return byClass;
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let off: u32 = 0;
  while (off < bytes) {
    const rec = items + <usize>off;
    off += recSize(rec);
    const kind = load<u32>(rec), attributes = load<u32>(rec + 12);
    if (kind == ACTION && (attributes & toolActions) != 0) return YES;
    if (kind == GRANTED && (attributes & ANY_ACTION) != 0 && load<u32>(rec + 4) == classIdx) return YES;
  }
  return MAYBE;
}

// Whether a verb the request negated reaches the tool (§7.5): the tool says one of its actions,
// or says none and its name [name, name+len) holds the verb ("send" of send_email).
export function intentNegatesTool(intent: usize, toolActions: u32, name: usize, len: u32): bool {
  if (intent == 0) return false;
  const items = intent + field(intent, H_ITEMS);
  const bytes = field(intent, H_ITEMS_BYTES);
  let off: u32 = 0;
  while (off < bytes) {
    const rec = items + <usize>off;
    off += recSize(rec);
    if (load<u32>(rec) != NEGATED_ACTION) continue;
    if (toolActions != 0 ? (load<u32>(rec + 12) & toolActions) != 0 : toolNameHas(name, len, rec + ITEM_HEAD, load<u32>(rec + 8))) return true;
  }
  return false;
}

// Whether a narrowing asks about the class (§7.2): an allow becomes an ask.
export function intentAsks(intent: usize, classIdx: u32): bool {
  return intent != 0 && classBit(intent, 2, classIdx);
}

export function intentFree(intent: usize): void {
  free(intent);
}
