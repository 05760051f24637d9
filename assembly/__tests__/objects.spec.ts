import { SUBJ_OBJECT, SUBJ_AMOUNT, INTENT_NAMED } from "../../bytecode/format";
import { bindObjects, objectNormal, OBJECTS_READ } from "../intent/objects";
import { intentBind, intentFree, intentHas } from "../intent/intent";
import { NO, YES, MAYBE } from "../decision/tri";
import { scratchReset } from "../abi/mem";
import { installPolicy } from "./policy";
import { utf8, lastLen, text, spanText, configureTestEnv } from "./helpers";

// What bindObjects collects, as "object:VALUE" and "amount:VALUE" entries.
const found: string[] = [];
function collector(kind: u32, cls: u32, s: u64): bool {
  found.push((kind == SUBJ_OBJECT ? "object:" : kind == SUBJ_AMOUNT ? "amount:" : "other:") + spanText(s));
  return true;
}

function bound(message: string): string[] {
  scratchReset();
  found.length = 0;
  const p = utf8(message);
  expect(bindObjects(p, lastLen, collector)).toBe(true);
  return found.slice(0);
}

function has(list: string[], entry: string): bool {
  return list.indexOf(entry) >= 0;
}

function normal(s: string): string {
  scratchReset();
  const p = utf8(s);
  return spanText(objectNormal(p, lastLen));
}

describe("objects: the normal form", () => {
  it("trims, makes white space one space, lower-cases, and drops an IBAN's spaces", () => {
    expect(normal("  Hotel   Lumen ")).toBe("hotel lumen");
    expect(normal("DE89 3704 0044 0532 0130 00")).toBe("de89370400440532013000");
    expect(normal("de89370400440532013000")).toBe("de89370400440532013000");
    // A checksum that fails, or groups that are not fours: not an IBAN, spaces kept.
    expect(normal("DE88 3704 0044 0532 0130 00")).toBe("de88 3704 0044 0532 0130 00");
    expect(normal("DE89 37040 044 0532 0130 00")).toBe("de89 37040 044 0532 0130 00");
    expect(normal("   ")).toBe("<none>");
  });
});

describe("objects: what a message names", () => {
  beforeAll(() => {
    installPolicy();
    configureTestEnv();
  });

  it("reads the first OBJECTS_READ bytes of a message, never inside a word", () => {
    let message = "";
    while (message.length < <i32>OBJECTS_READ - 20) message += "some words ";
    message += "Hotel Lumen and Acme Corp then";
    const b = bound(message);
    expect(has(b, "object:hotel lumen")).toBe(true); // wholly before the cut
    expect(has(b, "object:acme corp")).toBe(false); // past it
    expect(has(b, "object:ac")).toBe(false);
  });

  it("reads proper names as runs, with connectors, a sentence's verb and an article dropped", () => {
    const b = bound("Book the Hotel Lumen for Bank of America. Then Wire it to The Ritz");
    expect(has(b, "object:hotel lumen")).toBe(true);
    expect(has(b, "object:bank of america")).toBe(true);
    expect(has(b, "object:the ritz")).toBe(true);
    expect(has(b, "object:ritz")).toBe(true);
    expect(has(b, "object:wire it")).toBe(false);
    expect(has(b, "object:book")).toBe(false); // a single word that opens a sentence
    expect(has(b, "object:lumen")).toBe(false); // a run is one name, not its words
    const c = bound("Pay Acme Corp, then Marks & Spencer's store");
    expect(has(c, "object:acme corp")).toBe(true);
    expect(has(c, "object:pay acme corp")).toBe(true);
    expect(has(c, "object:marks & spencer")).toBe(true);
  });

  it("reads quoted phrases, straight and typographic, but no apostrophe inside a word", () => {
    const b = bound("Post to the 'Blue Room' and “Q3 plan”, don't touch «Ops»");
    expect(has(b, "object:blue room")).toBe(true);
    expect(has(b, "object:q3 plan")).toBe(true);
    expect(has(b, "object:ops")).toBe(true);
    expect(has(b, "object:t touch")).toBe(false);
  });

  it("reads IBANs with and without their spaces, and nothing else of their groups", () => {
    const b = bound("Send it to DE89 3704 0044 0532 0130 00 or GB82WEST12345698765432 today");
    expect(has(b, "object:de89370400440532013000")).toBe(true);
    expect(has(b, "object:gb82west12345698765432")).toBe(true);
    expect(has(b, "amount:3704")).toBe(false);
    expect(has(b, "object:de89")).toBe(false);
  });

  it("reads ids, #numbers, owner/name pairs and a URL's path segments", () => {
    const b = bound("Close #123 in octo/widgets, see INV-2024-17, acct_1A2b and https://github.com/octo/tools/issues/7?q=1");
    expect(has(b, "object:123")).toBe(true);
    expect(has(b, "object:octo/widgets")).toBe(true);
    expect(has(b, "object:octo")).toBe(true);
    expect(has(b, "object:widgets")).toBe(true);
    expect(has(b, "object:inv-2024-17")).toBe(true);
    expect(has(b, "object:acct_1a2b")).toBe(true);
    expect(has(b, "object:tools")).toBe(true);
    expect(has(b, "object:7")).toBe(true);
  });

  it("reads numbers and number words, and dates with or without a year", () => {
    const b = bound("Two nights from June 3, then 3rd of July 2025, 12 Sept and 2025-08-01; room 12");
    expect(has(b, "object:2")).toBe(true);
    expect(has(b, "object:--06-03")).toBe(true);
    expect(has(b, "object:2025-07-03")).toBe(true);
    expect(has(b, "object:--09-12")).toBe(true);
    expect(has(b, "object:2025-08-01")).toBe(true);
    expect(has(b, "object:12")).toBe(true);
    expect(has(b, "object:3")).toBe(false); // a date's day is not a number of its own
  });

  it("reads sums with a symbol, a code or a word, and a bare number as a sum of no currency", () => {
    const b = bound("Pay €200, $1,250.50, 30 EUR, EUR 40, 50€ and 20 dollars; 1.250,50 £ and 7");
    expect(has(b, "amount:200 EUR")).toBe(true);
    expect(has(b, "amount:1250.5 USD")).toBe(true);
    expect(has(b, "amount:30 EUR")).toBe(true);
    expect(has(b, "amount:40 EUR")).toBe(true);
    expect(has(b, "amount:50 EUR")).toBe(true);
    expect(has(b, "amount:20 USD")).toBe(true);
    expect(has(b, "amount:1250.5 GBP")).toBe(true);
    expect(has(b, "amount:7")).toBe(true);
    expect(has(b, "object:7")).toBe(true);
    expect(has(b, "object:eur")).toBe(false); // a currency read as one
    expect(has(b, "object:200")).toBe(false); // a sum with a currency is no id
  });

  it("reads a number beside three capitals as an object too, and a code glued to digits as an id", () => {
    const b = bound("Buy 1 of SKU 123, then pay INV2024");
    expect(has(b, "amount:123 SKU")).toBe(true); // a currency for all the binder knows
    expect(has(b, "object:123")).toBe(true); // and a label's number
    expect(has(b, "object:1")).toBe(true);
    expect(has(b, "object:inv2024")).toBe(true);
  });

  it("reads an ISO date with a time after it in the forms a call writes it", () => {
    const b = bound("Lunch on 2024-05-19 at 12:00, then 2024-05-20 9:30.");
    expect(has(b, "object:2024-05-19")).toBe(true);
    expect(has(b, "object:2024-05-19 12:00")).toBe(true);
    expect(has(b, "object:2024-05-19t12:00")).toBe(true);
    expect(has(b, "object:2024-05-19t12:00:00")).toBe(true);
    expect(has(b, "object:2024-05-20t09:30:00")).toBe(true);
    expect(has(b, "object:2024-05-19 09:30")).toBe(false);
  });
});

function bind(message: string): usize {
  scratchReset();
  const p = utf8(message);
  return intentBind(0, p, lastLen);
}

function look(i: usize, subject: u32, value: string): u32 {
  scratchReset();
  const p = utf8(value);
  return intentHas(i, subject, p, lastLen, INTENT_NAMED);
}

describe("objects: IN_INTENT", () => {
  beforeAll(() => {
    installPolicy();
    configureTestEnv();
  });

  it("holds for the named object, without an article, and for a value all of whose parts were named", () => {
    const i = bind("Book the Hotel Lumen in Paris");
    expect(look(i, SUBJ_OBJECT, "hotel lumen")).toBe(YES);
    expect(look(i, SUBJ_OBJECT, "the hotel lumen")).toBe(YES);
    expect(look(i, SUBJ_OBJECT, "hotel lumen, paris")).toBe(YES);
    expect(look(i, SUBJ_OBJECT, "hotel lumen (paris)")).toBe(YES);
    intentFree(i);
  });

  it("holds maybe for a named object qualified by unnamed words, never for one that merely holds its words", () => {
    const i = bind("Book the Hotel Lumen");
    expect(look(i, SUBJ_OBJECT, "hotel lumen, lyon")).toBe(MAYBE);
    expect(look(i, SUBJ_OBJECT, "lumen scam inn")).toBe(NO);
    expect(look(i, SUBJ_OBJECT, "hotel lumen scam")).toBe(NO);
    expect(look(i, SUBJ_OBJECT, "lumen")).toBe(NO);
    expect(look(i, SUBJ_OBJECT, "harbor inn, hotel lumen")).toBe(NO);
    intentFree(i);
  });

  it("reads dates by what the user named: a yearless date by month and day, a time maybe", () => {
    const i = bind("Book it from June 3 to 2025-06-05");
    expect(look(i, SUBJ_OBJECT, "2025-06-03")).toBe(YES);
    expect(look(i, SUBJ_OBJECT, "2026-06-03")).toBe(YES);
    expect(look(i, SUBJ_OBJECT, "2025-06-05")).toBe(YES);
    expect(look(i, SUBJ_OBJECT, "2024-06-05")).toBe(NO);
    expect(look(i, SUBJ_OBJECT, "2025-06-03t10:00:00z")).toBe(MAYBE);
    expect(look(i, SUBJ_OBJECT, "2025-06-04")).toBe(NO);
    intentFree(i);
    // A time the user named after an ISO date holds; another time of that day, maybe.
    const j = bind("Create the event on 2024-05-19 at 12:00");
    expect(look(j, SUBJ_OBJECT, "2024-05-19t12:00:00")).toBe(YES);
    expect(look(j, SUBJ_OBJECT, "2024-05-19 12:00")).toBe(YES);
    expect(look(j, SUBJ_OBJECT, "2024-05-19t13:00:00")).toBe(MAYBE);
    intentFree(j);
  });

  it("reads sums as at most one the user named", () => {
    const i = bind("Pay €200 to Acme and 50 to Bob");
    expect(look(i, SUBJ_AMOUNT, "200 EUR")).toBe(YES);
    expect(look(i, SUBJ_AMOUNT, "120.5 EUR")).toBe(YES);
    expect(look(i, SUBJ_AMOUNT, "201 EUR")).toBe(NO);
    expect(look(i, SUBJ_AMOUNT, "200 USD")).toBe(NO);
    expect(look(i, SUBJ_AMOUNT, "50")).toBe(YES);
    expect(look(i, SUBJ_AMOUNT, "250")).toBe(NO);
    expect(look(i, SUBJ_AMOUNT, "150")).toBe(MAYBE); // within €200, but it names no currency
    intentFree(i);
  });
});

describe("objects: bounds", () => {
  it("names at most 256 objects and sums in a message", () => {
    let message = "Pay";
    for (let i = 0; i < 400; i++) message += " " + (1000 + i).toString();
    const list = bound(message + ".");
    expect(list.length).toBe(256);
    expect(has(list, "object:1000")).toBe(true);
    expect(has(list, "object:1399")).toBe(false);
  });
});
