// `disasm`: the installed policy as readable text.
import { expect, test } from "vitest";
import { FORMAT_VERSION } from "../../bytecode/format";
import { compileYaml } from "./bytecode";
import { loadFence } from "../../host-js/host";
import { fenceWasm } from "./wasm";

const POLICY = `version: 1
name: shown
defaults: {read: allow, "*": ask}
tools:
  - name: read_file
    capability: file.read
    risk: read
    args: {path: path}
  - name: "web_*"
    capability: net.fetch
    risk: egress
    args: {url: url}
rules:
  - id: no-ssh
    effect: block
    capability: [file.read]
    when:
      path: {under: ["~/.ssh"], not: {in_intent: true}}
    reason: credential_path
    message: "{value} holds keys"
  - id: named-site
    effect: allow
    capability: [net.fetch]
    when:
      url: {in_intent: true}
      args.mode: {equals: "get\\n"}
limits: {max_sessions: 7}
`;

test("disasm shows header, sets, tools, classes with their code, rules, classify, intent and settings", () => {
  const f = loadFence(fenceWasm());
  const bytes = compileYaml(POLICY, "shown.yaml");
  expect(f.load(bytes).ok).toBe(true);
  const text = f.disasm();
  const hash = Buffer.from(bytes.subarray(16, 48)).toString("hex");
  expect(text.startsWith(`AgentsFence bytecode, format ${FORMAT_VERSION}, ${bytes.length} bytes, sha256 ${hash}\nstrings `)).toBe(true);
  expect(text).toMatch(/^ {2}set \d+ HASH 1 members, 2 buckets\n {4}"read_file" -> 0$/m);
  expect(text).toMatch(/^ {2}set \d+ KEYS 1 members, 2 buckets\n {4}"~\/\.ssh"$/m);
  expect(text).toMatch(/^ {2}set \d+ LIST 1 members\n {4}"web_\*" -> 1$/m);
  expect(text).toMatch(/^ {2}tool 0 -> class \d+ \(file\.read \/ read\) roles path=path$/m);
  expect(text).toMatch(/^ {2}class 0 \(unknown \/ unknown\) code \d+\.\.\d+$/m);
  expect(text).toMatch(/^ {4}(\d{4}) {2}TEST_UNDER path any set \d+ else -> (\d{4})\n {4}\d{4} {2}TEST_IN_INTENT path any not else -> \2\n {4}\d{4} {2}DECIDE block rule 0 no-ssh\n {4}\2 {2}DECIDE allow default$/m);
  expect(text).toMatch(/TEST_IN_INTENT url all else -> \d{4}\n {4}\d{4} {2}TEST_EQUALS arg "mode" all "get\\n" else -> \d{4}\n {4}\d{4} {2}DECIDE allow rule 1 named-site\n/);
  expect(text).toContain('\n  rule 0 no-ssh block reason credential_path source shown.yaml:');
  expect(text).toContain(' message "{value} holds keys"\n');
  expect(text).toMatch(/^ {2}rule 1 named-site allow reason rule_allow source shown\.yaml:\d+:\d+$/m);
  expect(text).toMatch(/^classify word_map set \d+, role_map set \d+, entries \d+$/m);
  expect(text).toMatch(/^intent negations set \d+, nothing_words set \d+, file_extensions set \d+, verb_map set \d+, negation_cancels set \d+, verbs \d+$/m);
  expect(text).toContain('\nsettings\n  POLICY_NAME "shown"\n');
  expect(text).toMatch(/^ {2}MAX_SESSIONS 7$/m);
  expect(text).toMatch(/^ {2}SHELL_WRAPPERS set \d+$/m);
  expect(text.endsWith("\n")).toBe(true);
});
