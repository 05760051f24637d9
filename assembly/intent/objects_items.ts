// Emitting items: the collector bindObjects is given, the count of items per message, and an
// object or a sum handed to it. The collector and the count are this module's state; bindObjects
// (objects.ts) sets them per message, and each pass sets objectStart before it reads a word.
import { SUBJ_OBJECT, SUBJ_AMOUNT } from "../../bytecode/format";
import { amountText } from "../readers/amount";
import { objectNormal } from "./objects_normal";

export const OBJECT_MAX: u32 = 128; // a longer quoted text is prose, not a name

export type Collector = (kind: u32, cls: u32, s: u64) => bool;
// Where in the message the item being collected was read: the byte its word starts at (the
// collector reads the clause there, §7.4).
export let objectStart: u32 = 0;
export let sink: Collector = noCollector;
function noCollector(kind: u32, cls: u32, s: u64): bool { return false; }

// A message names at most OBJECTS_PER_MESSAGE objects and sums (in the order of the passes of
// bindObjects); past that it names none (a pasted table of numbers is no request), which can only
// ask more, and binding costs a bounded amount per byte.
export const OBJECTS_PER_MESSAGE: u32 = 256;
export let given: u32 = 0;
export function give(kind: u32, cls: u32, s: u64): bool {
  if (given >= OBJECTS_PER_MESSAGE) return true;
  given++;
  return sink(kind, cls, s);
}

export function object(p: usize, len: u32): bool {
  if (len == 0 || len > OBJECT_MAX || given >= OBJECTS_PER_MESSAGE) return true;
  const s = objectNormal(p, len);
  return s != 0 && give(SUBJ_OBJECT, 0, s);
}

export function amount(decimal: u64, code: usize): bool {
  if (given >= OBJECTS_PER_MESSAGE) return true;
  const s = amountText(decimal, code);
  return s != 0 && give(SUBJ_AMOUNT, 0, s);
}
