// Budgets (docs/bytecode.md §3.2, §8.2) of calls and of sums: per session and budget, the units
// spent and the units reserved by calls decided but not yet settled. decide() checks and reserves in the same
// call, so no interleaving of a host's calls can overshoot a limit.
import {
  NONE, SUBJ_AMOUNT, BUDGET_PER_USER, BUDGET_PER_TEAM, BUDGET_PERIOD_DAY, BUDGET_PERIOD_WEEK,
} from "../../bytecode/format";
import {
  budgetCount, budgetId, budgetLimit, budgetAmount, budgetScope, classBudgetStart, classBudgetCount, budgetMember, strPtr, strLen,
} from "../policy/decode";
import { alloc, free, realloc, scratchAlloc } from "../abi/mem";
import { bytesEqual, sameBytes } from "../abi/bytes";
import { amountSplit, amountCode, decimalUnits, jsonDecimal, AMOUNT_SCALE, AMOUNT_HUGE } from "../readers/amount";
import { targetCount, targetKind, targetIsPattern, targetPtr, targetLen } from "../readers/targettable";
import { outBegin, outByte, outAscii, outBytes, outDecimal, outPatchU8, outFinish } from "../abi/out";
import { inputPtr, inputHolds } from "../abi/input";

// slot -> its store (0: no counters yet, every count zero). A store: u32 budget count, u32
// reservation count, u32 reservation capacity, u32 reservation block; then per budget (u64
// spent, u64 reserved): calls, or for a budget of sums millionths of its unit (AMOUNT_SCALE).
// A reservation block holds (id, class, units, fingerprint) entries; units is 0 when the
// reservation holds one unit of each budget of its class, else a block of one u64 per budget of
// the class. Then u32 paid count, u32 paid capacity, u32 paid block: the fingerprints of the calls
// of a class under a budget of sums that ran (budgetRepeats).
let stores: usize = 0;
let storeSlots: u32 = 0;
let nextReservation: u32 = 1;

const HEAD: usize = 32;
const ENTRY: usize = 16;

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
  const s = alloc(HEAD + ((<usize>n) << 4));
  if (s == 0) return 0;
  memory.fill(s, 0, HEAD + ((<usize>n) << 4));
  store<u32>(s, n);
  store<u32>(stores + ((<usize>slot) << 2), <u32>s);
  return s;
}

function counter(s: usize, b: u32): usize {
  return s + HEAD + ((<usize>b) << 4);
}

@inline function addSat(a: u64, b: u64): u64 {
  const c = a + b;
  return c < a ? AMOUNT_HUGE : c;
}

export function budgetSpent(slot: i32, b: u32): u64 {
  const s = storeOf(slot);
  return s == 0 ? 0 : load<u64>(counter(s, b));
}

export function budgetReserved(slot: i32, b: u32): u64 {
  const s = storeOf(slot);
  return s == 0 ? 0 : load<u64>(counter(s, b) + 8);
}

// ---- what a call needs of each budget of its class ----

// Per member of the class's budget range, the units the call needs (set by budgetExhausted).
let needs: usize = 0;
let sums = false; // the class has a budget of sums
export let unmeasured: i32 = -1; // a budget of sums this call's sums cannot be counted in, -1 none

// The cap of budget b of sums in millionths (rounded down), and its currency in capCode.
let capCode: usize = 0;
function capUnits(b: u32): u64 {
  const cap = budgetAmount(b);
  const n = amountSplit(strPtr(cap), strLen(cap));
  capCode = amountCode;
  return decimalUnits(strPtr(cap), <u32>n, false);
}

// The call's sums in the unit of budget b: every AMOUNT target, in the budget's currency when it
// names one. -1 (as AMOUNT_HUGE with unmeasured set) when a sum is a pattern or of another currency.
function callUnits(b: u32): u64 {
  capUnits(b);
  const code = capCode;
  let total: u64 = 0;
  const n = targetCount();
  for (let i: u32 = 0; i < n; i++) {
    if (targetKind(i) != SUBJ_AMOUNT) continue;
    const p = targetPtr(i), len = targetLen(i);
    const dn = targetIsPattern(i) ? -1 : amountSplit(p, len);
    if (dn < 0 || (code != 0 && (amountCode == 0 || !sameBytes(amountCode, code, 3)))) {
      if (unmeasured < 0) unmeasured = <i32>b;
      return 0;
    }
    total = addSat(total, decimalUnits(p, <u32>dn, true));
  }
  return total;
}

// The first budget of class `cls` this call would overrun in this session, or -1; notes what
// the call needs of each (for budgetReserve) and the first budget of sums it cannot be counted
// in (unmeasured); -2 when out of memory. Slot -1 (handle 0) has no counters.
export function budgetExhausted(slot: i32, cls: u32): i32 {
  unmeasured = -1;
  const s = storeOf(slot);
  const start = classBudgetStart(cls), end = start + classBudgetCount(cls);
  needs = scratchAlloc((<usize>(end - start)) << 3);
  if (needs == 0) return -2;
  sums = false;
  let over: i32 = -1;
  for (let k = start; k < end; k++) {
    const b = budgetMember(k);
    const sumBudget = budgetAmount(b) != NONE;
    const need: u64 = sumBudget ? callUnits(b) : 1;
    if (sumBudget) sums = true;
    store<u64>(needs + ((<usize>(k - start)) << 3), need);
    if (over >= 0 || s == 0 && !sumBudget) continue;
    const used = s == 0 ? 0 : addSat(load<u64>(counter(s, b)), load<u64>(counter(s, b) + 8));
    const limit: u64 = sumBudget ? capUnits(b) : <u64>budgetLimit(b);
    if (sumBudget ? need > 0 && addSat(used, need) > limit : used >= limit) over = <i32>b;
  }
  return over;
}

// Reserves what the call needs of each budget of `cls` (budgetExhausted found none overrun).
// The reservation id, or 0 when memory is exhausted (then nothing was reserved).
export function budgetReserve(slot: i32, cls: u32, fingerprint: u32): u32 {
  const s = ensureStore(slot);
  if (s == 0) return 0;
  const start = classBudgetStart(cls), end = start + classBudgetCount(cls);
  let units: usize = 0;
  if (sums) {
    units = alloc((<usize>(end - start)) << 3);
    if (units == 0) return 0;
    memory.copy(units, needs, (<usize>(end - start)) << 3);
  }
  const count = load<u32>(s + 4), cap = load<u32>(s + 8);
  if (count == cap) {
    const want = max<u32>(4, cap << 1);
    const grown = realloc(<usize>load<u32>(s + 12), (<usize>want) * ENTRY);
    if (grown == 0) { free(units); return 0; }
    store<u32>(s + 8, want);
    store<u32>(s + 12, <u32>grown);
  }
  const id = nextReservation;
  nextReservation = nextReservation == 0xffffffff ? 1 : nextReservation + 1;
  const r = <usize>load<u32>(s + 12) + (<usize>count) * ENTRY;
  store<u32>(r, id);
  store<u32>(r + 4, cls);
  store<u32>(r + 8, <u32>units);
  store<u32>(r + 12, fingerprint);
  store<u32>(s + 4, count + 1);
  for (let k = start; k < end; k++) {
    const c = counter(s, budgetMember(k)) + 8;
    store<u64>(c, addSat(load<u64>(c), units == 0 ? 1 : load<u64>(units + ((<usize>(k - start)) << 3))));
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
    const r = block + (<usize>i) * ENTRY;
    if (load<u32>(r) != id) continue;
    const cls = load<u32>(r + 4);
    const units = <usize>load<u32>(r + 8);
    const start = classBudgetStart(cls), end = start + classBudgetCount(cls);
    for (let k = start; k < end; k++) {
      const c = counter(s, budgetMember(k));
      const u: u64 = units == 0 ? 1 : load<u64>(units + ((<usize>(k - start)) << 3));
      const held = load<u64>(c + 8);
      store<u64>(c + 8, held > u ? held - u : 0);
      if (commit) store<u64>(c, addSat(load<u64>(c), u));
    }
    free(units);
    const fingerprint = load<u32>(r + 12);
    if (commit && fingerprint != 0) paid(s, fingerprint);
    const last = block + (<usize>(count - 1)) * ENTRY; // the last entry fills the hole
    memory.copy(r, last, ENTRY);
    store<u32>(s + 4, count - 1);
    return true;
  }
  return false;
}

// Remembers that a call of fingerprint `f` ran (out of memory: it is not remembered, and a repeat
// of it is not recognized; the session's budget still counts it).
function paid(s: usize, f: u32): void {
  const n = load<u32>(s + 16), cap = load<u32>(s + 20);
  if (n == cap) {
    const want = max<u32>(8, cap << 1);
    const grown = realloc(<usize>load<u32>(s + 24), (<usize>want) << 2);
    if (grown == 0) return;
    store<u32>(s + 20, want);
    store<u32>(s + 24, <u32>grown);
  }
  store<u32>(<usize>load<u32>(s + 24) + ((<usize>n) << 2), f);
  store<u32>(s + 16, n + 1);
}

// Whether a call of fingerprint `f` ran in the slot's session, or is under way: "pay the water
// bill" pays it once, and the same payment again is the user's to approve.
export function budgetRepeats(slot: i32, f: u32): bool {
  const s = storeOf(slot);
  if (s == 0 || f == 0) return false;
  const count = load<u32>(s + 4);
  const block = <usize>load<u32>(s + 12);
  for (let i: u32 = 0; i < count; i++) if (load<u32>(block + (<usize>i) * ENTRY + 12) == f) return true;
  const n = load<u32>(s + 16);
  const list = <usize>load<u32>(s + 24);
  for (let i: u32 = 0; i < n; i++) if (load<u32>(list + ((<usize>i) << 2)) == f) return true;
  return false;
}

// Whether budget `b` caps sums of money (else it counts calls).
export function budgetOfSums(b: u32): bool {
  return budgetAmount(b) != NONE;
}

// The first budget of sums that covers class `cls`, or -1.
export function budgetOfSumsFor(cls: u32): i32 {
  const start = classBudgetStart(cls), end = start + classBudgetCount(cls);
  for (let k = start; k < end; k++) if (budgetOfSums(budgetMember(k))) return <i32>budgetMember(k);
  return -1;
}

// A payment's fingerprint for budgetRepeats: whom it pays and for what, its targets but its sums
// (each kind and value), in any order; never 0. Neither the sum nor the tool is part of it: a
// bill paid once is paid, and 44.99 after 45, or the same payee through another payment tool,
// is a second payment.
export function callFingerprint(): u32 {
  let f: u32 = 0;
  const n = targetCount();
  for (let i: u32 = 0; i < n; i++) {
    if (targetKind(i) == SUBJ_AMOUNT) continue;
    let h: u32 = (0x811c9dc5 ^ targetKind(i)) * 0x01000193;
    const p = targetPtr(i), l = targetLen(i);
    for (let j: u32 = 0; j < l; j++) h = (h ^ <u32>load<u8>(p + j)) * 0x01000193;
    f += h;
  }
  return f == 0 ? 1 : f;
}

// Releases a reservation whose decision record never reached the host.
export function budgetCancel(slot: i32, id: u32): void {
  settle(slot, id, false);
}

// Forgets a closing session's counters.
export function budgetFree(slot: i32): void {
  const s = storeOf(slot);
  if (s == 0) return;
  const block = <usize>load<u32>(s + 12);
  const count = load<u32>(s + 4);
  for (let i: u32 = 0; i < count; i++) free(<usize>load<u32>(block + (<usize>i) * ENTRY + 8));
  free(block);
  free(<usize>load<u32>(s + 24));
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

// `budgets` (§8): per budget, id, limit, spent and reserved, then `sum` for a budget of sums,
// `user` or `team` for one that counts more than the session's calls, `day` or `week` for one
// that restarts: the host keeps the count under that scope (§8.2).
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
    const sum = budgetAmount(b) != NONE;
    if (sum) outBytes(strPtr(budgetAmount(b)), strLen(budgetAmount(b)));
    else outDecimal(budgetLimit(b));
    outByte(9);
    outCount(budgetSpent(slot, b), sum);
    outByte(9);
    outCount(budgetReserved(slot, b), sum);
    if (sum) outAscii("\tsum");
    const scope = budgetScope(b);
    const who = scope & 0xff, period = scope >> 8;
    if (who == BUDGET_PER_USER) outAscii("\tuser");
    else if (who == BUDGET_PER_TEAM) outAscii("\tteam");
    if (period == BUDGET_PERIOD_DAY) outAscii("\tday");
    else if (period == BUDGET_PERIOD_WEEK) outAscii("\tweek");
    outByte(10);
  }
  return outFinish();
}

// A count of calls, or of millionths of a unit as a decimal ("120.5").
export function outCount(v: u64, sum: bool): void {
  if (!sum) { outDecimal64(v); return; }
  outDecimal64(v / AMOUNT_SCALE);
  let frac = v % AMOUNT_SCALE;
  if (frac == 0) return;
  outByte(0x2e);
  let scale = AMOUNT_SCALE / 10;
  while (frac != 0) {
    outByte(<u32>(0x30 + frac / scale));
    frac %= scale;
    scale /= 10;
  }
}

function outDecimal64(v: u64): void {
  if (v >= 10) outDecimal64(v / 10);
  outByte(<u32>(0x30 + v % 10));
}

// Parses the count at [p, end) for budget b: a whole number of calls up to 2^32-1, or a decimal
// sum (millionths, rounded up: a restored count never shrinks); -1 when malformed.
function countAt(p: usize, end: usize, sum: bool): i64 {
  const d = jsonDecimal(p, <u32>(end - p), 0, false);
  if (d == 0) return -1;
  const dp = <usize>(d >>> 32), dn = <u32>d;
  const units = decimalUnits(dp, dn, true);
  if (sum) return units == AMOUNT_HUGE ? <i64>0x7fffffffffffffff : <i64>units;
  if (units % AMOUNT_SCALE != 0 || units / AMOUNT_SCALE > 0xffffffff) return -1;
  return <i64>(units / AMOUNT_SCALE);
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
// exact: the count becomes the given one (a store shared by several evaluators holds the truth),
// else it only rises (a restored count never shrinks what this evaluator counted).
function restoreLines(slot: i32, p: usize, len: u32, apply: bool, s: usize, exact: bool): bool {
  const end = p + len;
  let skipped = false;
  while (p < end) {
    const eol = lineEnd(p, end);
    if (eol > p) {
      const tab = tabIn(p, eol);
      if (tab >= eol || tab == p) return false;
      if (countAt(tab + 1, eol, true) < 0) return false;
      let found = false;
      for (let b: u32 = 0; b < budgetCount(); b++) {
        if (!bytesEqual(strPtr(budgetId(b)), strLen(budgetId(b)), p, <u32>(tab - p))) continue;
        found = true;
        const v = countAt(tab + 1, eol, budgetAmount(b) != NONE);
        if (v < 0) return false;
        const c = counter(s, b);
        if (apply && (exact || <u64>v > load<u64>(c))) store<u64>(c, <u64>v);
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

// `budget_restore` (§8): raises spent counts to those given; `budget_set` (exact): sets them to
// those given. All or nothing.
export function restoreRecord(slot: i32, len: u32, exact: bool): u32 {
  status(false);
  if (slot < 0) {
    outAscii("unknown session");
    return outFinish();
  }
  if (!inputHolds(<u64>len)) {
    outAscii("the lines do not fit the input buffer");
    return outFinish();
  }
  if (!restoreLines(slot, inputPtr(), len, false, 0, exact)) {
    outAscii("each line must be a budget id, a tab and a decimal count: nothing changed");
    return outFinish();
  }
  const s = ensureStore(slot);
  if (s == 0) {
    outAscii("the evaluator ran out of memory: nothing changed");
    return outFinish();
  }
  outPatchU8(0, 0);
  outAscii(exact ? "set" : "restored");
  restoreLines(slot, inputPtr(), len, true, s, exact);
  return outFinish();
}
