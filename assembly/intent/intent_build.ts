// The intent rebuilt: a fresh block holding the union of the old one and the items collected,
// less what this turn took back, and the three ways to rebuild it (bind a message, derive from
// tool output, narrow). The block under construction is this file's alone.
import { SET_MAX_INTENT_BYTES, SET_MAX_JSON_DEPTH } from "../../bytecode/format";

// At most this many fields of one output become derived objects (§7.1); past it, none do.
const RECORD_LEAVES: u32 = 512;
import { globMatch } from "../readers/glob";
import { alloc, free, scratchAlloc } from "../abi/mem";
import { indexOfByte, equalsAscii, sameBytes } from "../abi/bytes";
import { settingValue, classCount, classCapability, strPtr, strLen } from "../policy/decode";
import {
  PROHIBITED, GRANTED, ASKED, GRANTED_MAYBE, A_DEST, A_DEST_MAYBE, A_REVOKED, A_GRANTS, vetoes, ITEM_HEAD, NOTE_HERE, recSize,
  noteOf, HEADER, H_SIZE, H_COUNT, H_CLASS_WORDS, H_SLOTS, H_ITEMS, H_ITEMS_BYTES, H_SLOTS_AT, H_TURN, field, padded,
  hashOf, classBit, setClassBit,
} from "./intent_record";
import {
  FOUND, found, foundCount, foundBytes, turnNow, collectBegin, collectWith, collectMessage, collectDerived, collectRecord,
} from "./intent_collect";
import { planFollowUps, carry, keptKind, keptMeta } from "./intent_followups";

// The intent under construction.
let building: usize = 0;
let buildItems: usize = 0;
let buildUsed: u32 = 0;
let buildSlots: usize = 0;
let buildSlotCount: u32 = 0;
let buildCount: u32 = 0;
// Per bitset and class, the offset + 1 of the verb use's item in the block (0: none yet), so a
// later verb of the class joins its actions without a scan of the items built so far.
let buildUses: usize = 0;

// The bitset a verb-use kind sets, or -1 for an item kind.
function bitsetOf(kind: u32): i32 {
  if (kind == PROHIBITED) return 0;
  if (kind == GRANTED) return 1;
  if (kind == ASKED) return 2;
  return kind == GRANTED_MAYBE ? 3 : -1;
}

// Adds an item unless present, when its attributes join those it has (a prohibition or grant:
// one item per class, the first verb's, whose attributes gather the actions every verb of that
// class asked for, §7.5). A destination granted anew lifts a revocation, and the item then reads
// as the turn that granted it.
function insert(kind: u32, cls: u32, p: usize, len: u32, attributes: u32, meta: u32, note: usize, noteLen: u32): void {
  const which = bitsetOf(kind);
  if (which >= 0) {
    if (cls >= field(building, H_CLASS_WORDS) << 5) return;
    const use = buildUses + ((<usize>(<u32>which * (field(building, H_CLASS_WORDS) << 5) + cls)) << 2);
    if (classBit(building, <u32>which, cls)) {
      const at = load<u32>(use);
      if (at != 0) {
        const rec = buildItems + <usize>(at - 1);
        store<u32>(rec + 12, load<u32>(rec + 12) | attributes);
      }
      return;
    }
    setClassBit(building, <u32>which, cls);
    store<u32>(use, buildUsed + 1);
  } else {
    if (len == 0) return;
    const present = findBuilding(kind, p, len);
    if (present != 0) {
      const was = load<u32>(present + 12);
      let a = was | attributes;
      if ((attributes & (A_DEST | A_DEST_MAYBE)) != 0 && (was & A_DEST) == 0) {
        a &= ~A_REVOKED;
        store<u32>(present + 16, meta);
      } else if (vetoes(was) && (attributes & A_GRANTS) != 0) {
        store<u32>(present + 16, meta); // named anew after it was ruled out: it reads as the clause that grants
      }
      store<u32>(present + 12, a);
      return;
    }
    const mask = buildSlotCount - 1;
    let s = hashOf(kind, p, len) & mask;
    while (load<u32>(buildSlots + ((<usize>s) << 2)) != 0) s = (s + 1) & mask;
    store<u32>(buildSlots + ((<usize>s) << 2), buildUsed + 1);
  }
  const rec = buildItems + <usize>buildUsed;
  store<u32>(rec, kind);
  store<u32>(rec + 4, cls);
  store<u32>(rec + 8, len);
  store<u32>(rec + 12, attributes);
  store<u32>(rec + 16, meta);
  store<u32>(rec + 20, noteLen);
  memory.copy(rec + ITEM_HEAD, p, len);
  buildUsed += ITEM_HEAD + padded(len);
  if (noteLen > 0) placeNote(buildItems + <usize>buildUsed, note, noteLen);
  buildCount++;
}

// The latest note this block holds a copy of: the items of one clause come together.
let lastNote: usize = 0;
let lastNoteLen: u32 = 0;

// Writes the note word at `word`: the distance back to the latest copy when it is note
// [p, p+len), else NOTE_HERE with a copy following it.
function placeNote(word: usize, p: usize, len: u32): void {
  if (lastNoteLen == len && sameBytes(lastNote, p, len)) {
    store<u32>(word, <u32>(lastNote - word));
    buildUsed += NOTE_HERE;
    return;
  }
  lastNote = word + NOTE_HERE;
  lastNoteLen = len;
  store<u32>(word, NOTE_HERE);
  memory.copy(lastNote, p, len);
  buildUsed += NOTE_HERE + padded(len);
}

function findBuilding(kind: u32, p: usize, len: u32): usize {
  const mask = buildSlotCount - 1;
  let s = hashOf(kind, p, len) & mask;
  while (true) {
    const entry = load<u32>(buildSlots + ((<usize>s) << 2));
    if (entry == 0) return 0;
    const rec = buildItems + <usize>(entry - 1);
    if (load<u32>(rec) == kind && load<u32>(rec + 8) == len && sameBytes(rec + ITEM_HEAD, p, len)) return rec;
    s = (s + 1) & mask;
  }
  return false;
}

let following = false; // binding a later turn of a session: intentBind sets it, rebuild hands it on

// The union of `intent` (0: none) and the items collected, in a fresh block; `intent` is freed.
function rebuild(intent: usize): usize {
  const oldCount = intent != 0 ? field(intent, H_COUNT) : 0;
  const oldBytes = intent != 0 ? field(intent, H_ITEMS_BYTES) : 0;
  const oldWords = intent != 0 ? field(intent, H_CLASS_WORDS) : 0;
  const classWords = max<u32>(oldWords, (classCount() + 31) >> 5);
  const total = oldCount + foundCount;
  let slotCount: u32 = 16;
  while (slotCount < total << 1) slotCount <<= 1;
  const itemsAt = HEADER + (<usize>classWords * 16); // four bitsets
  const itemsBytes = <usize>oldBytes + <usize>foundBytes;
  const slotsAt = itemsAt + itemsBytes;
  const size = slotsAt + (<usize>slotCount << 2);
  // Built in scratch memory at the most it can take (every item new, no note shared), then
  // copied into a block of the size it took.
  const draft = scratchAlloc(size);
  if (draft == 0) return 0;
  memory.fill(draft, 0, size);
  const usesSize = <usize>classWords << 9; // four bitsets of classWords * 32 words
  buildUses = scratchAlloc(usesSize);
  if (buildUses == 0) return 0;
  memory.fill(buildUses, 0, usesSize);
  store<u32>(draft + H_CLASS_WORDS, classWords);
  building = draft;
  buildItems = draft + itemsAt;
  buildSlots = draft + slotsAt;
  buildSlotCount = slotCount;
  buildUsed = 0;
  buildCount = 0;
  lastNoteLen = 0;
  planFollowUps(following);
  if (intent != 0) {
    const items = intent + field(intent, H_ITEMS);
    let off: u32 = 0;
    while (off < oldBytes) {
      const rec = items + <usize>off;
      const l = load<u32>(rec + 8);
      const kind = load<u32>(rec), cls = load<u32>(rec + 4);
      const a = carry(kind, cls, rec + ITEM_HEAD, l, load<u32>(rec + 12), load<u32>(rec + 16));
      if (a >= 0) insert(keptKind, cls, rec + ITEM_HEAD, l, <u32>a, keptMeta, noteOf(rec), load<u32>(rec + 20));
      off += recSize(rec);
    }
  }
  for (let k: u32 = 0; k < foundCount; k++) {
    const rec = found + <usize>k * FOUND;
    insert(load<u32>(rec), load<u32>(rec + 4), <usize>load<u32>(rec + 8), load<u32>(rec + 12), load<u32>(rec + 16),
      load<u32>(rec + 20), <usize>load<u32>(rec + 24), load<u32>(rec + 28));
  }
  const usedSlotsAt = itemsAt + <usize>buildUsed;
  const usedSize = usedSlotsAt + (<usize>slotCount << 2);
  const fresh = alloc(usedSize);
  if (fresh == 0) return 0;
  memory.copy(fresh, draft, usedSlotsAt);
  memory.copy(fresh + usedSlotsAt, buildSlots, <usize>slotCount << 2);
  store<u32>(fresh + H_SIZE, <u32>usedSize);
  store<u32>(fresh + H_COUNT, buildCount);
  store<u32>(fresh + H_SLOTS, slotCount);
  store<u32>(fresh + H_ITEMS, <u32>itemsAt);
  store<u32>(fresh + H_ITEMS_BYTES, buildUsed);
  store<u32>(fresh + H_SLOTS_AT, <u32>usedSlotsAt);
  free(intent);
  return fresh;
}

// Binds message [msg, msg+len) into `intent` (0: none yet) as the next turn: the new intent
// holds the union of both, less what this turn took back (§7.3). The old intent is freed; on
// out of memory 0 is returned and the old intent is untouched.
export function intentBind(intent: usize, msg: usize, len: u32): usize {
  collectBegin((intent != 0 ? field(intent, H_TURN) : 0) + 1);
  following = intent != 0;
  if (!collectMessage(msg, min(len, settingValue(SET_MAX_INTENT_BYTES)))) { following = false; return 0; }
  const fresh = rebuild(intent);
  following = false;
  if (fresh != 0) store<u32>(fresh + H_TURN, turnNow);
  return fresh;
}

// Records what tool output [p, p+len) names as derived items of `intent` (§7.1): with `text`,
// the addresses, URLs and paths anywhere in it; with `record`, the values of its fields (with
// `how` READ_* bits saying how it was read, collectRecord). The
// caller has checked that the user pointed at the call. Returns the new intent as intentBind does.
export function intentDerive(intent: usize, p: usize, len: u32, text: bool, record: bool, how: u32): usize {
  collectBegin(intent != 0 ? field(intent, H_TURN) : 0);
  const n = min(len, settingValue(SET_MAX_INTENT_BYTES));
  if (text && !collectDerived(p, n)) return 0;
  if (record && !collectRecord(intent, p, n, settingValue(SET_MAX_JSON_DEPTH), RECORD_LEAVES, how)) return 0;
  const fresh = rebuild(intent);
  if (fresh != 0) store<u32>(fresh + H_TURN, turnNow);
  return fresh;
}

// Narrows `intent` (§7.2) by the lines of [p, p+len): `prohibit<TAB>capability glob` or
// `ask<TAB>capability glob`, each applied to every class whose capability the glob matches, and
// recorded with the source word `source`. Returns the new intent as intentBind does; 0 with
// narrowMalformed set when a line is malformed (nothing is applied then).
export let narrowMalformed = false;
export function intentNarrow(intent: usize, p: usize, len: u32, source: u64): usize {
  collectBegin(intent != 0 ? field(intent, H_TURN) : 0);
  narrowMalformed = true;
  const classes = classCount();
  let at: u32 = 0;
  while (at < len) {
    let end = at;
    while (end < len && load<u8>(p + end) != 0x0a) end++;
    const tab = indexOfByte(p + at, end - at, 0x09, 0);
    if (tab <= 0 || <u32>tab + 1 >= end - at) return 0;
    const word = p + at, wordLen = <u32>tab;
    const kind = equalsAscii(word, wordLen, "prohibit") ? PROHIBITED : equalsAscii(word, wordLen, "ask") ? ASKED : 0;
    if (kind == 0) return 0;
    const glob = word + wordLen + 1, globLen = end - at - wordLen - 1;
    for (let c: u32 = 0; c < classes; c++) {
      const cap = classCapability(c);
      if (globMatch(glob, globLen, strPtr(cap), strLen(cap)) && !collectWith(kind, c, source, 0)) return 0;
    }
    at = end + 1;
  }
  narrowMalformed = false;
  const fresh = rebuild(intent);
  if (fresh != 0) store<u32>(fresh + H_TURN, turnNow);
  return fresh;
}
