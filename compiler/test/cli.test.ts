// The command line: exit codes, output file, diagnostics as lines or one JSON object; and
// the bundle, run as a program, finding the shipped defaults next to itself.
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, USAGE } from "../cli";
import { compilePolicy } from "../index";
import { readAfb } from "./reader";

const FIXTURES = "compiler/test/fixtures";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agentsfence-cli-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function run(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const status = runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { status, stdout, stderr };
}

function writePolicy(name: string, text: string): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, text);
  return file;
}

describe("runCli", () => {
  it("writes the bytecode and says what it wrote", () => {
    const out = path.join(tmp, "basic.afb");
    const { status, stdout, stderr } = run(`${FIXTURES}/basic.yaml`, "-o", out);
    const expected = compilePolicy([{ path: `${FIXTURES}/basic.yaml` }]);
    if (!expected.ok) throw new Error("fixture does not compile");
    expect(status).toBe(0);
    // The fixture keeps a rule the optimizer drops, and the checker says so.
    expect(stderr).toBe(
      `${FIXTURES}/basic.yaml:69:5: warning: rule "shadowed-allow" can never decide: rule "unconditional-block" ` +
        `(${FIXTURES}/basic.yaml:66:5) runs before it (block rules run before allow rules) and holds whenever it does\n`,
    );
    expect(Buffer.from(fs.readFileSync(out)).equals(Buffer.from(expected.bytes))).toBe(true);
    expect(stdout).toBe(`${out}: ${expected.bytes.length} bytes, policy basic, sha256 ${expected.hash}\n`);
  });

  it("prints errors and warnings as file:line:col lines, exits 1 and writes nothing", () => {
    const bad = writePolicy("bad.yaml", "version: 1\nrules:\n  - {id: a, effect: deny}\n");
    const out = path.join(tmp, "bad.afb");
    const { status, stdout, stderr } = run(bad, "-o", out);
    expect(status).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(`${bad}:3:21: error: effect must be one of allow, block, ask, confine, warn (got "deny")\n`);
    expect(fs.existsSync(out)).toBe(false);
    const warned = writePolicy("warned.yaml", "version: 1\nrules:\n  - {id: a, effect: ask, risk: [nothing]}\n");
    const result = run(warned, "-o", path.join(tmp, "warned.afb"));
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`^${warned}:3:5: warning: rule "a" can never apply`));
  });

  it("answers with one JSON object under --json", () => {
    const out = path.join(tmp, "json.afb");
    const ok = run(`${FIXTURES}/team.yaml`, "-o", out, "--json", "--defaults", `${FIXTURES}/mini-defaults.yaml`);
    expect(ok.status).toBe(0);
    const report = JSON.parse(ok.stdout);
    expect(report).toMatchObject({ ok: true, output: out, size: fs.statSync(out).size, policy: "team", errors: [], warnings: [] });
    expect(report.hash).toMatch(/^[0-9a-f]{64}$/);
    const bad = run(writePolicy("bad2.yaml", "version: 3\n"), "-o", out, "--json");
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout)).toEqual({
      ok: false,
      errors: [{ file: path.join(tmp, "bad2.yaml"), line: 1, col: 10, message: "version must be 1 (got 3)" }],
      warnings: [],
    });
  });

  it("exits 2 on a wrong command line", () => {
    for (const argv of [[], ["x.yaml"], ["x.yaml", "-o"], ["x.yaml", "-o", "y.afb", "--fast"], ["-o", "y.afb"]]) {
      const { status, stderr } = run(...argv);
      expect(status).toBe(2);
      expect(stderr.endsWith(`${USAGE}\n`)).toBe(true);
    }
  });
});

describe("the bundle", () => {
  it("compiles from the command line, reading defaults.yaml next to itself", () => {
    const bundle = path.join(tmp, "bin", "agentsfence-compile.cjs");
    execFileSync(process.execPath, ["compiler/bundle.mjs", bundle]);
    fs.copyFileSync(`${FIXTURES}/mini-defaults.yaml`, path.join(tmp, "bin", "defaults.yaml"));
    const user = writePolicy("user.yaml", "version: 1\nextends: [defaults]\nrules:\n  - {id: mine, effect: block, risk: [read]}\n");
    const out = path.join(tmp, "user.afb");
    const result = spawnSync(process.execPath, [bundle, user, "-o", out, "--json"], { encoding: "utf8" });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, policy: "user" });
    const afb = readAfb(fs.readFileSync(out));
    expect(afb.rules.map((r) => afb.strings[r.id])).toEqual(["defaults-rule", "mine"]);
  });
});
