// Runs the shared decision vectors (tests/vectors/*.yaml) through fence.wasm in Node. The
// Python host runs the same files (host-python/tests/test_vectors.py): both must reach every
// expected decision, so Node and Python provably agree.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { compilePolicy } from "../compiler/index";
import { loadFence } from "../host-js/host";
import { fenceWasm } from "./evaluator/wasm";
import * as format from "../bytecode/format";

interface Case {
  name: string;
  intent: string[];
  tool: string;
  args: Record<string, unknown>;
  expect: {
    /** One decision, or a list when either is right (an attack asked about or blocked). */
    kind: string | string[]; reason?: string; rule?: string; capability?: string; risk?: string; message_contains?: string;
    /** [subject, value] pairs of the decision record's witness (§8.1), subjects named as in policies. */
    witness?: Array<[string, string]>;
    /** The record's DECISION_MOVES flag: the call may leave the terminal elsewhere. */
    moves?: boolean;
  };
}
interface VectorFile {
  policy: string;
  /** cwd "": the working directory is unknown (§8 configure). fold_case: configure's
   *  CONFIGURE_FOLD_CASE, a file system that compares names ASCII case aside. */
  env: { home: string; cwd: string; fold_case?: boolean };
  /** MCP tools as the host describes them to the fence (name, description, JSON schema). */
  tools?: Array<{ name: string; description?: string; schema?: unknown }>;
  cases: Case[];
}

// Subject numbers (docs/bytecode.md §5.1) by the names policies use: SUBJ_ARG is `args.NAME`.
const SUBJECT_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(format).filter(([k]) => k.startsWith("SUBJ_")).map(([k, v]) => [v, k === "SUBJ_ARG" ? "args" : k.slice(5).toLowerCase()]),
);

const root = path.resolve(__dirname, "..");
const vectorDir = path.join(root, "tests/vectors");

function policyPath(name: string): string {
  const shipped = path.join(root, "policies", name);
  return fs.existsSync(shipped) ? shipped : path.join(vectorDir, "policies", name);
}

for (const file of fs.readdirSync(vectorDir).filter((f) => f.endsWith(".yaml"))) {
  const vectors = parse(fs.readFileSync(path.join(vectorDir, file), "utf8")) as VectorFile;
  describe(`vectors ${file}`, () => {
    const compiled = compilePolicy([{ path: policyPath(vectors.policy) }]);
    if (!compiled.ok) throw new Error(compiled.errors.map((e) => `${e.file}:${e.line}:${e.col}: ${e.message}`).join("\n"));
    const fence = loadFence(fenceWasm());
    expect(fence.load(compiled.bytes).ok).toBe(true);
    const flags = vectors.env.fold_case ? format.CONFIGURE_FOLD_CASE : 0;
    expect(fence.configure(vectors.env.home, vectors.env.cwd, [], flags).ok).toBe(true);
    for (const tool of vectors.tools ?? []) {
      expect(fence.describe(tool.name, tool.description ?? "", tool.schema).ok).toBe(true);
    }

    it.each(vectors.cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
      const session = fence.openSession();
      try {
        for (const message of c.intent) expect(fence.intent(session, message).ok).toBe(true);
        const decision = fence.decide(session, c.tool, JSON.stringify(c.args));
        const { message_contains: fragment, witness, kind, ...fields } = c.expect;
        expect(Array.isArray(kind) ? kind : [kind], decision.message).toContain(decision.kind);
        expect(decision).toMatchObject(fields);
        if (fragment !== undefined) expect(decision.message).toContain(fragment);
        if (witness !== undefined) expect(decision.witness.map(([s, v]) => [SUBJECT_NAMES[s], v])).toEqual(witness);
      } finally {
        fence.closeSession(session);
      }
    });
  });
}
