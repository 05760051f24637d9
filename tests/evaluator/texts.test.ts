// The message texts of fence.wasm are UTF-8 bytes (scripts/text-transform.mjs): the transform on a
// small program, and its effect on the real module. That every message reads as before is shown by
// the other tests, which compare the evaluator's answers word for word.
import { describe, expect, it } from "vitest";
import asc from "assemblyscript/asc";
import TextTransform from "../../scripts/text-transform.mjs";
import { fenceWasm } from "./wasm";

const SAY = `
export type Text = usize;
export function echo(t: Text): Text { return t; }
`;

const ENTRY = `
import { Text, echo } from "./say";
const TOP: Text = "top";
function second(n: i32, t: Text): Text { return t; }
export function top(): Text { return TOP; }
export function viaImport(): Text { return echo("from another file"); }
export function positional(): Text { return second(1, "second argument"); }
export function named(k: i32): Text { return k == 0 ? "zero" : ("other"); }
export function assigned(k: i32): Text { let t: Text = 0; if (k != 0) t = "assigned"; return t; }
export function once(): bool { return echo("twice") == second(0, "twice"); }
export function plain(): usize { return changetype<usize>("plain"); }
`;

async function compile(sources: Record<string, string>): Promise<{ error: string | null; binary: Uint8Array | null }> {
  let binary: Uint8Array | null = null;
  const result = await asc.main(["entry.ts", "--outFile", "entry.wasm", "--runtime", "stub", "-O"], {
    readFile: (name) => sources[name] ?? null,
    writeFile: (name, contents) => { if (name.endsWith(".wasm")) binary = contents as Uint8Array; },
    listFiles: () => [],
    transforms: [TextTransform],
  } as Parameters<typeof asc.main>[1]);
  return { error: result.error ? `${result.error.message}\n${result.stderr.toString()}` : null, binary };
}

async function instance(): Promise<{ exports: Record<string, (...a: number[]) => number>; text: (at: number) => string; utf16: (at: number) => string }> {
  const { error, binary } = await compile({ "entry.ts": ENTRY, "say.ts": SAY });
  expect(error).toBeNull();
  const { instance } = await WebAssembly.instantiate(binary!);
  const exports = instance.exports as unknown as Record<string, (...a: number[]) => number> & { memory: WebAssembly.Memory };
  const bytes = () => new Uint8Array(exports.memory.buffer);
  return {
    exports,
    text: (at) => Buffer.from(bytes().subarray(at + 1, at + 1 + bytes()[at])).toString("latin1"),
    utf16: (at) => Buffer.from(bytes().subarray(at, at + new DataView(exports.memory.buffer).getUint32(at - 4, true))).toString("utf16le"),
  };
}

describe("the text transform", () => {
  it("stores a literal where a Text is expected as a length byte and its bytes", async () => {
    const { exports, text, utf16 } = await instance();
    expect(text(exports.viaImport())).toBe("from another file");
    expect(text(exports.top())).toBe("top");
    expect(text(exports.positional())).toBe("second argument");
    expect(text(exports.named(0))).toBe("zero");
    expect(text(exports.named(1))).toBe("other");
    expect(exports.assigned(0)).toBe(0);
    expect(text(exports.assigned(1))).toBe("assigned");
    expect(exports.once()).toBe(1);
    expect(utf16(exports.plain())).toBe("plain"); // not a Text: a string, as before
  });

  it("refuses a text that is not ASCII or longer than its length byte", async () => {
    const call = (literal: string) => ({ "entry.ts": `import { Text, echo } from "./say";\nexport function f(): Text { return echo(${JSON.stringify(literal)}); }\n`, "say.ts": SAY });
    expect((await compile(call("caf\u00e9"))).error).toMatch(/entry\.ts:2: a Text literal must be ASCII: "caf\u00e9"/);
    expect((await compile(call("x".repeat(256)))).error).toMatch(/entry\.ts:2: a Text literal has at most 255 characters/);
    expect((await compile(call("x".repeat(255)))).error).toBeNull();
  });

  it("leaves a string that is not a literal to the compiler, which refuses it as a Text", async () => {
    const source = `import { Text, echo } from "./say";\nconst s = "not a literal";\nexport function f(): Text { return echo(s); }\n`;
    expect((await compile({ "entry.ts": source, "say.ts": SAY })).error).toMatch(/not assignable to type 'usize'/);
  });
});

describe("fence.wasm", () => {
  const wasm = Buffer.from(fenceWasm());
  const utf8 = (s: string) => Buffer.concat([Buffer.from([s.length]), Buffer.from(s, "latin1")]);
  const utf16 = (s: string) => Buffer.from(s, "utf16le");

  it("holds its messages as UTF-8 texts, without UTF-16 copies", () => {
    for (const message of ["the call does not fit the input buffer", " bytes is too short for its counts", "a tool with an unreadable name", "TEST_PREFIX"]) {
      expect(wasm.includes(utf8(message)), message).toBe(true);
      expect(wasm.includes(utf16(message)), message).toBe(false);
    }
  });

  // 64 KiB held the readers until they learned to say what they cannot read: three-valued tests,
  // patterns and their intersection, and the shell reader's effects took it past (README, "Sizes").
  // 96 KiB held them until the shell reader read what bash expands and runs (words, compound
  // commands, builtins, the programs' options as the policy describes them: about 18 KiB) and the
  // objects and sums of a request (objects.ts, amount.ts) came; together they take 128 KiB, and
  // the globs that single out the files below a search's trees a little more. 136 KiB held them
  // until the terminal's directory (DECISION_MOVES, an unknown working directory), material after
  // a colon and the actions a compound tool name joins came: about 2.3 KiB. 144 KiB held them
  // until the records of reads (§7.1) came, and recipient lists were read as Python's mail
  // stack reads them and rendered bodies as a browser fetches from them (addresslist.ts,
  // markup.ts), and settings that widen exposure (exposure.ts): about 3.7 KiB and 3 KiB. 164 KiB
  // held them until verbs were bound to the actions they ask for (§7.5) and a record's list
  // elements were read one by one: about 3 KiB. 166 KiB held them until an exposure word was
  // read where the request's reader reads it (a question, a noun phrase), a negated verb reached
  // its own actions and clauses ended at full-width marks and dashes: about 1.3 KiB. 167 KiB held
  // them until later turns' corrections, pauses and retractions (a second grammar table), reads of
  // the user's own account, a mapped tool's choices and a bill paid once came: about 3 KiB.
  it("fits its 170 KiB budget", () => {
    expect(wasm.length).toBeLessThanOrEqual(170 * 1024);
  });
});
