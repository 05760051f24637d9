// Sessions: each holds the intent store bound from its user's messages (its call counters are
// in budget.ts, by slot). A handle carries the slot and the slot's generation, so a handle that
// was closed never reaches a later session in the same slot; a slot whose generation is used up
// is retired rather than reused.
import { realloc } from "../abi/mem";
import { intentFree } from "../intent/intent";
import { budgetFree } from "./budget";

const SLOT_BITS: u32 = 20; // slot+1 in the low bits: handles stay positive and > 0
const SLOT_LIMIT: u32 = (1 << SLOT_BITS) - 1;
const GEN_MAX: u32 = (1 << (31 - SLOT_BITS)) - 1;
const LIVE: u32 = 0x80000000;

// Entries of 8 bytes: u32 (LIVE | generation), u32 (intent store when live, next free slot+1 when free).
let table: usize = 0;
let slotCount: u32 = 0;
let freeHead: u32 = 0; // slot+1, 0: none
let liveCount: u32 = 0;

@inline function entry(slot: u32): usize {
  return table + ((<usize>slot) << 3);
}

// A fresh handle, or 0 when `maxLive` sessions are live or memory is exhausted.
export function sessionOpen(maxLive: u32): i32 {
  if (liveCount >= maxLive) return 0;
  let slot: u32;
  if (freeHead != 0) {
    slot = freeHead - 1;
    freeHead = load<u32>(entry(slot) + 4);
  } else {
    if (slotCount >= SLOT_LIMIT) return 0;
    const grown = realloc(table, (<usize>slotCount + 1) << 3);
    if (grown == 0) return 0;
    table = grown;
    slot = slotCount++;
    store<u32>(entry(slot), 0);
  }
  const e = entry(slot);
  const gen = load<u32>(e);
  store<u32>(e, LIVE | gen);
  store<u32>(e + 4, 0);
  liveCount++;
  return <i32>((gen << SLOT_BITS) | (slot + 1));
}

// The slot of a live session, or -1 for a handle that is unknown, closed or from another slot's past.
export function sessionSlot(h: i32): i32 {
  const u = <u32>h;
  const slot1 = u & SLOT_LIMIT;
  if (slot1 == 0 || slot1 > slotCount) return -1;
  const word = load<u32>(entry(slot1 - 1));
  return word == (LIVE | (u >>> SLOT_BITS)) ? <i32>(slot1 - 1) : -1;
}

@inline export function sessionStore(slot: i32): usize {
  return <usize>load<u32>(entry(<u32>slot) + 4);
}

export function setSessionStore(slot: i32, intentStore: usize): void {
  store<u32>(entry(<u32>slot) + 4, <u32>intentStore);
}

function closeSlot(slot: u32): void {
  const e = entry(slot);
  const intentStore = <usize>load<u32>(e + 4);
  if (intentStore != 0) intentFree(intentStore);
  budgetFree(<i32>slot);
  const gen = (load<u32>(e) & ~LIVE) + 1;
  store<u32>(e, gen);
  liveCount--;
  if (gen > GEN_MAX) return; // retired: its handles could otherwise repeat
  store<u32>(e + 4, freeHead);
  freeHead = slot + 1;
}

// Forgets a session; false when the handle names no live session.
export function sessionClose(h: i32): bool {
  const slot = sessionSlot(h);
  if (slot < 0) return false;
  closeSlot(<u32>slot);
  return true;
}

// Closes every session: their intents name classes of a policy that is being replaced.
export function sessionCloseAll(): void {
  for (let s: u32 = 0; s < slotCount; s++) {
    if ((load<u32>(entry(s)) & LIVE) != 0) closeSlot(s);
  }
}
