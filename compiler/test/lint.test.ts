// Warnings for selectors and globs that compile but cannot mean what was written, each at the
// node it is about and with the nearest known name; the shipped policies and examples have none.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli";
import { compilePolicy, formatDiagnostic } from "../index";
import { didYouMean, editDistance, HERMES_TOOLS } from "../lint";

const root = path.resolve(__dirname, "../..");
const FILE = "policies/x.yaml";

function warningsOf(text: string): string[] {
  const result = compilePolicy([{ path: FILE, text }]);
  if (!result.ok) throw new Error(`expected the policy to compile: ${result.errors.map(formatDiagnostic).join("; ")}`);
  return result.warnings.map(formatDiagnostic);
}

const policy = (rules: string) => `version: 1\nname: x\nextends: [defaults]\nrules:\n${rules}`;

describe("check's warnings on names and globs", () => {
  it("names a tool no tool has, with the nearest one", () => {
    expect(warningsOf(policy("  - {id: a, effect: block, tool: [write_fle]}\n"))).toContain(
      'policies/x.yaml:5:35: no tool of Hermes 0.19.0 or of this policy is named "write_fle" (did you mean "write_file"?)'
        + " (a tool of another plugin: map it under tools: to keep this warning away)",
    );
  });

  it("takes Hermes' tools, the policy's own tools and MCP names as known", () => {
    const text = [
      "version: 1", "name: x", "extends: [defaults]",
      "tools:", "  - {name: crm_update, capability: crm.write, risk: write}",
      "rules:",
      "  - {id: a, effect: ask, tool: [kanban_create, crm_update, mcp__github__create_issue, browser_*]}", "",
    ].join("\n");
    expect(warningsOf(text)).toEqual([]);
    expect(warningsOf(policy("  - {id: a, effect: ask, tool: [nothing_like_it_*]}\n"))).toEqual([
      'policies/x.yaml:5:33: tool selector "nothing_like_it_*" matches no tool of Hermes 0.19.0 or of this policy',
    ]);
  });

  it("names a risk class and a capability no class has", () => {
    const warnings = warningsOf(policy("  - {id: a, effect: ask, risk: [writes], capability: [fil.write]}\n"));
    expect(warnings).toContain(
      'policies/x.yaml:5:33: no tool class of this policy has the risk class "writes" (did you mean "write"?) '
        + "(risk classes: read, write, exec, egress, send, internal, delegate, persist, destructive)",
    );
    expect(warnings).toContain('policies/x.yaml:5:55: capability "fil.write" matches no tool class of this policy (did you mean "file.write"?)');
    const budget = "version: 1\nname: x\nextends: [defaults]\nbudgets:\n  - {id: b, risk: [sennd], limit: 3}\n";
    expect(warningsOf(budget)).toContain(
      'policies/x.yaml:5:20: no tool class of this policy has the risk class "sennd" (did you mean "send"?) '
        + "(risk classes: read, write, exec, egress, send, internal, delegate, persist, destructive)",
    );
  });

  it("names a glob with an unclosed { or [, or a list the fence does not expand", () => {
    const rule = (glob: string) => policy(`  - id: a\n    effect: allow\n    tool: [write_file]\n    when:\n      path: {glob: ["${glob}"]}\n`);
    expect(warningsOf(rule("**/*.{md,txt"))).toEqual([
      'policies/x.yaml:9:21: glob "**/*.{md,txt" has an unclosed {: it matches only names with a literal {',
    ]);
    expect(warningsOf(rule("**/*.{md,txt}"))[0]).toContain("has a list {md,txt}, which the fence's globs do not expand");
    expect(warningsOf(rule("**/*.[ch"))[0]).toContain("has an unclosed [");
    expect(warningsOf(rule("**/*.[ch]"))[0]).toContain("has a bracket [ch]");
    expect(warningsOf(rule("${HOME}/notes/**"))).toEqual([]);
    const negated = policy(`  - id: a\n    effect: block\n    tool: [write_file]\n    when:\n      path: {not: {glob: ["/srv/{a"]}}\n`);
    expect(warningsOf(negated)).toEqual(['policies/x.yaml:9:27: glob "/srv/{a" has an unclosed {: it matches only names with a literal {']);
  });

  it("finds no such warning in the shipped policies and the examples", () => {
    const files = [
      ...fs.readdirSync(path.join(root, "policies")).filter((f) => f.endsWith(".yaml")).map((f) => path.join(root, "policies", f)),
      ...fs.readdirSync(path.join(root, "examples")).flatMap((d) => {
        const dir = path.join(root, "examples", d);
        return fs.statSync(dir).isDirectory() ? fs.readdirSync(dir).filter((f) => f.endsWith(".yaml") && !f.endsWith(".test.yaml")).map((f) => path.join(dir, f)) : [];
      }),
    ];
    expect(files.length).toBeGreaterThan(2);
    for (const file of files) {
      const result = compilePolicy([{ path: file }]);
      expect(result.ok ? result.warnings.map(formatDiagnostic) : result.errors.map(formatDiagnostic), file).toEqual([]);
    }
  });

  it("fails check --strict on a warning, and passes check without it", () => {
    const dir = fs.mkdtempSync(path.join(require("node:os").tmpdir(), "agentsfence-lint-"));
    const file = path.join(dir, "policy.yaml");
    fs.writeFileSync(file, policy("  - {id: a, effect: block, tool: [write_fle]}\n"));
    const out = { stdout: "", stderr: "" };
    const sink = { stdout: (t: string) => void (out.stdout += t), stderr: (t: string) => void (out.stderr += t) };
    expect(runCli(["check", file], sink)).toBe(0);
    expect(runCli(["check", "--strict", file], sink)).toBe(1);
    expect(out.stdout).toContain("has no errors, 1 warning (--strict: warnings fail the check)");
    fs.rmSync(dir, { recursive: true });
  });
});

describe("did you mean", () => {
  it("measures edit distance and keeps to near names", () => {
    expect(editDistance("write_fle", "write_file")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(didYouMean("termnal", HERMES_TOOLS)).toBe(' (did you mean "terminal"?)');
    expect(didYouMean("zzzzzz", HERMES_TOOLS)).toBe("");
  });

  it("holds the tools Hermes registers", () => {
    for (const tool of ["terminal", "write_file", "patch", "read_file", "execute_code", "delegate_task", "browser_navigate"]) {
      expect(HERMES_TOOLS).toContain(tool);
    }
  });
});
