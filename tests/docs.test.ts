// Runs the examples of the documentation, so they cannot drift from what the compiler and the
// evaluator do. In README.md and docs/*.md, a fenced block whose info string is
//   `yaml policy`  is a whole policy: it must compile with no error and no warning;
//   `yaml cases`   is a list of policy test cases (docs/policy-tests.md) run against the
//                  policy block above it through fence.wasm;
//   `yaml test-file` is a whole policy test file; its `policy:` is relative to docs/, or, for a
//                  file written beside the policy block above it (below), that block.
// Every policy block is followed by at least one cases block, or a test file beside it.
//
// In README.md every shell and YAML block runs or compiles. Shell blocks (`sh`) run in order,
// each with `bash -e -o pipefail`, as a user with an existing Hermes that has the plugin enabled
// (the state the Install section leaves), in a project folder with a package.json, a Makefile
// and notes.txt; `~` is a fresh home, and `agentsfence` and `hermes` are the checkout's. A line
// `<!-- docs-test: ... -->` just above a block says:
//   `file PATH`        the YAML block is saved there (as the text tells the reader to), in order;
//   `exit status N`    the block's last command exits N (explain's status is its decision's);
//   `not run here: WHY` the block is not run by this file, and WHY says what runs it instead.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
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
  kind: "policy" | "cases" | "test-file" | "sh" | "other";
  /** The info string of the opening fence. */
  info: string;
  text: string;
  /** file:line of the opening fence. */
  at: string;
  /** What the `<!-- docs-test: ... -->` line above it says, if there is one. */
  mark?: string;
}

const YAML_KINDS: Record<string, Block["kind"]> = { "yaml policy": "policy", "yaml cases": "cases", "yaml test-file": "test-file" };

function blocksOf(file: string): Block[] {
  const lines = fs.readFileSync(path.join(root, file), "utf8").split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S.*?)?\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.indexOf("```", i + 1);
    if (end < 0) throw new Error(`${file}:${i + 1}: the block never closes`);
    const info = open[1] ?? "";
    const kind = YAML_KINDS[info] ?? (/^(sh|bash|shell)$/.test(info) ? "sh" : "other");
    const mark = /^<!-- docs-test: (.*) -->$/.exec(lines[i - 1] ?? "")?.[1];
    blocks.push({ kind, info, text: lines.slice(i + 1, end).join("\n") + "\n", at: `${file}:${i + 1}`, mark });
    i = end;
  }
  return blocks;
}

function examplesOf(file: string): Block[] {
  return blocksOf(file).filter((b) => b.kind === "policy" || b.kind === "cases" || b.kind === "test-file");
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
    expect(counts.cases + counts["test-file"]).toBeGreaterThanOrEqual(counts.policy);
  });

  for (const doc of docs) {
    let policyFile: string | undefined;
    let policyMark: string | undefined;
    let policyHasCases = true;
    examplesOf(doc).forEach((block, n) => {
      if (block.kind === "policy") {
        policyMark = block.mark;
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
        const policy = policyFile;
        const besidePolicy = block.mark?.startsWith("file ") && policyMark?.startsWith("file ")
          && path.dirname(block.mark.slice(5)) === path.dirname(policyMark.slice(5));
        if (besidePolicy) policyHasCases = true;
        it(`${block.at}: the test file passes`, () => {
          const file = path.join(tmp, `${doc.replace(/\W/g, "_")}-${n}.test.yaml`);
          fs.writeFileSync(file, block.text);
          runCases(file, block.at, besidePolicy ? policy : path.resolve(root, "docs", parse(block.text).policy));
        });
      }
    });
    if (!policyHasCases) it(`${doc}: its last policy example has a cases block`, () => expect.fail("it has none"));
  }
});

// ---- README.md: every shell block runs, every YAML block is one of the kinds above ----

const venvBin = path.join(root, ".venv", "bin");
const PROJECT = {
  "package.json": JSON.stringify({ name: "shop", scripts: { test: "vitest run", build: "vite build" } }),
  "package-lock.json": "{}",
  Makefile: "test:\n\tnpm test\n",
  "notes.txt": "Meeting notes: the launch moves to October.\n",
};

describe("README.md, run as written", () => {
  const blocks = blocksOf("README.md");
  const user = path.join(tmp, "readme-user");
  const home = path.join(user, "home");
  const project = path.join(user, "project");
  const env: Record<string, string> = {
    HOME: home, PATH: `${venvBin}${path.delimiter}${process.env.PATH ?? ""}`, LANG: "C.UTF-8", NO_COLOR: "1",
    AGENTSFENCE_CACHE: path.join(user, "cache"), XDG_CACHE_HOME: path.join(user, "cache"),
  };

  it("has shell blocks to run and none of another language unchecked", () => {
    const others = blocks.filter((b) => b.kind === "other" && b.info !== "text");
    expect(others.map((b) => `${b.at}: \`\`\`${b.info}`)).toEqual([]); // a YAML block must be a policy, cases or a test file
    expect(blocks.filter((b) => b.kind === "sh" && b.mark === undefined).length).toBeGreaterThanOrEqual(4);
    for (const b of blocks) {
      const mark = b.mark ?? "";
      expect(/^(file \S+|exit status \d+|not run here: .{20,})?$/.test(mark), `${b.at}: <!-- docs-test: ${mark} -->`).toBe(true);
      if (mark.startsWith("file ")) expect(b.kind, b.at).not.toBe("sh");
    }
  });

  it("sets up a user of an existing Hermes with the plugin enabled, in a project", () => {
    fs.mkdirSync(path.join(home, ".hermes"), { recursive: true });
    fs.mkdirSync(project, { recursive: true });
    for (const [name, text] of Object.entries(PROJECT)) fs.writeFileSync(path.join(project, name), text);
    // What the Install section leaves (tests/e2e/test_wheel.py runs it): the plugin enabled, Hermes
    // kept off the network (no lazy installs, no update check).
    fs.writeFileSync(path.join(home, ".hermes", "config.yaml"),
      "plugins: {enabled: [agentsfence]}\nsecurity: {allow_lazy_installs: false, tirith_enabled: false}\n");
    fs.writeFileSync(path.join(home, ".hermes", ".update_check"), JSON.stringify({ ts: 4e9, rev: null, ver: "0.19.0", behind: 0 }));
    fs.mkdirSync(path.join(home, ".hermes", "agentsfence"));
    expect(fs.existsSync(path.join(venvBin, "agentsfence")), "run make setup first").toBe(true);
  });

  for (const block of blocks) {
    const mark = block.mark ?? "";
    if (mark.startsWith("file ")) {
      it(`${block.at}: is saved as ${mark.slice(5)}`, () => {
        const target = mark.slice(5).replace(/^~(?=\/)/, home);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, block.text);
      });
    } else if (block.kind === "sh" && !mark.startsWith("not run here: ")) {
      const status = mark.startsWith("exit status ") ? Number(mark.slice("exit status ".length)) : 0;
      it(`${block.at}: runs, exit status ${status}`, () => {
        const done = spawnSync("bash", ["-e", "-o", "pipefail", "-c", block.text], {
          cwd: project, env, encoding: "utf8", timeout: 300_000, stdio: ["ignore", "pipe", "pipe"],
        });
        expect(done.status, `${block.at}\n${block.text}\nstdout:\n${done.stdout}\nstderr:\n${done.stderr}`).toBe(status);
      }, 300_000);
    }
  }

  it("decided with the policy the README had the reader write", () => {
    // The last blocks above ran against what the reader saved, not against the shipped policy.
    const policy = fs.readFileSync(path.join(home, ".hermes", "agentsfence", "policy.yaml"), "utf8");
    expect(policy).toContain("name: my-project");
  });
});
