// The objects and sums a user's message names (docs/bytecode.md §7.4): what an action may be
// done to, and how much money it may move. The binder calls bindObjects once per message; each
// item goes to the collector as an OBJECT item (in the normal form of §6.8) or an AMOUNT item
// (§6.10):
//   - a quoted phrase ("the 'Blue Room'", “Q3 plan”), at most OBJECT_MAX bytes;
//   - a proper name: a run of capitalized words, with of/de/la/van/&… between them ("Hotel
//     Lumen", "Bank of America"); at a sentence's start also without its first word, and
//     without a leading The/A/An; a single capitalized word only where it does not open a sentence;
//   - an IBAN (checksum-valid, with or without its spaces), without spaces;
//   - an id: a word with a digit and a letter, '-' or '_' ("INV-2024-17", "acct_1A2b"), "#123"
//     as 123, an owner/name pair (and each side), the path segments of a URL;
//   - a number ("12", "1,250", "two") as itself;
//   - a date ("June 3", "3 June 2025", "2025-06-03") as YYYY-MM-DD, or --MM-DD without a year;
//   - a sum: a number with a currency symbol, code or word beside it ("€200", "200 EUR",
//     "USD 1,250.50", "20 dollars"), and a bare number as a sum of no currency.
// The passes are objects_names.ts and objects_numbers.ts, over the words of objects_words.ts;
// objects_items.ts hands their items to the collector, objects_normal.ts is the normal form.
import { jsonDecimal } from "../readers/amount";
import { span } from "../readers/normalize";
import { Collector, sink, given } from "./objects_items";
import { splitWords } from "./objects_words";
import { quoted, ibans, names, ids } from "./objects_names";
import { dates, sums } from "./objects_numbers";

export { objectNormal } from "./objects_normal";
export { OBJECT_MAX, objectStart, OBJECTS_PER_MESSAGE } from "./objects_items";

// Objects are read in the first OBJECTS_READ bytes of a message (cut at white space): a message
// that long is a pasted document more than a request, and an object named only past it is not
// granted (asked about), never the reverse. It bounds the reading's cost.
export const OBJECTS_READ: u32 = 16384;

@inline function at(p: usize, i: u32): u32 {
  return <u32>load<u8>(p + i);
}

// Collects the objects and sums of message [p, p+len) through `collect` (the binder's, with
// the item kind, class 0 and the value); false when out of memory or when it refused one.
export function bindObjects(p: usize, len: u32, collect: Collector): bool {
  sink = collect;
  given = 0;
  if (len > OBJECTS_READ) {
    len = OBJECTS_READ;
    while (len > 0 && at(p, len) > 0x20) len--; // not inside a word (bytes past len are the message's)
  }
  if (!splitWords(p, len)) return false;
  return quoted(p) && ibans(p) && dates(p) && sums(p) && names(p) && ids(p, len);
}

// A JSON number leaf's value as an object: its canonical decimal ("2.0" is "2").
export function numberObject(p: usize, len: u32): u64 {
  const d = jsonDecimal(p, len, 0, true);
  return d != 0 ? d : span(p, len);
}
