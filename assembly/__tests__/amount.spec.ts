import {
  jsonDecimal, textNumber, textNumberEnd, decimalAtMost, decimalUnits, currencyOf, minorDigits, amountSplit, amountCode,
  amountAtMost, amountWithin, AMOUNT_HUGE,
} from "../readers/amount";
import { NO, YES, MAYBE } from "../decision/tri";
import { scratchReset } from "../abi/mem";
import { utf8, lastLen, spanText, text } from "./helpers";

function json(s: string, shift: i32 = 0, negativeOk: bool = false): string {
  scratchReset();
  const p = utf8(s);
  return spanText(jsonDecimal(p, lastLen, shift, negativeOk));
}

function prose(s: string): string {
  scratchReset();
  const p = utf8(s);
  const d = textNumber(p, lastLen, 0);
  return d == 0 ? "<none>" : spanText(d) + "@" + textNumberEnd.toString();
}

function atMost(a: string, b: string): bool {
  const p = utf8(a);
  const pl = lastLen;
  const q = utf8(b);
  return decimalAtMost(p, pl, q, lastLen);
}

function units(s: string, up: bool): u64 {
  const p = utf8(s);
  return decimalUnits(p, lastLen, up);
}

function currency(s: string): string {
  const p = utf8(s);
  const c = currencyOf(p, lastLen);
  return c == 0 ? "<none>" : text(c, 3);
}

function code(s: string): usize {
  return s.length == 0 ? 0 : utf8(s);
}

function cap(v: string, c: string): u32 {
  const p = utf8(v);
  const pl = lastLen;
  const q = utf8(c);
  return amountAtMost(p, pl, q, lastLen);
}

function within(v: string, named: string): u32 {
  const p = utf8(v);
  const pl = lastLen;
  const q = utf8(named);
  return amountWithin(p, pl, q, lastLen);
}

describe("amount: JSON numbers as canonical decimals", () => {
  it("strips leading zeros, trailing fraction zeros and an empty fraction", () => {
    expect(json("250000")).toBe("250000");
    expect(json("10.50")).toBe("10.5");
    expect(json("10.00")).toBe("10");
    expect(json("007")).toBe("7");
    expect(json("0.05")).toBe("0.05");
    expect(json("0")).toBe("0");
    expect(json("0.000")).toBe("0");
  });

  it("applies an exponent and a shift (minor units)", () => {
    expect(json("1e3")).toBe("1000");
    expect(json("1.5E-2")).toBe("0.015");
    expect(json("25000", -2)).toBe("250");
    expect(json("5", -2)).toBe("0.05");
    expect(json("1234", -3)).toBe("1.234");
    expect(json("2.5e+1")).toBe("25");
  });

  it("reads no other text, no sign unless asked, nothing past its bounds", () => {
    expect(json("-5")).toBe("<none>");
    expect(json("-5", 0, true)).toBe("-5");
    expect(json("12.")).toBe("<none>");
    expect(json(".5")).toBe("<none>");
    expect(json("1e")).toBe("<none>");
    expect(json("1,000")).toBe("<none>");
    expect(json("")).toBe("<none>");
    expect(json("1e99")).toBe("<none>");
    expect(json("12345678901234567890123456789012345678901")).toBe("<none>"); // 41 significant digits
    expect(json("1234567890123456789012345678901234567890")).toBe("1234567890123456789012345678901234567890");
  });
});

describe("amount: numbers in prose", () => {
  it("reads thousands in threes and the decimal point, in both conventions", () => {
    expect(prose("1,250.50")).toBe("1250.5@8");
    expect(prose("1.250,50")).toBe("1250.5@8");
    expect(prose("1,250")).toBe("1250@5");
    expect(prose("1.250")).toBe("1250@5");
    expect(prose("12,5")).toBe("12.5@4");
    expect(prose("12.50")).toBe("12.5@5");
    expect(prose("1,250,000")).toBe("1250000@9");
    expect(prose("200.")).toBe("200@3"); // a sentence's full stop
  });

  it("reads no version, time, ordinal or badly grouped number", () => {
    expect(prose("1.2.3")).toBe("<none>");
    expect(prose("3pm")).toBe("<none>");
    expect(prose("2nd")).toBe("<none>");
    expect(prose("1,25,000")).toBe("<none>");
    expect(prose("12345,678")).toBe("<none>");
    expect(prose("1,2.5")).toBe("<none>");
    expect(prose("abc")).toBe("<none>");
  });
});

describe("amount: comparisons and units", () => {
  it("compares canonical decimals as numbers", () => {
    expect(atMost("200", "200")).toBe(true);
    expect(atMost("199.99", "200")).toBe(true);
    expect(atMost("200.01", "200")).toBe(false);
    expect(atMost("1000", "200")).toBe(false);
    expect(atMost("0.5", "0.05")).toBe(false);
    expect(atMost("0.05", "0.5")).toBe(true);
    expect(atMost("12.5", "12.50001")).toBe(true);
  });

  it("counts millionths, rounding a sum up and a cap down", () => {
    expect(units("12.5", true)).toBe(12500000);
    expect(units("0.0000001", true)).toBe(1);
    expect(units("0.0000001", false)).toBe(0);
    expect(units("12345678901234", true)).toBe(AMOUNT_HUGE);
  });

  it("names currencies by code or symbol, and their minor digits", () => {
    expect(currency("usd")).toBe("USD");
    expect(currency(" Eur ")).toBe("EUR");
    expect(currency("€")).toBe("EUR");
    expect(currency("$")).toBe("USD");
    expect(currency("£")).toBe("GBP");
    expect(currency("dollars")).toBe("<none>");
    expect(currency("US")).toBe("<none>");
    expect(minorDigits(code("JPY"))).toBe(0);
    expect(minorDigits(code("KWD"))).toBe(3);
    expect(minorDigits(code("EUR"))).toBe(2);
    expect(minorDigits(0)).toBe(0); // none given: whole units, never less than it is
  });

  it("splits the normal form", () => {
    const p = utf8("1250.5 EUR");
    expect(amountSplit(p, lastLen)).toBe(6);
    expect(text(amountCode, 3)).toBe("EUR");
    const q = utf8("200");
    expect(amountSplit(q, lastLen)).toBe(3);
    expect(amountCode).toBe(0);
    for (let k = 0; k < 5; k++) {
      const bad = ["", "01", "1.50", "1. EUR", "200 eur"][k];
      const b = utf8(bad);
      expect(amountSplit(b, lastLen)).toBe(-1);
    }
  });
});

describe("amount: AT_MOST and the sums the user named", () => {
  it("AT_MOST: a cap without a currency bounds the number; one with a currency its own sums", () => {
    expect(cap("200 EUR", "500")).toBe(YES);
    expect(cap("600 JPY", "500")).toBe(NO);
    expect(cap("200 EUR", "500 EUR")).toBe(YES);
    expect(cap("600 EUR", "500 EUR")).toBe(NO);
    expect(cap("200 USD", "500 EUR")).toBe(MAYBE);
    expect(cap("200", "500 EUR")).toBe(MAYBE);
    expect(cap("900", "500 EUR")).toBe(MAYBE);
  });

  it("IN_INTENT: at most a named sum, in its currency", () => {
    expect(within("200 EUR", "200 EUR")).toBe(YES);
    expect(within("150 EUR", "200 EUR")).toBe(YES);
    expect(within("200.01 EUR", "200 EUR")).toBe(NO);
    expect(within("200 USD", "200 EUR")).toBe(NO);
    expect(within("200", "200")).toBe(YES);
    expect(within("200", "200 EUR")).toBe(MAYBE);
    expect(within("200 EUR", "200")).toBe(MAYBE);
    expect(within("300", "200 EUR")).toBe(NO);
  });
});
