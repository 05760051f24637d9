import {
  parseArgs, leafCount, leafPath, leafPathLen, leafValue, leafValueLen, leafIsString,
  JSON_OK, JSON_BAD, JSON_LIMIT,
} from "../readers/json";
import { scratchReset } from "../abi/mem";
import { utf8, raw, repeated, text, lastLen } from "./helpers";

function parse(s: string, maxDepth: u32 = 64, maxLeaves: u32 = 1000): i32 {
  const p = utf8(s);
  return parseArgs(p, lastLen, maxDepth, maxLeaves);
}

function path(i: u32): string {
  return text(leafPath(i), leafPathLen(i));
}

function value(i: u32): string {
  return text(leafValue(i), leafValueLen(i));
}

describe("json: leaves", () => {
  beforeEach(() => scratchReset());

  it("flattens scalars with their dotted paths", () => {
    expect(parse('{"a":"x","b":1,"c":true,"d":null,"e":false}')).toBe(JSON_OK);
    expect(leafCount()).toBe(5);
    expect(path(0)).toBe("a");
    expect(value(0)).toBe("x");
    expect(leafIsString(0)).toBe(true);
    expect(value(1)).toBe("1");
    expect(leafIsString(1)).toBe(false);
    expect(value(2)).toBe("true");
    expect(value(3)).toBe("null");
    expect(path(4)).toBe("e");
  });

  it("omits array indices from paths", () => {
    expect(parse('{"a":{"b":[{"c":1},{"c":"two"}]},"d":[1,[2,3]], "e" : { "f" : { "g" : -0.5e+3 } } }')).toBe(JSON_OK);
    expect(leafCount()).toBe(6);
    expect(path(0)).toBe("a.b.c");
    expect(path(1)).toBe("a.b.c");
    expect(value(1)).toBe("two");
    expect(path(2)).toBe("d");
    expect(path(4)).toBe("d");
    expect(value(4)).toBe("3");
    expect(path(5)).toBe("e.f.g");
    expect(value(5)).toBe("-0.5e+3");
  });

  it("restores the path after a nested value closes", () => {
    expect(parse('{"a":[{"b":1},2],"c":{"d":{}},"e":3}')).toBe(JSON_OK);
    expect(leafCount()).toBe(3);
    expect(path(1)).toBe("a");
    expect(path(2)).toBe("e");
  });

  it("keeps duplicate keys as separate leaves", () => {
    expect(parse('{"to":"a@x.com","to":"eve@y.com"}')).toBe(JSON_OK);
    expect(leafCount()).toBe(2);
    expect(value(1)).toBe("eve@y.com");
  });

  it("accepts empty containers and surrounding white space", () => {
    expect(parse(' \t\r\n{"a":{},"b":[]} \n')).toBe(JSON_OK);
    expect(leafCount()).toBe(0);
    expect(parse("{}")).toBe(JSON_OK);
  });

  it("forgets the previous document", () => {
    expect(parse('{"a":1,"b":2}')).toBe(JSON_OK);
    expect(parse('{"c":3}')).toBe(JSON_OK);
    expect(leafCount()).toBe(1);
    expect(path(0)).toBe("c");
  });
});

describe("json: strings", () => {
  beforeEach(() => scratchReset());

  it("decodes every escape", () => {
    expect(parse('{"s":"q\\"b\\\\s\\/b\\bf\\fn\\nr\\rt\\t"}')).toBe(JSON_OK);
    expect(value(0)).toBe("q\"b\\s/b\bf\fn\nr\rt\t");
  });

  it("decodes \\u escapes and surrogate pairs to UTF-8", () => {
    expect(parse('{"s":"caf\\u00e9 \\ud83d\\ude00 \\u0041"}')).toBe(JSON_OK);
    expect(value(0)).toBe("café 😀 A");
    expect(leafValueLen(0)).toBe(12);
  });

  it("decodes escaped keys into the path", () => {
    expect(parse('{"a\\u002eb":{"\\"c":1}}')).toBe(JSON_OK);
    expect(path(0)).toBe("a.b.\"c");
  });

  it("keeps raw UTF-8", () => {
    expect(parse('{"ключ":"значение"}')).toBe(JSON_OK);
    expect(path(0)).toBe("ключ");
    expect(value(0)).toBe("значение");
  });

  it("rejects lone and mismatched surrogates", () => {
    expect(parse('{"s":"\\ud83d"}')).toBe(JSON_BAD);
    expect(parse('{"s":"\\ude00"}')).toBe(JSON_BAD);
    expect(parse('{"s":"\\ud83d\\u0041"}')).toBe(JSON_BAD);
    expect(parse('{"s":"\\ud83d\\ud83d"}')).toBe(JSON_BAD);
  });

  it("rejects truncated and unknown escapes", () => {
    expect(parse('{"s":"\\u12"}')).toBe(JSON_BAD);
    expect(parse('{"s":"\\u12G4"}')).toBe(JSON_BAD);
    expect(parse('{"s":"\\')).toBe(JSON_BAD);
    expect(parse('{"s":"\\x41"}')).toBe(JSON_BAD);
    expect(parse('{"s":"\\\'"}')).toBe(JSON_BAD);
    expect(parse('{"s":"open')).toBe(JSON_BAD);
  });

  it("rejects raw control characters", () => {
    expect(parse('{"s":"a\nb"}')).toBe(JSON_BAD);
    expect(parse('{"s":"a\tb"}')).toBe(JSON_BAD);
  });

  it("rejects invalid UTF-8 anywhere", () => {
    // {"s":"<ff>"}
    const bad = raw([0x7b, 0x22, 0x73, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]);
    expect(parseArgs(bad, lastLen, 64, 100)).toBe(JSON_BAD);
    // an overlong encoding of '/'
    const overlong = raw([0x7b, 0x22, 0x73, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]);
    expect(parseArgs(overlong, lastLen, 64, 100)).toBe(JSON_BAD);
    // an encoded surrogate
    const surrogate = raw([0x7b, 0x22, 0x73, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]);
    expect(parseArgs(surrogate, lastLen, 64, 100)).toBe(JSON_BAD);
    // a byte order mark before the object
    const bom = raw([0xef, 0xbb, 0xbf, 0x7b, 0x7d]);
    expect(parseArgs(bom, lastLen, 64, 100)).toBe(JSON_BAD);
  });

  it("finds a quote, an escape, a control character or a bad byte at any offset of an eight-byte step", () => {
    for (let k = 0; k < 20; k++) {
      const pad = "x".repeat(k);
      expect(parse('{"s":"' + pad + '"}')).toBe(JSON_OK);
      expect(value(0)).toBe(pad);
      expect(parse('{"s":"' + pad + '\\"' + pad + '"}')).toBe(JSON_OK);
      expect(value(0)).toBe(pad + '"' + pad);
      expect(parse('{"s":"' + pad + "é" + pad + '"}')).toBe(JSON_OK);
      expect(value(0)).toBe(pad + "é" + pad);
      expect(parse('{"s":"' + pad + "\x01" + pad + '"}')).toBe(JSON_BAD);
      expect(parse('{"s":"' + pad + "\x1f" + pad + '"}')).toBe(JSON_BAD);
      expect(parse('{"s":"' + pad + "\x7f" + pad + '"}')).toBe(JSON_OK); // DEL is no control character to JSON
      const bytes = String.UTF8.encode('{"s":"' + pad + "?" + pad + '"}');
      store<u8>(changetype<usize>(bytes) + 6 + k, 0xff); // the '?' made a byte that is not UTF-8
      expect(parseArgs(changetype<usize>(bytes), <u32>bytes.byteLength, 64, 100)).toBe(JSON_BAD);
    }
  });

  it("decodes escapes at any offset of an eight-byte step, into the right place", () => {
    for (let k = 0; k < 20; k++) {
      const pad = "abcdefghijklmnopqrstuvwxyz".slice(0, k);
      expect(parse('{"s":"' + pad + '\\n' + pad + '\\u00e9' + pad + '\\\\' + pad + '"}')).toBe(JSON_OK);
      expect(value(0)).toBe(pad + "\n" + pad + "é" + pad + "\\" + pad);
      expect(parse('{"' + pad + '\\t' + pad + '":1}')).toBe(JSON_OK); // a key decodes into the path
      expect(path(0)).toBe(pad + "\t" + pad);
    }
  });

  it("carries a 1 MB string value", () => {
    const big = repeated("x", 1 << 20);
    const head = utf8('{"s":"');
    const tail = utf8('"}');
    const all = new ArrayBuffer((1 << 20) + 8);
    memory.copy(changetype<usize>(all), head, 6);
    memory.copy(changetype<usize>(all) + 6, big, 1 << 20);
    memory.copy(changetype<usize>(all) + 6 + (1 << 20), tail, 2);
    expect(parseArgs(changetype<usize>(all), (1 << 20) + 8, 64, 100)).toBe(JSON_OK);
    expect(leafValueLen(0)).toBe(1 << 20);
  });
});

describe("json: grammar", () => {
  beforeEach(() => scratchReset());

  it("requires an object at the top", () => {
    expect(parse("[1]")).toBe(JSON_BAD);
    expect(parse('"x"')).toBe(JSON_BAD);
    expect(parse("1")).toBe(JSON_BAD);
    expect(parse("")).toBe(JSON_BAD);
    expect(parse("   ")).toBe(JSON_BAD);
  });

  it("rejects malformed structure", () => {
    expect(parse('{"a":1,}')).toBe(JSON_BAD);
    expect(parse("{,}")).toBe(JSON_BAD);
    expect(parse('{"a" 1}')).toBe(JSON_BAD);
    expect(parse('{"a":1 "b":2}')).toBe(JSON_BAD);
    expect(parse('{"a":[1,]}')).toBe(JSON_BAD);
    expect(parse('{"a":[1}')).toBe(JSON_BAD);
    expect(parse('{"a":{]}')).toBe(JSON_BAD);
    expect(parse('{"a":1}}')).toBe(JSON_BAD);
    expect(parse('{"a":1} x')).toBe(JSON_BAD);
    expect(parse('{"a":1')).toBe(JSON_BAD);
    expect(parse("{a:1}")).toBe(JSON_BAD);
    expect(parse("{'a':1}")).toBe(JSON_BAD);
  });

  it("checks numbers and literals strictly", () => {
    expect(parse('{"a":-0}')).toBe(JSON_OK);
    expect(parse('{"a":1.5E-10}')).toBe(JSON_OK);
    expect(parse('{"a":01}')).toBe(JSON_BAD);
    expect(parse('{"a":1.}')).toBe(JSON_BAD);
    expect(parse('{"a":.5}')).toBe(JSON_BAD);
    expect(parse('{"a":1e}')).toBe(JSON_BAD);
    expect(parse('{"a":-}')).toBe(JSON_BAD);
    expect(parse('{"a":+1}')).toBe(JSON_BAD);
    expect(parse('{"a":NaN}')).toBe(JSON_BAD);
    expect(parse('{"a":tru}')).toBe(JSON_BAD);
    expect(parse('{"a":nulls}')).toBe(JSON_BAD);
  });
});

describe("json: limits", () => {
  beforeEach(() => scratchReset());

  it("counts the top-level object as depth 1", () => {
    expect(parse('{"a":{"b":{"c":1}}}', 3)).toBe(JSON_OK);
    expect(parse('{"a":{"b":{"c":[1]}}}', 3)).toBe(JSON_BAD);
    expect(parse("{}", 0)).toBe(JSON_BAD);
  });

  it("rejects deep nesting without recursing", () => {
    const open = repeated("[", 200000);
    const doc = new ArrayBuffer(200005);
    memory.copy(changetype<usize>(doc), utf8('{"a":'), 5);
    memory.copy(changetype<usize>(doc) + 5, open, 200000);
    expect(parseArgs(changetype<usize>(doc), 200005, 64, 100)).toBe(JSON_BAD);
  });

  it("reads 256 levels when allowed", () => {
    // {"a":[[[ … 1 … ]]]}: 1 object + 255 arrays
    const s = '{"a":' + "[".repeat(255) + "1" + "]".repeat(255) + "}";
    expect(parse(s, 256)).toBe(JSON_OK);
    expect(parse(s, 255)).toBe(JSON_BAD);
  });

  it("stops at maxLeaves", () => {
    expect(parse('{"a":[1,2]}', 64, 2)).toBe(JSON_OK);
    expect(parse('{"a":[1,2,3]}', 64, 2)).toBe(JSON_LIMIT);
    expect(parse('{"a":[' + "1,".repeat(100000) + "1]}", 64, 16384)).toBe(JSON_LIMIT);
  });

  it("bounds the bytes of hostile deep long key paths", () => {
    const key = "k".repeat(1000);
    let s = "";
    for (let d = 0; d < 60; d++) s += '{"' + key + '":';
    s += "{";
    for (let i = 0; i < 200; i++) s += (i > 0 ? "," : "") + '"x' + i.toString() + '":1';
    s += "}" + "}".repeat(60);
    expect(parse(s, 64, 100000)).toBe(JSON_LIMIT);
    // the same keys with few leaves are fine
    let t = "";
    for (let d = 0; d < 60; d++) t += '{"' + key + '":';
    t += '{"x":1}' + "}".repeat(60);
    expect(parse(t, 64, 100000)).toBe(JSON_OK);
    expect(leafPathLen(0)).toBe(60 * 1001 + 1);
  });
});
