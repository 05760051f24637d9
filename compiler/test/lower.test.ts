// Lowering: merge order, classes, tool maps, selectors and normal forms in the IR.
import { describe, expect, it } from "vitest";
import {
  CLASSIFY_HINT_DESTRUCTIVE, CLASSIFY_HINT_READ_ONLY, CLASSIFY_READ, CLASSIFY_CHOICES, CLASSIFY_CHOICE_HEADINGS, CLASSIFY_CHOICE_CODES,
  CLASSIFY_OBJECTS_CONTENT, ROLE_HEADING, ROLE_EMAIL, ROLE_PATCH, ROLE_PATH, ROLE_WRITTEN, SUBJ_ARG, SUBJ_EMAIL,
} from "../../bytecode/format";
import { compilePolicy, formatDiagnostic, type LoadOptions, type PolicyIR } from "../index";

const FIXTURES = "compiler/test/fixtures";
const MINI_DEFAULTS = `${FIXTURES}/mini-defaults.yaml`;

function irOf(inputs: Array<{ path: string; text?: string }>, opts: LoadOptions = { defaultsPath: MINI_DEFAULTS }): PolicyIR {
  const result = compilePolicy(inputs, opts);
  if (!result.ok) throw new Error(result.errors.map(formatDiagnostic).join("\n"));
  return result.ir;
}

const classNames = (ir: PolicyIR) => ir.classes.map((c) => `${c.capability}/${c.risk}`);
const ruleIds = (ir: PolicyIR) => ir.rules.map((r) => r.id);

describe("tools", () => {
  const ir = irOf([{ path: `${FIXTURES}/basic.yaml` }]);
  const toolOf = (name: string) => ir.exactTools.find(([n]) => n === name)?.[1];

  it("expands mcp to both spellings of one tool", () => {
    expect(toolOf("mcp__gmail__send_email")).toBeDefined();
    expect(toolOf("mcp_gmail_send_email")).toBe(toolOf("mcp__gmail__send_email"));
    const tool = ir.tools[toolOf("mcp__gmail__send_email")!];
    expect(ir.classes[tool.class]).toMatchObject({ capability: "email.send", risk: "send" });
    expect(tool.roles).toEqual([
      { argPath: "to", role: ROLE_EMAIL },
      { argPath: "cc", role: ROLE_EMAIL },
      { argPath: "message.to", role: ROLE_EMAIL },
    ]);
  });

  it("maps every name of a name list to one tool, and keeps globs apart", () => {
    expect(toolOf("write_file")).toBe(toolOf("patch"));
    expect(ir.tools[toolOf("patch")!].roles).toEqual([
      { argPath: "path", role: ROLE_PATH },
      { argPath: "patch", role: ROLE_PATCH },
    ]);
    expect(ir.globTools).toEqual([["browser_*", 2]]);
  });

  it("expands an mcp glob into two glob patterns, exact names first", () => {
    const globs = irOf([
      { path: "v/mcp.yaml", text: 'version: 1\ntools:\n  - {mcp: {server: s, tool: "get_*"}, capability: s.get, risk: read}\n' },
    ]);
    expect(globs.exactTools).toEqual([]);
    expect(globs.globTools).toEqual([["mcp__s__get_*", 0], ["mcp_s_get_*", 0]]);
  });
});

describe("classes", () => {
  const ir = irOf([{ path: `${FIXTURES}/basic.yaml` }]);

  it("enumerates distinct pairs from tools, then classify verbs, after unknown/unknown", () => {
    expect(classNames(ir)).toEqual([
      "unknown/unknown",
      "file.read/read",
      "file.write/write",
      "browser.act/egress",
      "email.send/send",
      "shell.exec/exec",
      "message.send/send",
      "data.delete/destructive",
    ]);
  });

  it("gives each class defaults[risk], else defaults[*], else ask", () => {
    expect(ir.classes.map((c) => c.defaultEffect)).toEqual(["block", "allow", "block", "block", "ask", "block", "ask", "block"]);
    const bare = irOf([{ path: "v/bare.yaml", text: "version: 1\ntools:\n  - {name: t, capability: a.b, risk: write}\n" }]);
    expect(bare.classes.map((c) => c.defaultEffect)).toEqual(["ask", "ask"]);
  });

  it("builds the classifier: entry classes, first entry wins a word, lower-cased", () => {
    expect(ir.classify.entryClasses).toEqual([6, 7]);
    // entry·2 for a verb (docs/bytecode.md §3 CLASSIFY).
    expect(ir.classify.words).toEqual([["send", 0], ["post", 0], ["share", 0], ["delete", 2], ["remove", 2]]);
    expect(ir.classify.entryFlags).toEqual([0, 0]);
    expect(ir.classify.entryRoles).toEqual([0, 0]);
    expect(ir.classify.trustedServers).toEqual([]);
    expect(ir.classify.argRoles).toEqual([["to", ROLE_EMAIL], ["url", 2], ["path", ROLE_PATH]]);
  });

  it("marks objects, read entries, hints, roles and trusted servers in Hermes' spelling", () => {
    const c = irOf([{ path: "v/c.yaml", text: [
      "version: 1",
      "classify:",
      "  trusted_servers: [my-files, my-files]",
      "  verbs:",
      "    - {words: [delete, merge], objects: [merge], capability: d.del, risk: destructive, hints: [destructive]}",
      "    - {words: [get], objects: [status], capability: d.get, risk: read, read: true, hints: [read_only], roles: [url, written]}",
      "",
    ].join("\n") }]).classify;
    expect(c.words).toEqual([["merge", 1], ["delete", 0], ["status", 3], ["get", 2]]);
    expect(c.entryFlags).toEqual([CLASSIFY_HINT_DESTRUCTIVE, CLASSIFY_READ | CLASSIFY_HINT_READ_ONLY]);
    expect(c.entryRoles).toEqual([0, (1 << 2) | (1 << ROLE_WRITTEN)]);
    expect(c.trustedServers).toEqual(["my_files"]);
  });

  it("marks what a class's tools nobody mapped take for choices and for content", () => {
    const c = irOf([{ path: "v/c.yaml", text: [
      "version: 1",
      "classify:",
      "  verbs:",
      "    - {words: [buy], capability: m.buy, risk: money, choices: [unread, heading, code]}",
      "    - {words: [send], capability: m.send, risk: send, choices: [unread], content: [object]}",
      "  arg_roles: {title: heading}",
      "",
    ].join("\n") }]).classify;
    expect(c.entryFlags).toEqual([CLASSIFY_CHOICES | CLASSIFY_CHOICE_HEADINGS | CLASSIFY_CHOICE_CODES, CLASSIFY_CHOICES | CLASSIFY_OBJECTS_CONTENT]);
    expect(c.argRoles).toEqual([["title", ROLE_HEADING]]);
  });

  it("lowers exposure settings to arg=value levels and word nibbles; an operator's setting of a name replaces the shipped one", () => {
    const c = irOf([
      { path: "v/base.yaml", text: [
        "version: 1",
        "classify:",
        "  exposure:",
        "    - setting: visibility",
        "      levels:",
        "        - {args: {private: [true]}, words: [private]}",
        "        - {args: {Private: [false], visibility: [Public]}, words: [public, \"Anyone  With the link\"]}",
        "    - setting: role",
        "      levels:",
        "        - {args: {role: [reader]}}",
        "        - {args: {role: [writer]}, words: [public, edit]}",
        "",
      ].join("\n") },
      { path: "v/own.yaml", text: [
        "version: 1",
        "classify:",
        "  exposure:",
        "    - setting: role",
        "      levels:",
        "        - {args: {permission: [pull]}}",
        "        - {args: {permission: [admin]}, words: [admin]}",
        "",
      ].join("\n") },
    ]).classify;
    // The operator's role setting comes first (setting 0), the shipped visibility second.
    expect(new Map(c.exposureArgs)).toEqual(new Map([
      ["permission=pull", 0], ["permission=admin", 1],
      ["private=true", 16], ["private=false", 17], ["visibility=public", 17],
    ]));
    expect(new Map(c.exposureWords)).toEqual(new Map([
      ["admin", 2], ["private", 1 << 4], ["public", 2 << 4], ["anyone with the link", 2 << 4],
    ]));
  });

  it("resolves each intent verb's capability globs to class lists", () => {
    expect(ir.intent.verbs.map((v) => v.classes)).toEqual([[4, 6], [7]]);
    expect(ir.intent.words).toEqual([["send", 0], ["email", 0], ["delete", 1]]);
  });
});

describe("rules", () => {
  const ir = irOf([{ path: `${FIXTURES}/basic.yaml` }]);
  const rule = (id: string) => ir.rules.find((r) => r.id === id)!;

  it("selects classes by capability glob, risk and exact tool name", () => {
    expect(rule("allow-named-recipients").classes).toEqual([4, 6]);
    expect(rule("ask-big-sends").classes).toEqual([4, 6]);
    expect(rule("block-rm").classes).toEqual([5]);
  });

  it("reaches with tool selectors only classes a matching name can have", () => {
    // Not file.write (write_file, patch) nor shell.exec (terminal): only their exact names
    // reach them. The rest: read_file's class, mcp__gmail__send_email's, and the open ones
    // (unknown, browser_* and the classify verbs), which any name can reach.
    expect(rule("mcp-anything").classes).toEqual([0, 1, 3, 4, 6, 7]);
  });

  it("lets an unmapped exact tool name reach unknown and every classify class", () => {
    const unmapped = irOf([
      { path: "v/u.yaml", text: "version: 1\nclassify:\n  verbs:\n    - {words: [get], capability: x.get, risk: read}\nrules:\n  - {id: r, effect: ask, tool: [whatever]}\n" },
    ]);
    expect(unmapped.rules[0].classes).toEqual([0, 1]);
  });

  it("gives default reasons and keeps the source position", () => {
    expect(rule("block-rm")).toMatchObject({ reason: "rule_block", message: null });
    expect(rule("no-credentials")).toMatchObject({ reason: "credential_path", message: "{value} holds credentials" });
    expect(rule("no-credentials").at).toEqual({ file: `${FIXTURES}/basic.yaml`, line: 45, col: 5 });
  });

  it("lowers conditions with not, present and normalized constants", () => {
    expect(rule("no-credentials").conditions).toEqual([
      { subject: 5, arg: null, test: { kind: "under", values: ["~/.ssh", "~/.aws", "/etc/shadow"] }, negate: false },
    ]);
    expect(rule("ask-big-sends").conditions).toEqual([
      { subject: SUBJ_EMAIL, arg: null, test: { kind: "domain", values: ["example.com"] }, negate: true },
      { subject: SUBJ_ARG, arg: "cc", test: { kind: "present", present: true }, negate: false },
    ]);
    expect(rule("shadowed-allow").conditions[0].test).toEqual({ kind: "prefix", values: ["https://example.com/Path"] });
    expect(rule("block-rm").conditions[0].test).toEqual({ kind: "in", values: ["rm", "shred", "true"] });
  });

  it("reads not: {present: true} as present: false and in_intent: false as a negation", () => {
    const negations = irOf([
      {
        path: "v/n.yaml",
        text: "version: 1\nrules:\n  - id: r\n    effect: ask\n    when:\n      url: {not: {present: true}}\n      email: {in_intent: false}\n      args.x: {not: {not: {equals: 3}}}\n",
      },
    ]);
    expect(negations.rules[0].conditions.map(({ test, negate }) => ({ test, negate }))).toEqual([
      { test: { kind: "present", present: false }, negate: false },
      { test: { kind: "in_intent", reading: 0 }, negate: true },
      { test: { kind: "equals", value: "3" }, negate: false },
    ]);
  });
});

describe("extends", () => {
  const ir = irOf([{ path: `${FIXTURES}/team.yaml` }]);

  it("puts later files' tools and verbs first, so their mappings win", () => {
    expect(classNames(ir)).toEqual([
      "unknown/unknown",
      "team.shared/write",
      "net.fetch/egress",
      "base.shared/read",
      "defaults.shared/read",
      "team.get/egress",
      "base.get/read",
    ]);
    expect(ir.exactTools).toEqual([["shared", 0], ["fetch", 1]]);
    expect(ir.classify.words).toEqual([["get", 0], ["fetch", 0]]);
  });

  it("concatenates rules base first and merges maps key by key", () => {
    expect(ruleIds(ir)).toEqual(["defaults-rule", "base-rule", "team-rule"]);
    expect(ir.name).toBe("team");
    expect(ir.classes[1].defaultEffect).toBe("allow"); // team's write: allow beats base's write: ask
    expect(ir.classes[2].defaultEffect).toBe("ask"); // "*" from the defaults
    expect(ir.classify.argRoles).toEqual([["to", ROLE_EMAIL], ["url", 3]]);
  });

  it("replaces lists key by key and keeps what later files leave out", () => {
    expect(ir.intent.negations).toEqual(["not"]);
    expect(ir.intent.nothingWords).toEqual(["nothing"]);
    expect(ir.shell).toEqual({ wrappers: ["nohup"], networkPrograms: ["curl", "wget", "nc", "ssh", "scp"], shells: ["bash"], maxDepth: 4, programs: [] });
    expect(ir.limits).toMatchObject({ maxLeaves: 50, maxTargets: 20, maxArgsBytes: 4194304 });
  });

  it("puts later files' intent verbs first, so their words win", () => {
    const merged = irOf([
      { path: "v/base.yaml", text: "version: 1\ntools:\n  - {name: a, capability: file.write, risk: write}\n  - {name: b, capability: chat.post, risk: send}\nintent:\n  verbs:\n    - {words: [write, save], capabilities: [file.write]}\n" },
      { path: "v/team.yaml", text: "version: 1\nextends: [base.yaml]\nintent:\n  verbs:\n    - {words: [write, post], capabilities: [chat.post, file.write]}\n" },
    ], {});
    expect(merged.intent.words).toEqual([["write", 0], ["post", 0], ["save", 1]]);
    expect(merged.intent.verbs.map((v) => v.classes)).toEqual([[1, 2], [1]]);
  });

  it("merges several inputs in order, each file once", () => {
    const twice = irOf([{ path: `${FIXTURES}/base.yaml` }, { path: `${FIXTURES}/team.yaml` }]);
    expect(ruleIds(twice)).toEqual(["base-rule", "defaults-rule", "team-rule"]);
  });

  it("finds the shipped defaults without an option", () => {
    const shipped = compilePolicy([{ path: "policies/defaults.yaml" }]);
    if (!shipped.ok) throw new Error(shipped.errors.map(formatDiagnostic).join("\n"));
    const user = irOf([{ path: "v/user.yaml", text: "version: 1\nname: mine\nextends: [defaults]\n" }], {});
    expect(user.name).toBe("mine");
    expect(ruleIds(user)).toEqual(ruleIds(shipped.ir));
  });
});
