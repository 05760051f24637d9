import { fnv1a, sameBytes, validUtf8 } from "../abi/bytes";
import { utf8, raw, lastLen } from "./helpers";

// FNV-1a as docs/bytecode.md §1 defines it, a byte at a time: what fnv1a's four-byte steps must equal.
function fnv1aBytewise(p: usize, len: u32): u32 {
  let h: u32 = 0x811c9dc5;
  for (let i: u32 = 0; i < len; i++) h = (h ^ <u32>load<u8>(p + i)) * 0x01000193;
  return h;
}

describe("bytes: fnv1a", () => {
  it("gives the published FNV-1a values", () => {
    expect(fnv1a(utf8(""), lastLen)).toBe(0x811c9dc5);
    expect(fnv1a(utf8("a"), lastLen)).toBe(0xe40c292c);
    expect(fnv1a(utf8("foobar"), lastLen)).toBe(0xbf9cf968);
  });

  it("equals the byte-at-a-time hash for every length and tail", () => {
    const s = "user999@corp29.example/é/\u{1F600}";
    const p = utf8(s);
    const n = lastLen;
    for (let start: u32 = 0; start < 5; start++) {
      for (let len: u32 = 0; start + len <= n; len++) {
        expect(fnv1a(p + start, len)).toBe(fnv1aBytewise(p + start, len));
      }
    }
  });
});

describe("bytes: sameBytes", () => {
  it("finds a difference at any offset, inside or after the eight-byte steps", () => {
    const a = utf8("abcdefghijklmnopqrstu");
    const n = lastLen;
    for (let k: u32 = 0; k < n; k++) {
      const b = utf8("abcdefghijklmnopqrstu");
      expect(sameBytes(a, b, n)).toBe(true);
      store<u8>(b + k, 0x21);
      expect(sameBytes(a, b, n)).toBe(false);
      expect(sameBytes(a, b, k)).toBe(true); // the bytes before the difference
    }
    expect(sameBytes(a, a + 1, 0)).toBe(true);
  });
});

describe("bytes: validUtf8", () => {
  it("finds a bad byte at any offset, inside or after the ASCII steps", () => {
    for (let k = 0; k < 20; k++) {
      const values: u8[] = [];
      for (let i = 0; i < 20; i++) values.push(0x61);
      values[k] = 0x80; // a continuation byte with no lead
      expect(validUtf8(raw(values), lastLen)).toBe(false);
      values[k] = 0x7f;
      expect(validUtf8(raw(values), lastLen)).toBe(true);
    }
    expect(validUtf8(utf8("0123456789abcdefé"), lastLen)).toBe(true);
  });
});
