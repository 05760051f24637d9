// Read access to the installed policy. verify.ts has checked every offset, index and bound
// named in docs/bytecode.md before install, so these accessors read without checks.
import {
  SECTION_COUNT, SETKIND_HASH, SETKIND_KEYS,
} from "../../bytecode/format";
import { fnv1a, sameBytes } from "../abi/bytes";

// Address of the installed copy of the bytecode (0: no policy), and of each section by kind.
export let policyBase: usize = 0;
const sectionAddr: usize = memory.data(4 * (SECTION_COUNT + 1));

// Counts installs: what was worked out from an earlier policy (even one at the same address) is
// not this one's.
export let policyGeneration: u32 = 0;

export function setPolicyBase(base: usize): void {
  policyBase = base;
  policyGeneration++;
}

// Whether [p, p+len) lies inside the installed policy's bytes (which never change while it is).
export function inPolicy(p: usize, len: u32): bool {
  return policyBase != 0 && p >= policyBase && <u64>(p - policyBase) + <u64>len <= <u64>load<u32>(policyBase + 8);
}

export function setSection(kind: u32, addr: usize): void {
  store<u32>(sectionAddr + ((<usize>kind) << 2), <u32>addr);
}

@inline export function section(kind: u32): usize {
  return <usize>load<u32>(sectionAddr + ((<usize>kind) << 2));
}

// ---- STRINGS ----
// The blob follows the count and its count+1 offsets.
export function strCount(): u32 {
  return load<u32>(section(1));
}

// The address helpers below are @inline: the release build optimizes for size, which leaves
// them as calls, each a call and a fuel check on every rule test and set lookup.
@inline export function strPtr(i: u32): usize {
  const s = section(1);
  const count = load<u32>(s);
  return s + 4 + ((<usize>count + 1) << 2) + <usize>load<u32>(s + 4 + ((<usize>i) << 2));
}

@inline export function strLen(i: u32): u32 {
  const at = section(1) + 4 + ((<usize>i) << 2);
  return load<u32>(at + 4) - load<u32>(at);
}

// ---- SETS ----
@inline export function setAddr(i: u32): usize {
  const s = section(2);
  return s + <usize>load<u32>(s + 4 + ((<usize>i) << 2));
}

@inline export function setKind(i: u32): u32 {
  return load<u8>(setAddr(i));
}

@inline export function setMemberCount(i: u32): u32 {
  return load<u32>(setAddr(i) + 4);
}

// HASH and KEYS lookup (§4): the member's value (0 in a KEYS set), or -1 when [p, p+len) is
// not a member.
export function setFind(i: u32, p: usize, len: u32): i64 {
  return setFindHashed(i, p, len, fnv1a(p, len));
}

// setFind for a key whose FNV-1a is known (several sets looked up with one hash).
export function setFindHashed(i: u32, p: usize, len: u32, fnv: u32): i64 {
  const s = setAddr(i);
  const buckets = load<u32>(s + 8);
  if (buckets == 0) return -1;
  const valued = load<u8>(s) == SETKIND_HASH;
  const shift: usize = valued ? 3 : 2;
  const mask = buckets - 1;
  const offsets = section(1) + 4;
  const blob = offsets + ((<usize>load<u32>(offsets - 4) + 1) << 2);
  let b = fnv & mask;
  while (true) {
    const e = s + 12 + ((<usize>b) << shift);
    const key1 = load<u32>(e);
    if (key1 == 0) return -1;
    // The key's length first: most probes end there, before the key's bytes are read.
    const at = offsets + ((<usize>key1 - 1) << 2);
    const start = load<u32>(at);
    if (load<u32>(at + 4) - start == len && sameBytes(blob + <usize>start, p, len)) {
      return valued ? <i64>load<u32>(e + 4) : 0;
    }
    b = (b + 1) & mask;
  }
  return -1;
}

// The number of sets in SETS (§4).
export function setCount(): u32 {
  return load<u32>(section(2));
}

// The key of bucket b of a HASH or KEYS set (§4): its string index, or NONE for an empty bucket.
// A walk over every bucket visits every member once.
export function setBucketCount(i: u32): u32 {
  return load<u32>(setAddr(i) + 8);
}

export function setBucketKey(i: u32, b: u32): u32 {
  const s = setAddr(i);
  const shift: usize = load<u8>(s) == SETKIND_HASH ? 3 : 2;
  return load<u32>(s + 12 + ((<usize>b) << shift)) - 1;
}

// LIST members (§4), in policy order.
export function listKey(i: u32, j: u32): u32 {
  return load<u32>(setAddr(i) + 12 + ((<usize>j) << 3));
}

export function listValue(i: u32, j: u32): u32 {
  return load<u32>(setAddr(i) + 16 + ((<usize>j) << 3));
}

// ---- SETTINGS ----
// Sorted by key with every key present once, so key k is entry k-1.
export function settingValue(key: u32): u32 {
  return load<u32>(section(9) + 4 + ((<usize>(key - 1)) << 3) + 4);
}

// ---- TOOLS (§3) ----
// exact_map, glob_list, tool_count, tools × (class, role_start, role_count, flags), role_total, roles × (arg_path, role).
@inline export function toolsExactSet(): u32 {
  return load<u32>(section(3));
}

@inline export function toolsGlobSet(): u32 {
  return load<u32>(section(3) + 4);
}

@inline export function toolCount(): u32 {
  return load<u32>(section(3) + 8);
}

@inline function toolAddr(t: u32): usize {
  return section(3) + 12 + <usize>t * 16;
}

@inline export function toolClass(t: u32): u32 {
  return load<u32>(toolAddr(t));
}

@inline export function toolRoleStart(t: u32): u32 {
  return load<u32>(toolAddr(t) + 4);
}

@inline export function toolRoleCount(t: u32): u32 {
  return load<u32>(toolAddr(t) + 8);
}

@inline export function toolFlags(t: u32): u32 {
  return load<u32>(toolAddr(t) + 12);
}

export function roleTotal(): u32 {
  return load<u32>(toolAddr(toolCount()));
}

@inline function roleAddr(r: u32): usize {
  return toolAddr(toolCount()) + 4 + ((<usize>r) << 3);
}

@inline export function roleArgPath(r: u32): u32 {
  return load<u32>(roleAddr(r));
}

@inline export function roleKind(r: u32): u32 {
  return load<u32>(roleAddr(r) + 4);
}

// ---- CLASSES ----
@inline export function classCount(): u32 {
  return load<u32>(section(4));
}

function classAddr(c: u32): usize {
  return section(4) + 4 + ((<usize>c) << 4);
}

@inline export function classCapability(c: u32): u32 {
  return load<u32>(classAddr(c));
}

@inline export function classRisk(c: u32): u32 {
  return load<u32>(classAddr(c) + 4);
}

@inline export function classCodeStart(c: u32): u32 {
  return load<u32>(classAddr(c) + 8);
}

export function classCodeLen(c: u32): u32 {
  return load<u32>(classAddr(c) + 12);
}

// ---- RULES ----
@inline export function ruleCount(): u32 {
  return load<u32>(section(5));
}

function ruleAddr(r: u32): usize {
  return section(5) + 4 + <usize>r * 20;
}

@inline export function ruleId(r: u32): u32 {
  return load<u32>(ruleAddr(r));
}

@inline export function ruleEffect(r: u32): u32 {
  return load<u32>(ruleAddr(r) + 4);
}

@inline export function ruleReason(r: u32): u32 {
  return load<u32>(ruleAddr(r) + 8);
}

// A string index, or NONE when the rule has no message of its own.
@inline export function ruleMessage(r: u32): u32 {
  return load<u32>(ruleAddr(r) + 12);
}

export function ruleSource(r: u32): u32 {
  return load<u32>(ruleAddr(r) + 16);
}

// ---- CODE (§5): op u8, subject u8, flags u8, zero u8, arg, operand, jump ----
export function codeCount(): u32 {
  return load<u32>(section(6));
}

@inline export function insnAddr(i: u32): usize {
  return section(6) + 4 + ((<usize>i) << 4);
}

@inline export function insnOp(i: u32): u32 {
  return load<u8>(insnAddr(i));
}

@inline export function insnSubject(i: u32): u32 {
  return load<u8>(insnAddr(i) + 1);
}

@inline export function insnFlags(i: u32): u32 {
  return load<u8>(insnAddr(i) + 2);
}

@inline export function insnArg(i: u32): u32 {
  return load<u32>(insnAddr(i) + 4);
}

@inline export function insnOperand(i: u32): u32 {
  return load<u32>(insnAddr(i) + 8);
}

@inline export function insnJump(i: u32): u32 {
  return load<u32>(insnAddr(i) + 12);
}

// ---- CLASSIFY: word_map, entry_count, entries × (class, flags, roles), role_map, trusted ----
@inline export function classifyWordSet(): u32 {
  return load<u32>(section(7));
}

@inline export function classifyEntryCount(): u32 {
  return load<u32>(section(7) + 4);
}

export function classifyEntryClass(e: u32): u32 {
  return load<u32>(section(7) + 8 + (<usize>e) * 12);
}

export function classifyEntryFlags(e: u32): u32 {
  return load<u32>(section(7) + 12 + (<usize>e) * 12);
}

export function classifyEntryRoles(e: u32): u32 {
  return load<u32>(section(7) + 16 + (<usize>e) * 12);
}

export function classifyRoleSet(): u32 {
  return load<u32>(section(7) + 8 + (<usize>classifyEntryCount()) * 12);
}

export function classifyTrustedSet(): u32 {
  return load<u32>(section(7) + 12 + (<usize>classifyEntryCount()) * 12);
}

// Exposure settings (§3.3): `arg=value` -> setting·16 + level, and a request's word -> nibbles.
export function classifyExposureArgSet(): u32 {
  return load<u32>(section(7) + 16 + (<usize>classifyEntryCount()) * 12);
}

export function classifyExposureWordSet(): u32 {
  return load<u32>(section(7) + 20 + (<usize>classifyEntryCount()) * 12);
}

// ---- INTENT: negations, nothing_words, file_extensions, verb_map, negation_cancels, verb_count,
// verbs × (class_start, class_count), class_total, classes × (class), derive_count,
// derive classes × (class), records_count, records classes × (class), own_count, own classes ×
// (class), grammar, action_tools,
// action_verbs ----
@inline export function intentNegationSet(): u32 {
  return load<u32>(section(8));
}

@inline export function intentNothingSet(): u32 {
  return load<u32>(section(8) + 4);
}

@inline export function intentExtensionSet(): u32 {
  return load<u32>(section(8) + 8);
}

@inline export function intentVerbSet(): u32 {
  return load<u32>(section(8) + 12);
}

@inline export function intentCancelSet(): u32 {
  return load<u32>(section(8) + 16);
}

export function intentVerbCount(): u32 {
  return load<u32>(section(8) + 20);
}

export function intentVerbClassStart(v: u32): u32 {
  return load<u32>(section(8) + 24 + ((<usize>v) << 3));
}

export function intentVerbClassCount(v: u32): u32 {
  return load<u32>(section(8) + 28 + ((<usize>v) << 3));
}

export function intentClassTotal(): u32 {
  return load<u32>(section(8) + 24 + ((<usize>intentVerbCount()) << 3));
}

export function intentClass(k: u32): u32 {
  return load<u32>(section(8) + 28 + ((<usize>intentVerbCount()) << 3) + ((<usize>k) << 2));
}

function intentDeriveAt(): usize {
  return section(8) + 28 + ((<usize>intentVerbCount()) << 3) + ((<usize>intentClassTotal()) << 2);
}

export function intentDeriveCount(): u32 {
  return load<u32>(intentDeriveAt());
}

export function intentDeriveClass(k: u32): u32 {
  return load<u32>(intentDeriveAt() + 4 + ((<usize>k) << 2));
}

function intentRecordsAt(): usize {
  return intentDeriveAt() + 4 + ((<usize>intentDeriveCount()) << 2);
}

// The classes whose calls read records (§7.1's `records_from`).
export function intentRecordsCount(): u32 {
  return load<u32>(intentRecordsAt());
}

export function intentRecordsClass(k: u32): u32 {
  return load<u32>(intentRecordsAt() + 4 + ((<usize>k) << 2));
}

function intentOwnAt(): usize {
  return intentRecordsAt() + 4 + ((<usize>intentRecordsCount()) << 2);
}

// The classes whose calls read the user's own account or profile (§7.1's `own_records_from`).
export function intentOwnRecordsCount(): u32 {
  return load<u32>(intentOwnAt());
}

export function intentOwnRecordsClass(k: u32): u32 {
  return load<u32>(intentOwnAt() + 4 + ((<usize>k) << 2));
}

function intentSetsAt(): usize {
  return intentOwnAt() + 4 + ((<usize>intentOwnRecordsCount()) << 2);
}

// The grammar set (§7.3): word or phrase -> its G_* categories and a verb's object direction.
export function intentGrammarSet(): u32 {
  return load<u32>(intentSetsAt());
}

// The action sets (§7.5): a tool name's word -> the actions it says; a request's verb word -> the
// actions it asks for (a bit each).
export function intentActionToolSet(): u32 {
  return load<u32>(intentSetsAt() + 4);
}

export function intentActionVerbSet(): u32 {
  return load<u32>(intentSetsAt() + 8);
}

// ---- SETTINGS ----
export function settingsCount(): u32 {
  return load<u32>(section(9));
}

export function settingKeyAt(k: u32): u32 {
  return load<u32>(section(9) + 4 + ((<usize>k) << 3));
}

export function settingValueAt(k: u32): u32 {
  return load<u32>(section(9) + 8 + ((<usize>k) << 3));
}

// ---- BUDGETS (§3.2): count, budgets × (id, limit, source, amount, scope), class_count, classes × (start, count), member_total, members ----
export function budgetCount(): u32 {
  return load<u32>(section(10));
}

function budgetAddr(b: u32): usize {
  return section(10) + 4 + <usize>b * BUDGET_ENTRY;
}

export function budgetId(b: u32): u32 {
  return load<u32>(budgetAddr(b));
}

export function budgetLimit(b: u32): u32 {
  return load<u32>(budgetAddr(b) + 4);
}

export function budgetSource(b: u32): u32 {
  return load<u32>(budgetAddr(b) + 8);
}

// The cap of a budget of sums (an AMOUNT string, §6.9), NONE for a budget of calls.
export function budgetAmount(b: u32): u32 {
  return load<u32>(budgetAddr(b) + 12);
}

// Whose calls the budget counts (BUDGET_PER_*, low byte) and its period (BUDGET_PERIOD_*, next byte).
export function budgetScope(b: u32): u32 {
  return load<u32>(budgetAddr(b) + 16);
}

export const BUDGET_ENTRY: usize = 20;

function budgetClassAddr(c: u32): usize {
  return budgetAddr(budgetCount()) + 4 + ((<usize>c) << 3);
}

export function classBudgetStart(c: u32): u32 {
  return load<u32>(budgetClassAddr(c));
}

export function classBudgetCount(c: u32): u32 {
  return load<u32>(budgetClassAddr(c) + 4);
}

// Member k of the concatenated per-class lists: a budget index.
export function budgetMember(k: u32): u32 {
  return load<u32>(budgetClassAddr(classCount()) + 4 + ((<usize>k) << 2));
}

// ---- GLOB_INDEX (§3.6) ----
// The address of LIST set `set`'s index, or 0 when it has none (indices are sorted by set).
export function globIndexOf(set: u32): usize {
  const s = section(11);
  let lo: u32 = 0, hi = load<u32>(s);
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const e = s + 4 + ((<usize>mid) << 3);
    const indexed = load<u32>(e);
    if (indexed == set) return s + <usize>load<u32>(e + 4);
    if (indexed < set) lo = mid + 1;
    else hi = mid;
  }
  return 0;
}
