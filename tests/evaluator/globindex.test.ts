// The glob index (docs/bytecode.md §3.6): a policy decides every call as the same policy with its
// GLOB_INDEX emptied (each list then walked whole), and the verifier rejects an index that files
// a pattern where a value it matches would not look.
import { beforeAll, describe, expect, test } from "vitest";
import { compilePolicy } from "../../compiler/index";
import { globKey } from "../../compiler/globindex";
import { DIR_ENTRY_SIZE, HEADER_SIZE, SEC_GLOB_INDEX } from "../../bytecode/format";
import { readAfb } from "../../compiler/test/reader";
import { compileYaml, rehash, sectionAt, sectionLength, setU32, u32 } from "./bytecode";
import { type Fence, loadFence } from "../../host-js/host";
import { fenceWasm } from "./wasm";

const HOME = "/home/u";
const CWD = "/home/u/work";

let shipped: Uint8Array;
let fence: Fence;

beforeAll(() => {
  const result = compilePolicy([{ path: "policies/defaults.yaml" }]);
  if (!result.ok) throw new Error("the shipped policy does not compile");
  shipped = result.bytes;
  fence = loadFence(fenceWasm());
});

/** The policy with GLOB_INDEX replaced by `words` (the last section: the file ends with it). */
function withIndex(bytes: Uint8Array, words: number[]): Uint8Array {
  const at = sectionAt(bytes, SEC_GLOB_INDEX);
  const out = new Uint8Array(at + 4 * words.length);
  out.set(bytes.subarray(0, at));
  words.forEach((w, i) => setU32(out, at + 4 * i, w));
  setU32(out, HEADER_SIZE + (SEC_GLOB_INDEX - 1) * DIR_ENTRY_SIZE + 8, 4 * words.length);
  setU32(out, 8, out.length);
  return rehash(out);
}

function indexWords(bytes: Uint8Array): number[] {
  const at = sectionAt(bytes, SEC_GLOB_INDEX);
  return Array.from({ length: sectionLength(bytes, SEC_GLOB_INDEX) / 4 }, (_, i) => u32(bytes, at + 4 * i));
}

/** The sets the index covers, with each one's patterns. */
function indexedSets(bytes: Uint8Array): Array<{ set: number; patterns: string[] }> {
  const afb = readAfb(bytes);
  const words = indexWords(bytes);
  return Array.from({ length: words[0] }, (_, i) => words[1 + 2 * i]).map((set) => ({
    set,
    patterns: afb.sets[set].slots.map(([key]) => afb.strings[key]),
  }));
}

/** Values a pattern matches and near misses: its wildcards filled in, and its bytes changed. */
function valuesOf(pattern: string): string[] {
  const filled = [
    pattern.replaceAll("**", "a/b").replaceAll("*", "x").replaceAll("?", "q"),
    pattern.replaceAll("**", "").replaceAll("*", "").replaceAll("?", "z"),
    pattern.replaceAll("**", "deep/er/dir").replaceAll("*", "name.v2").replaceAll("?", "-"),
  ].map((v) => (v.startsWith("/") || v.startsWith("~") ? v : `/srv/${v}`));
  const near = filled.flatMap((v) => [v + "x", v.slice(0, -1), v.toUpperCase(), `${v}/below`, v.replace(/\/([^/]*)$/, "/x$1")]);
  return [...filled, ...near];
}

function decisions(bytes: Uint8Array, calls: Array<[string, unknown]>): string[] {
  expect(fence.load(bytes).ok).toBe(true);
  expect(fence.configure(HOME, CWD).ok).toBe(true);
  const h = fence.openSession();
  fence.intent(h, "fix the bug in src/app.py and write notes to notes.md");
  return calls.map(([tool, args]) => {
    const d = fence.decide(h, tool, args);
    return `${d.kind} ${d.reason} ${d.rule}`;
  });
}

describe("the glob index", () => {
  test("files the shipped lists' patterns under keys, leaving few to every lookup", () => {
    const sets = indexedSets(shipped);
    const patterns = sets.flatMap((s) => s.patterns);
    expect(patterns.length).toBeGreaterThan(300);
    const unfiled = patterns.filter((p) => globKey(p) === null);
    expect(unfiled.length / patterns.length).toBeLessThan(0.5);
    expect(globKey("**/.git/**")).toEqual({ kind: "segment", key: new TextEncoder().encode(".git") });
    expect(globKey("**/*.pem")?.kind).toBe("tail");
    expect(globKey("**/id_rsa*")?.kind).toBe("head");
    expect(globKey("~/.ssh/*")).toBeNull();
    expect(globKey("**/*:*")).toBeNull();
  });

  test("decides every call as the lists walked whole", () => {
    const paths = [...new Set(indexedSets(shipped).flatMap((s) => s.patterns.flatMap(valuesOf)))];
    expect(paths.length).toBeGreaterThan(1000);
    const calls: Array<[string, unknown]> = paths.flatMap((path): Array<[string, unknown]> => [
      ["write_file", { path, content: "x" }],
      ["read_file", { path }],
      ["patch", { mode: "patch", patch: `*** Begin Patch\n*** Update File: ${path}\n@@\n-a\n+b\n*** End Patch\n` }],
      ["terminal", { command: `cat ${path} > out.txt` }],
    ]);
    const indexed = decisions(shipped, calls);
    const whole = decisions(withIndex(shipped, [0]), calls);
    expect(indexed.filter((d) => d.startsWith("allow")).length).toBeGreaterThan(100);
    expect(indexed.filter((d) => !d.startsWith("allow")).length).toBeGreaterThan(1000);
    const differing = calls.filter((_, i) => indexed[i] !== whole[i]).map(([tool, args], i) => [tool, args, indexed[i], whole[i]]);
    expect(differing).toEqual([]);
  });
});

describe("the verifier of the glob index", () => {
  const POLICY = `
version: 1
name: index-fixture
defaults: {"*": allow}
tools:
  - {name: write_file, capability: file.write, risk: write, args: {path: written}}
rules:
  - id: guarded
    effect: block
    capability: [file.write]
    when:
      write: {glob: ["/etc/passwd", "~/.ssh/*", "**/*.pem", "**/id_rsa*", "**/.git/**", "**/*:*", "/srv/k**.pem"]}
`;
  const FNV = (text: string) => {
    let h = 0x811c9dc5;
    for (const b of new TextEncoder().encode(text)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
    return h;
  };
  let good: Uint8Array;
  let set: number;
  beforeAll(() => {
    good = compileYaml(POLICY);
    set = indexedSets(good).find((s) => s.patterns.length === 7)!.set;
  });

  // One index for the fixture's set: (segments, heads, tails, rest) as (key, member) and members.
  function index(segments: Array<[string, number]>, heads: Array<[string, number]>, tails: Array<[string, number]>,
                 rest: number[]): number[] {
    const pairs = (list: Array<[string, number]>) => list.map(([k, m]) => [FNV(k), m] as [number, number])
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]).flat();
    const lengths = (list: Array<[string, number]>) => list.reduce((m, [k]) => m | (1 << (Math.min(new TextEncoder().encode(k).length, 32) - 1)), 0) >>> 0;
    return [1, set, 12, segments.length, heads.length, tails.length, rest.length, lengths(segments), lengths(heads), lengths(tails),
      ...pairs(segments), ...pairs(heads), ...pairs(tails), ...rest];
  }
  const SOUND: Parameters<typeof index> = [[["passwd", 0], [".git", 4], ["srv", 6]], [["id_rsa", 3]], [[".pem", 2]], [1, 5]];
  const SEGMENTS: Array<[string, number]> = [["passwd", 0], [".git", 4], ["srv", 6]];

  test("accepts the compiler's index and a sound one built by hand, which decide alike", () => {
    expect(fence.load(good).ok).toBe(true);
    expect(fence.load(withIndex(good, index(...SOUND)))).toMatchObject({ ok: true });
    expect(decisions(withIndex(good, index(...SOUND)), [["write_file", { path: "/a/.git/config" }], ["write_file", { path: "/a/b.pem" }]]))
      .toEqual(["block rule_block guarded", "block rule_block guarded"]);
  });

  test.each([
    ["a literal pattern under its file name's tail", [[[".git", 4], ["srv", 6]], [["id_rsa", 3]], [[".pem", 2], ["passwd", 0]], [1, 5]]],
    ["a pattern in a constant's form under a segment", [[...SEGMENTS, [".ssh", 1]], [["id_rsa", 3]], [[".pem", 2]], [5]]],
    ["a key the pattern lacks", [[["passwd", 0], [".gid", 4], ["srv", 6]], [["id_rsa", 3]], [[".pem", 2]], [1, 5]]],
    ["a head longer than the pattern's", [SEGMENTS, [["id_rsa_", 3]], [[".pem", 2]], [1, 5]]],
    ["a tail beside a `**` in the file name", [[["passwd", 0], [".git", 4]], [["id_rsa", 3]], [[".pem", 2], [".pem", 6]], [1, 5]]],
    ["a key from the middle of a file name", [SEGMENTS, [["id_rsa", 3]], [[".pem", 2], [":", 5]], [1]]],
    ["a member filed twice", [SEGMENTS, [["id_rsa", 3]], [[".pem", 2]], [1, 1]]],
    ["a member out of range", [SEGMENTS, [["id_rsa", 3]], [[".pem", 2]], [1, 7]]],
  ] as Array<[string, Parameters<typeof index>]>)("rejects %s", (_, lists) => {
    const r = fence.load(withIndex(good, index(...lists)));
    expect(r.ok).toBe(false);
    expect(r.text).toMatch(/^GLOB_INDEX at offset \d+: an entry files a member twice, out of order or under a key it lacks, set \d+/);
  });

  test("rejects an index that leaves a member out, one out of order, and one of a set that is no LIST", () => {
    const missing = index(SEGMENTS, [["id_rsa", 3]], [[".pem", 2]], [1]);
    expect(fence.load(withIndex(good, missing)).text).toMatch(/an index must file every member of its set once/);
    const swapped = index(...SOUND);
    [swapped[10], swapped[11], swapped[12], swapped[13]] = [swapped[12], swapped[13], swapped[10], swapped[11]];
    expect(fence.load(withIndex(good, swapped)).text).toMatch(/out of order/);
    const unlisted = index(...SOUND);
    unlisted[7] &= ~(1 << 3); // no segment of 4 bytes: ".git" is filed where no lookup goes
    expect(fence.load(withIndex(good, unlisted)).text).toMatch(/under a key it lacks/);
    const afb = readAfb(good);
    const keys = afb.sets.findIndex((s) => s.kind !== 2);
    const notList = index(...SOUND);
    notList[1] = keys;
    expect(fence.load(withIndex(good, notList)).text).toMatch(/indexed set: set \d+ is not a LIST set/);
  });
});
