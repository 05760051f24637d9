// Verification: every byte string is either rejected with a reason naming where, or installed
// and safe to evaluate. Mutations re-hash the file to get past the hash to the structural checks.
import { beforeAll, describe, expect, test } from "vitest";
import { compilePolicy } from "../../compiler/index";
import {
  FORMAT_VERSION, HEADER_SIZE, OP_DECIDE, OP_TEST_GLOB, OP_TEST_IN_INTENT, OP_TEST_UNDER, SEC_CLASSES,
  SEC_CODE, SEC_RULES, SEC_SETS, SEC_SETTINGS, SEC_STRINGS, SEC_TOOLS, SETKIND_HASH, SETKIND_KEYS, SUBJ_EMAIL,
  ROLE_MAX,
  SUBJECT_COUNT,
} from "../../bytecode/format";
import { SECTION_COUNT, compileYaml, rehash, sectionAt, setU32, u32 } from "./bytecode";
import { type Fence, loadFence } from "../../host-js/host";
import { fenceWasm } from "./wasm";

const POLICY = `
version: 1
name: verify-fixture
defaults: {read: allow, "*": ask}
tools:
  - name: read_file
    capability: file.read
    risk: read
    args: {path: path}
  - name: send_mail
    capability: email.send
    risk: send
    args: {to: email}
rules:
  - id: no-ssh
    effect: block
    capability: [file.read]
    when:
      path: {under: ["~/.ssh", "~/.aws"]}
  - id: mail-evil
    effect: ask
    capability: [email.send]
    when:
      email: {glob: ["*@evil.example", "*@worse.example"]}
  - id: mail-named
    effect: allow
    capability: [email.send]
    when:
      email: {in_intent: true}
`;

let wasm: Uint8Array<ArrayBuffer>;
let good: Uint8Array;
let fence: Fence;

beforeAll(() => {
  wasm = fenceWasm();
  good = compileYaml(POLICY);
  fence = loadFence(wasm);
});

const copy = () => good.slice();

// Moves a key of the first non-empty set of `kind` (buckets of `stride` bytes) one bucket
// before where it hashes: a key right after an empty bucket sits where it hashes, and one
// bucket earlier its probe never reaches it.
function moveKeyOutOfProbe(b: Uint8Array, kind: number, stride: number): void {
  let s = 0;
  while (b[setOffset(b, s)] !== kind || u32(b, setOffset(b, s) + 4) === 0) s++;
  const at = setOffset(b, s);
  const buckets = u32(b, at + 8);
  const full = (j: number) => u32(b, at + 12 + stride * (j % buckets)) !== 0;
  let j = 1;
  while (!(full(j) && !full(j - 1))) j++;
  setU32(b, at + 12 + stride * (j - 1), u32(b, at + 12 + stride * j));
  setU32(b, at + 12 + stride * j, 0);
}

// Instruction i of CODE: its file offset.
function insn(bytes: Uint8Array, i: number): number {
  return sectionAt(bytes, SEC_CODE) + 4 + 16 * i;
}

function findInsn(bytes: Uint8Array, op: number): number {
  const n = u32(bytes, sectionAt(bytes, SEC_CODE));
  for (let i = 0; i < n; i++) if (bytes[insn(bytes, i)] === op) return i;
  throw new Error(`no instruction ${op}`);
}

function setOffset(bytes: Uint8Array, s: number): number {
  const at = sectionAt(bytes, SEC_SETS);
  return at + u32(bytes, at + 4 + 4 * s);
}

function rejects(bytes: Uint8Array, reason: RegExp): void {
  const r = fence.load(bytes);
  expect(r.ok).toBe(false);
  expect(r.text).toMatch(reason);
}

describe("verification", () => {
  test("accepts the compiled fixture and the shipped policy, answering name and hash", () => {
    const r = fence.load(good);
    expect(r.ok).toBe(true);
    expect(r.text).toBe(`verify-fixture\t${Buffer.from(good.subarray(16, 48)).toString("hex")}`);
    const shipped = compilePolicy([{ path: "policies/defaults.yaml" }]);
    if (!shipped.ok) throw new Error("the shipped policy does not compile");
    expect(fence.load(shipped.bytes)).toEqual({ ok: true, text: `hermes-defaults\t${shipped.hash}` });
  });

  test("the SHA-256 agrees with the compiler's for files of every length modulo 64", () => {
    const tails = new Set<number>();
    for (let n = 1; n <= 64; n++) {
      const bytes = compileYaml(`version: 1\nname: ${"n".repeat(n)}\n`);
      tails.add(bytes.length % 64);
      expect(fence.load(bytes).ok, `name of ${n} bytes`).toBe(true);
    }
    expect(tails.size).toBe(16); // the files are 4-byte aligned: every tail a block can have
  });

  test("rejects every truncation", () => {
    for (let n = 0; n < good.length; n++) {
      const r = fence.load(good.subarray(0, n));
      expect(r.ok, `length ${n}`).toBe(false);
      expect(r.text, `length ${n}`).toMatch(/^header at offset \d+: /);
    }
  });

  test("rejects every single-bit flip", () => {
    for (let i = 0; i < good.length; i++) {
      const bytes = copy();
      bytes[i] ^= 1 << i % 8;
      const r = fence.load(bytes);
      expect(r.ok, `byte ${i}`).toBe(false);
    }
  });

  test("names the header fault", () => {
    const bad = (mutate: (b: Uint8Array) => void) => {
      const b = copy();
      mutate(b);
      return rehash(b);
    };
    rejects(bad((b) => (b[0] = 0x58)), /^header at offset 0: bad magic/);
    rejects(bad((b) => (b[4] = FORMAT_VERSION + 1)), new RegExp(`^header at offset 4: unsupported format version ${FORMAT_VERSION + 1}`));
    rejects(bad((b) => (b[6] = 1)), /^header at offset 6: flags must be 0/);
    rejects(bad((b) => setU32(b, 8, b.length + 4)), /total length field says/);
    rejects(bad((b) => setU32(b, 12, 8)), new RegExp(`section count must be ${SECTION_COUNT}, found 8`));
    rejects(bad((b) => setU32(b, HEADER_SIZE + 12, 3)), /directory entry lists kind 3, expected 2/);
    rejects(bad((b) => setU32(b, HEADER_SIZE + 4, sectionAt(b, SEC_STRINGS) + 2)), /not 4-byte aligned/);
    rejects(bad((b) => setU32(b, HEADER_SIZE + 12 + 4, sectionAt(b, SEC_STRINGS))), /section overlaps section 1: 2/);
    rejects(bad((b) => setU32(b, HEADER_SIZE + 8, 0xfffffff0)), /section lies outside the file/);
    const b = copy();
    b[20] ^= 0x80;
    rejects(b, /^header at offset 16: SHA-256 mismatch/);
  });

  test("names the section, offset and fault of structural damage", () => {
    const cases: Array<[string, (b: Uint8Array) => void, RegExp]> = [
      ["backward jump", (b) => {
        const i = findInsn(b, OP_TEST_UNDER);
        setU32(b, insn(b, i) + 12, i);
      }, /^CODE at offset \d+: instruction \d+ jumps backward \(to \d+\)$/],
      ["jump past the class", (b) => {
        const i = findInsn(b, OP_TEST_UNDER);
        setU32(b, insn(b, i) + 12, 10_000);
      }, /instruction \d+ jumps past the end of class \d+ \(to 10000\)/],
      ["string index out of range", (b) => setU32(b, sectionAt(b, SEC_RULES) + 4, 0xfff0), /^RULES at offset \d+: rule id: string index 65520 out of range/],
      ["set index out of range", (b) => setU32(b, insn(b, findInsn(b, OP_TEST_UNDER)) + 8, 999), /^CODE at offset \d+: test operand: set index 999 out of range/],
      ["bad opcode", (b) => (b[insn(b, findInsn(b, OP_TEST_UNDER))] = 0x1d), /unknown opcode, instruction \d+/],
      ["reserved byte", (b) => (b[insn(b, 0) + 3] = 1), /reserved byte must be zero/],
      ["bad subject for the test", (b) => (b[insn(b, findInsn(b, OP_TEST_UNDER)) + 1] = SUBJ_EMAIL), /this test does not apply to this subject/],
      ["unknown subject", (b) => (b[insn(b, findInsn(b, OP_TEST_UNDER)) + 1] = SUBJECT_COUNT), /unknown subject/],
      ["unknown flag", (b) => (b[insn(b, findInsn(b, OP_TEST_UNDER)) + 2] = 4), /unknown flag bits/],
      ["arg on a target subject", (b) => setU32(b, insn(b, findInsn(b, OP_TEST_UNDER)) + 4, 0), /arg must be NONE/],
      ["wrong set kind", (b) => {
        const glob = insn(b, findInsn(b, OP_TEST_GLOB));
        setU32(b, glob + 8, u32(b, insn(b, findInsn(b, OP_TEST_UNDER)) + 8));
      }, /test operand: set \d+ is not a LIST set/],
      ["a map where a set is wanted", (b) => {
        const exactMap = u32(b, sectionAt(b, SEC_TOOLS));
        setU32(b, insn(b, findInsn(b, OP_TEST_UNDER)) + 8, exactMap);
      }, /test operand: set \d+ is not a KEYS set/],
      ["IN_INTENT operand", (b) => setU32(b, insn(b, findInsn(b, OP_TEST_IN_INTENT)) + 8, 5), /IN_INTENT operand must be 0, 1, 2, 3 or 4/],
      ["DECIDE effect differs from its rule", (b) => {
        const i = findInsn(b, OP_DECIDE);
        const at = insn(b, i);
        b[at + 2] = u32(b, at + 8) === 0xffffffff ? 4 : (b[at + 2] + 1) % 3;
      }, /DECIDE|class default/],
      ["DECIDE names no rule", (b) => setU32(b, insn(b, findInsn(b, OP_TEST_UNDER) + 1) + 8, 77), /DECIDE names a rule out of range/],
      ["class range does not end in DECIDE", (b) => {
        const c = sectionAt(b, SEC_CLASSES) + 4 + 16; // class 1
        setU32(b, c + 12, u32(b, c + 12) - 1);
      }, /ends class 1 but is not the class default's DECIDE|jumps past the end|empty code range/],
      ["empty class range", (b) => setU32(b, sectionAt(b, SEC_CLASSES) + 4 + 12, 0), /^CLASSES at offset \d+: empty code range, class 0/],
      ["class range outside CODE", (b) => setU32(b, sectionAt(b, SEC_CLASSES) + 4 + 8, 0xfffffff0), /code range outside CODE/],
      ["class 0 not unknown", (b) => {
        const c1 = sectionAt(b, SEC_CLASSES) + 4 + 16;
        setU32(b, sectionAt(b, SEC_CLASSES) + 4, u32(b, c1));
      }, /class 0 must be unknown/],
      ["tool class out of range", (b) => setU32(b, sectionAt(b, SEC_TOOLS) + 12, 500), /tool class 500 is out of range/],
      ["unknown tool flags", (b) => setU32(b, sectionAt(b, SEC_TOOLS) + 24, 1), /unknown tool flags 1/],
      ["role out of range", (b) => {
        const t = sectionAt(b, SEC_TOOLS);
        const roles = t + 12 + 16 * u32(b, t + 8);
        setU32(b, roles + 8, ROLE_MAX + 1);
      }, new RegExp(`unknown argument role ${ROLE_MAX + 1}`)],
      ["unsorted settings", (b) => {
        const s = sectionAt(b, SEC_SETTINGS) + 4;
        const [k2, v2, k3, v3] = [u32(b, s + 8), u32(b, s + 12), u32(b, s + 16), u32(b, s + 20)];
        setU32(b, s + 8, k3); setU32(b, s + 12, v3); setU32(b, s + 16, k2); setU32(b, s + 20, v2);
      }, /^SETTINGS at offset \d+: (keys are not sorted|key missing)/],
      ["repeated setting", (b) => setU32(b, sectionAt(b, SEC_SETTINGS) + 4 + 8, 1), /keys are not sorted or repeat, key 1/],
      ["setting out of range", (b) => setU32(b, sectionAt(b, SEC_SETTINGS) + 4 + 8 * 2 + 4, 0), /value 0 out of range for key 3/],
      ["shell set of the wrong kind", (b) => {
        const glob = u32(b, insn(b, findInsn(b, OP_TEST_GLOB)) + 8);
        setU32(b, sectionAt(b, SEC_SETTINGS) + 4 + 8 * 7 + 4, glob);
      }, /shell program set: set \d+ is not a KEYS set/],
      ["invalid UTF-8 in a string", (b) => {
        const s = sectionAt(b, SEC_STRINGS);
        const blob = s + 4 + 4 * (u32(b, s) + 1);
        b[blob] = 0xff;
      }, /^STRINGS at offset \d+: invalid UTF-8 in string 0/],
      ["string offsets out of order", (b) => setU32(b, sectionAt(b, SEC_STRINGS) + 8, 0xffff), /offset out of order or past the blob/],
      ["unknown set kind", (b) => (b[setOffset(b, 0)] = 4), /unknown set kind, set 0/],
      ["bucket count not a power of two", (b) => {
        let s = 0;
        while (b[setOffset(b, s)] !== SETKIND_HASH) s++;
        setU32(b, setOffset(b, s) + 8, u32(b, setOffset(b, s) + 8) - 1);
      }, /bucket_count must be a power of two/],
      ["member count wrong", (b) => {
        let s = 0;
        while (b[setOffset(b, s)] !== SETKIND_HASH) s++;
        setU32(b, setOffset(b, s) + 4, u32(b, setOffset(b, s) + 4) + 1);
      }, /member_count does not match|bucket_count must be/],
      ["a HASH key moved out of its probe", (b) => moveKeyOutOfProbe(b, SETKIND_HASH, 8), /key is not reachable by the hash probe, set \d+$/],
      ["a KEYS key moved out of its probe", (b) => moveKeyOutOfProbe(b, SETKIND_KEYS, 4), /key is not reachable by the hash probe, set \d+$/],
    ];
    for (const [name, mutate, reason] of cases) {
      const b = copy();
      mutate(b);
      const r = fence.load(rehash(b));
      expect(r.ok, name).toBe(false);
      expect(r.text, name).toMatch(reason);
    }
  });

  test("rejects huge counts without reading past the file", () => {
    const counts: Array<[string, (b: Uint8Array) => number]> = [
      ["strings", (b) => sectionAt(b, SEC_STRINGS)],
      ["sets", (b) => sectionAt(b, SEC_SETS)],
      ["tools", (b) => sectionAt(b, SEC_TOOLS) + 8],
      ["classes", (b) => sectionAt(b, SEC_CLASSES)],
      ["rules", (b) => sectionAt(b, SEC_RULES)],
      ["code", (b) => sectionAt(b, SEC_CODE)],
      ["settings", (b) => sectionAt(b, SEC_SETTINGS)],
      ["hash set members", (b) => setOffset(b, 0) + 4],
      ["hash set buckets", (b) => setOffset(b, 0) + 8],
    ];
    for (const [name, at] of counts) {
      for (const huge of [0xffffffff, 0x80000000, 0x40000000, 0x10000001]) {
        const b = copy();
        setU32(b, at(b), huge);
        const r = fence.load(rehash(b));
        expect(r.ok, `${name} = ${huge}`).toBe(false);
      }
    }
  });

  test("a rejected file leaves the installed policy in force", () => {
    expect(fence.load(good).ok).toBe(true);
    fence.configure("/home/u", "/home/u/work");
    const before = fence.disasm();
    expect(fence.load(good.subarray(0, 100)).ok).toBe(false);
    expect(fence.disasm()).toBe(before);
    expect(fence.decide(0, "read_file", { path: "/home/u/.ssh/id" }).kind).toBe("block");
  });

  test("random damage after re-hashing is rejected or evaluates without a trap", () => {
    let seed = 12345;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    let accepted = 0;
    for (let round = 0; round < 3000; round++) {
      const b = copy();
      const edits = 1 + rand(4);
      for (let e = 0; e < edits; e++) {
        const at = HEADER_SIZE + rand(b.length - HEADER_SIZE);
        b[at] = rand(3) === 0 ? 0xff : rand(256);
      }
      const r = fence.load(rehash(b));
      expect(r.text.length).toBeGreaterThan(0);
      if (!r.ok) continue;
      accepted++;
      const h = fence.openSession();
      fence.intent(h, "mail bob@example.com about ~/.ssh/config");
      for (const [tool, args] of [["read_file", { path: "~/.ssh/id" }], ["send_mail", { to: ["a@evil.example", "bob@example.com"] }], ["x", {}]] as const) {
        const d = fence.decide(h, tool, args);
        expect(["allow", "block", "ask", "confine"]).toContain(d.kind);
      }
      fence.disasm();
    }
    expect(accepted).toBeGreaterThan(0);
  });
});
