// Call budgets (docs/bytecode.md §3.2, §8.2): per session and budget, the units spent and the
// units reserved by calls decided but not yet settled. decide() checks and reserves in the same
// call, so no interleaving of a host's calls can overshoot a limit.
import {
  budgetCount, budgetId, budgetLimit, classBudgetStart, classBudgetCount, budgetMember, strPtr, strLen,
} from "./decode";
import { alloc, free, realloc } from "./mem";
import { bytesEqual } from "./bytes";
import { outBegin, outByte, outAscii, outBytes, outDecimal, outPatchU8, outFinish } from "./out";
import { inputPtr, inputHolds } from "./input";

// slot -> its store (0: no counters yet, every count zero). A store: u32 budget count, u32
// reservation count, u32 reservation capacity, u32 reservation block; then per budget (spent,
// reserved). A reservation block holds (id, class) pairs.
let stores: usize = 0;
let storeSlots: u32 = 0;
let nextReservation: u32 = 1;

const HEAD: usize = 16;

function storeOf(slot: i32): usize {
  return <u32>slot < storeSlots ? <usize>load<u32>(stores + ((<usize>slot) << 2)) : 0;
}

// The slot's store, made on first use; 0 when memory is exhausted.
function ensureStore(slot: i32): usize {
  const have = storeOf(slot);
  if (have != 0) return have;
  if (<u32>slot >= storeSlots) {
    const want = max<u32>(<u32>slot + 1, storeSlots << 1);
    const grown = realloc(stores, (<usize>want) << 2);
    if (grown == 0) return 0;
    memory.fill(grown + ((<usize>storeSlots) << 2), 0, (<usize>(want - storeSlots)) << 2);
    stores = grown;
    storeSlots = want;
  }
  const n = budgetCount();
  const s = alloc(HEAD + ((<usize>n) << 3));
  if (s == 0) return 0;
  memory.fill(s, 0, HEAD + ((<usize>n) << 3));
  store<u32>(s, n);
  store<u32>(stores + ((<usize>slot) << 2), <u32>s);
  return s;
}

function counter(s: usize, b: u32): usize {
  return s + HEAD + ((<usize>b) << 3);
}

export function budgetSpent(slot: i32, b: u32): u32 {
  const s = storeOf(slot);
  return s == 0 ? 0 : load<u32>(counter(s, b));
}

export function budgetReserved(slot: i32, b: u32): u32 {
  const s = storeOf(slot);
  return s == 0 ? 0 : load<u32>(counter(s, b) + 4);
}

// The first budget of class `cls` with no unit left in this session, or -1. Slot -1 (handle 0)
// has no counters.
export function budgetExhausted(slot: i32, cls: u32): i32 {
  const s = storeOf(slot);
  if (s == 0) return -1;
  const start = classBudgetStart(cls), end = start + classBudgetCount(cls);
  for (let k = start; k < end; k++) {
    const b = budgetMember(k);
    const c = counter(s, b);
    if (<u64>load<u32>(c) + <u64>load<u32>(c + 4) >= <u64>budgetLimit(b)) return <i32>b;
  }
  return -1;
}

// Reserves one unit of each budget of `cls` (none exhausted: the caller checked). The
// reservation id, or 0 when memory is exhausted (then nothing was reserved).
export function budgetReserve(slot: i32, cls: u32): u32 {
  const s = ensureStore(slot);
  if (s == 0) return 0;
  const count = load<u32>(s + 4), cap = load<u32>(s + 8);
  if (count == cap) {
    const want = max<u32>(4, cap << 1);
    const grown = realloc(<usize>load<u32>(s + 12), (<usize>want) << 3);
    if (grown == 0) return 0;
    store<u32>(s + 8, want);
    store<u32>(s + 12, <u32>grown);
  }
  const id = nextReservation;
  nextReservation = nextReservation == 0xffffffff ? 1 : nextReservation + 1;
  const r = <usize>load<u32>(s + 12) + ((<usize>count) << 3);
  store<u32>(r, id);
  store<u32>(r + 4, cls);
  store<u32>(s + 4, count + 1);
  const start = classBudgetStart(cls), end = start + classBudgetCount(cls);
  for (let k = start; k < end; k++) {
    const c = counter(s, budgetMember(k)) + 4;
    store<u32>(c, load<u32>(c) + 1);
  }
  return id;
}

// Settles reservation `id` of the slot: its units become spent (commit) or free. False when the
// slot holds no such open reservation.
function settle(slot: i32, id: u32, commit: bool): bool {
  const s = storeOf(slot);
  if (s == 0 || id == 0) return false;
  const count = load<u32>(s + 4);
  const block = <usize>load<u32>(s + 12);
  for (let i: u32 = 0; i < count; i++) {
    const r = block + ((<usize>i) << 3);
    if (load<u32>(r) != id) continue;
    const cls = load<u32>(r + 4);
    const start = classBudgetStart(cls), end = start + classBudgetCount(cls);
    for (let k = start; k < end; k++) {
      const c = counter(s, budgetMember(k));
      store<u32>(c + 4, load<u32>(c + 4) - 1);
      if (commit && load<u32>(c) != 0xffffffff) store<u32>(c, load<u32>(c) + 1);
    }
    const last = block + ((<usize>(count - 1)) << 3); // the last pair fills the hole
    store<u64>(r, load<u64>(last));
    store<u32>(s + 4, count - 1);
    return true;
  }
  return false;
}

// Releases a reservation whose decision record never reached the host.
export function budgetCancel(slot: i32, id: u32): void {
  settle(slot, id, false);
}

// Forgets a closing session's counters.
export function budgetFree(slot: i32): void {
  const s = storeOf(slot);
  if (s == 0) return;
  free(<usize>load<u32>(s + 12));
  free(s);
  store<u32>(stores + ((<usize>slot) << 2), 0);
}

// ---- the exports' records ----

function status(ok: bool): void {
  outBegin();
  outByte(ok ? 0 : 1);
}

// `commit` / `release` (§8): status 0 settled, 1 nothing changed.
// Slot -1: the handle names no live session.
export function settleRecord(slot: i32, id: u32, commit: bool): u32 {
  status(false);
  if (slot < 0) {
    outAscii("unknown session");
  } else if (settle(slot, id, commit)) {
    outPatchU8(0, 0);
    outAscii(commit ? "committed" : "released");
  } else {
    outAscii("no open reservation with this id in the session (unknown or already settled): nothing changed");
  }
  return outFinish();
}

// `budgets` (§8): per budget, id, limit, spent and reserved.
export function budgetsRecord(slot: i32): u32 {
  status(slot >= 0);
  if (slot < 0) {
    outAscii("unknown session");
    return outFinish();
  }
  const n = budgetCount();
  for (let b: u32 = 0; b < n; b++) {
    outBytes(strPtr(budgetId(b)), strLen(budgetId(b)));
    outByte(9);
    outDecimal(budgetLimit(b));
    outByte(9);
    outDecimal(budgetSpent(slot, b));
    outByte(9);
    outDecimal(budgetReserved(slot, b));
    outByte(10);
  }
  return outFinish();
}

// Parses the decimal at [p, end) up to a tab or newline; -1 when malformed or over u32.
function decimalAt(p: usize, end: usize): i64 {
  if (p >= end) return -1;
  let v: i64 = 0;
  for (let q = p; q < end; q++) {
    const c = <u32>load<u8>(q);
    if (c < 0x30 || c > 0x39) return -1;
    v = v * 10 + <i64>(c - 0x30);
    if (v > 0xffffffff) return -1;
  }
  return v;
}

function lineEnd(p: usize, end: usize): usize {
  while (p < end && load<u8>(p) != 10) p++;
  return p;
}

function tabIn(p: usize, end: usize): usize {
  while (p < end && load<u8>(p) != 9) p++;
  return p;
}

// Applies (apply) or checks the lines `id<TAB>spent` at [p, p+len): false on a malformed line.
function restoreLines(slot: i32, p: usize, len: u32, apply: bool, s: usize): bool {
  const end = p + len;
  let skipped = false;
  while (p < end) {
    const eol = lineEnd(p, end);
    if (eol > p) {
      const tab = tabIn(p, eol);
      if (tab >= eol || tab == p) return false;
      const v = decimalAt(tab + 1, eol);
      if (v < 0) return false;
      let found = false;
      for (let b: u32 = 0; b < budgetCount(); b++) {
        if (!bytesEqual(strPtr(budgetId(b)), strLen(budgetId(b)), p, <u32>(tab - p))) continue;
        found = true;
        const c = counter(s, b);
        if (apply && <u32>v > load<u32>(c)) store<u32>(c, <u32>v);
      }
      if (apply && !found) {
        outAscii(skipped ? ", " : "; skipped ids the policy does not have: ");
        outBytes(p, <u32>(tab - p));
        skipped = true;
      }
    }
    p = eol + 1;
  }
  return true;
}

// `budget_restore` (§8): raises spent counts to those given; all or nothing.
export function restoreRecord(slot: i32, len: u32): u32 {
  status(false);
  if (slot < 0) {
    outAscii("unknown session");
    return outFinish();
  }
  if (!inputHolds(<u64>len)) {
    outAscii("the lines do not fit the input buffer");
    return outFinish();
  }
  if (!restoreLines(slot, inputPtr(), len, false, 0)) {
    outAscii("each line must be a budget id, a tab and a decimal count: nothing changed");
    return outFinish();
  }
  const s = ensureStore(slot);
  if (s == 0) {
    outAscii("the evaluator ran out of memory: nothing changed");
    return outFinish();
  }
  outPatchU8(0, 0);
  outAscii("restored");
  restoreLines(slot, inputPtr(), len, true, s);
  return outFinish();
}
