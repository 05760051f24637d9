// Runs the examples of the documentation, so they cannot drift from what the compiler and the
// evaluator do. In README.md and docs/*.md, a fenced block whose info string is
//   `yaml policy`  is a whole policy: it must compile with no error and no warning;
//   `yaml cases`   is a list of policy test cases (docs/policy-tests.md) run against the
//                  policy block above it through fence.wasm;
//   `yaml test-file` is a whole policy test file; its `policy:` is relative to docs/.
// Every policy block is followed by at least one cases block.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { fenceWasm } from "./evaluator/wasm";
import { compilePolicy, formatDiagnostic } from "../compiler/index";
import { runPolicyTests } from "../compiler/policytest";

const root = path.resolve(__dirname, "..");
const defaultsPath = path.join(root, "policies/defaults.yaml");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agentsfence-docs-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Block {
  kind: "policy" | "cases" | "test-file";
  text: string;
  /** file:line of the opening fence. */
  at: string;
}

function examplesOf(file: string): Block[] {
  const lines = fs.readFileSync(path.join(root, file), "utf8").split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```yaml (policy|cases|test-file)\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.indexOf("```", i + 1);
    if (end < 0) throw new Error(`${file}:${i + 1}: the block never closes`);
    blocks.push({ kind: open[1] as Block["kind"], text: lines.slice(i + 1, end).join("\n") + "\n", at: `${file}:${i + 1}` });
    i = end;
  }
  return blocks;
}

const docs = ["README.md", ...fs.readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const wasm = fenceWasm();

function runCases(file: string, at: string, policy?: string) {
  const result = runPolicyTests(file, { wasm, defaultsPath, policy });
  expect(result.errors.map(formatDiagnostic), at).toEqual([]);
  const failures = result.cases
    .filter((c) => c.problems.length > 0)
    .map((c) => {
      const step = c.step ? ` (step ${c.step.number} of ${c.step.of})` : "";
      const got = c.decision ? ` (got ${c.decision.kind} [${c.decision.reason}] ${c.decision.rule}: ${c.decision.message})` : "";
      return `${c.name}${step}: ${c.problems.join("; ")}${got}`;
    });
  expect(failures, at).toEqual([]);
  expect(result.cases.length).toBeGreaterThan(0);
}

describe("documentation examples", () => {
  it("has examples to run", () => {
    const counts = docs.flatMap(examplesOf).reduce<Record<string, number>>((n, b) => ({ ...n, [b.kind]: (n[b.kind] ?? 0) + 1 }), {});
    expect(counts.policy).toBeGreaterThanOrEqual(10);
    expect(counts.cases).toBeGreaterThanOrEqual(counts.policy);
  });

  for (const doc of docs) {
    let policyFile: string | undefined;
    let policyHasCases = true;
    examplesOf(doc).forEach((block, n) => {
      if (block.kind === "policy") {
        if (!policyHasCases) it(`the policy before ${block.at} has a cases block`, () => expect.fail("it has none"));
        policyFile = path.join(tmp, `${doc.replace(/\W/g, "_")}-${n}.yaml`);
        fs.writeFileSync(policyFile, block.text);
        policyHasCases = false;
        const file = policyFile;
        it(`${block.at}: the policy compiles with no error and no warning`, () => {
          const result = compilePolicy([{ path: file }], { defaultsPath });
          expect(result.ok ? [] : result.errors.map(formatDiagnostic), block.at).toEqual([]);
          expect(result.warnings.map(formatDiagnostic), block.at).toEqual([]);
        });
      } else if (block.kind === "cases") {
        const policy = policyFile;
        policyHasCases = true;
        it(`${block.at}: the cases hold`, () => {
          expect(policy, `${block.at}: no policy block above it`).toBeDefined();
          const file = path.join(tmp, `${doc.replace(/\W/g, "_")}-${n}.test.yaml`);
          fs.writeFileSync(file, stringify({ policy, cases: parse(block.text) }));
          runCases(file, block.at);
        });
      } else {
        it(`${block.at}: the test file passes`, () => {
          const file = path.join(tmp, `${doc.replace(/\W/g, "_")}-${n}.test.yaml`);
          fs.writeFileSync(file, block.text);
          runCases(file, block.at, path.resolve(root, "docs", parse(block.text).policy));
        });
      }
    });
    if (!policyHasCases) it(`${doc}: its last policy example has a cases block`, () => expect.fail("it has none"));
  }
});
