// Decisions end to end through fence.wasm: rules and defaults, each test op, quantifiers,
// witnesses, classification, sessions, limits and faults.
import { beforeEach, describe, expect, test } from "vitest";
import { compileYaml } from "./bytecode";
import { type Fence, loadFence } from "../../host-js/host";
import { fenceWasm } from "./wasm";
import { SUBJ_ARG, SUBJ_PATH, SUBJ_PROGRAM, SUBJ_EMAIL, SUBJ_OBJECT } from "../../bytecode/format";

const OPS = `
version: 1
name: ops
defaults: {read: allow, send: block, "*": ask}
tools:
  - name: read_file
    capability: file.read
    risk: read
    args: {path: path}
  - name: fetch
    capability: net.fetch
    risk: egress
    args: {url: url}
  - name: shell
    capability: shell.exec
    risk: exec
    args: {command: command, cwd: workdir}
  - mcp: {server: mail, tool: send_email}
    capability: email.send
    risk: send
    args: {to: email, cc: email}
  - name: chat_post
    capability: message.send
    risk: send
    args: {channel: recipient}
  - name: "config_*"
    capability: config.write
    risk: write
classify:
  verbs:
    - words: [send, post]
      capability: message.send
      risk: send
    - words: [delete, remove, removes]
      capability: data.delete
      risk: destructive
    - words: [create, update]
      capability: data.write
      risk: write
  arg_roles: {to: email, url: url, path: path}
rules:
  - id: no-ssh
    effect: block
    capability: [file.read]
    when:
      path: {under: ["~/.ssh", "/etc/shadow"]}
    reason: credential_path
    message: "{value} is a key ({tool}, {capability}, {risk}, {rule}, {value)"
  - id: env-glob
    effect: ask
    capability: [file.read]
    when:
      path: {glob: ["**/.env"]}
  - id: evil-domain
    effect: block
    capability: [net.fetch]
    when:
      url: {domain: [evil.example]}
    message: "{value} is an evil host"
  - id: shell-ssh
    effect: block
    capability: [shell.exec, data.write]
    when:
      path: {under: ["~/.ssh"]}
  - id: rm-program
    effect: block
    capability: [shell.exec]
    when:
      program: {in: [rm, dd]}
  - id: git-prefix
    effect: allow
    capability: [shell.exec]
    when:
      args.command: {prefix: ["git "]}
  - id: secret-tool
    effect: block
    tool: ["config_secret*"]
  - id: mode-equals
    effect: ask
    capability: [config.write]
    when:
      args.mode: {equals: force}
    reason: forced
  - id: dry-run-absent
    effect: ask
    capability: [config.write]
    when:
      args.dry_run: {present: false}
    reason: no_dry_run
  - id: mail-evil
    effect: block
    capability: [email.send]
    when:
      email: {glob: ["*@evil.example"]}
    message: "{value} is evil"
  - id: mail-named
    effect: allow
    capability: [email.send]
    when:
      email: {in_intent: true}
    message: "the user named {value}"
  - id: mail-corp
    effect: allow
    capability: [email.send]
    when:
      email: {domain: [corp.example]}
  - id: channel-unnamed
    effect: ask
    capability: [message.send]
    when:
      recipient: {not: {in_intent: true}}
    message: "{value} was not named"
  - id: channel-named
    effect: allow
    capability: [message.send]
    when:
      recipient: {in_intent: true}
intent:
  negations: [not, "don't", never]
  nothing_words: [nothing, anything]
  verbs:
    - words: [send, email, mail, post]
      capabilities: [email.send, message.send]
      object: destination
  grammar:
    destination: [to]
`;

const wasm = fenceWasm();
const ops = compileYaml(OPS);
let fence: Fence;

function fresh(policy = ops): Fence {
  const f = loadFence(wasm);
  expect(f.load(policy).ok).toBe(true);
  expect(f.configure("/home/u", "/home/u/work")).toEqual({ ok: true, text: "ok" });
  return f;
}

beforeEach(() => {
  fence = fresh();
});

function decideWith(intent: string | null, tool: string, args: unknown) {
  const h = fence.openSession();
  if (intent !== null) expect(fence.intent(h, intent).ok).toBe(true);
  return fence.decide(h, tool, args);
}

describe("rules and defaults", () => {
  test("allow by rule, with the default sentence when the rule has no message", () => {
    expect(fence.decide(0, "shell", { command: "git status" })).toEqual({
      kind: "allow", reason: "rule_allow", rule: "git-prefix", capability: "shell.exec", risk: "exec",
      message: "AgentsFence allowed shell: rule git-prefix allows shell.exec (exec) for git status [git-prefix]",
      witness: [[SUBJ_ARG, "git status"]], reservation: 0, possible: false, opaque: false, warned: [], moves: false,
      // Every target the command made, beyond what the deciding rule looked at.
      targets: [[SUBJ_PROGRAM, "git"], [SUBJ_PATH, "/home/u/work/status"]],
    });
  });

  test("block by rule, its message template filled with the witness", () => {
    expect(fence.decide(0, "read_file", { path: "~/.ssh/id_rsa" })).toEqual({
      kind: "block", reason: "credential_path", rule: "no-ssh", capability: "file.read", risk: "read",
      message: "AgentsFence blocked read_file: /home/u/.ssh/id_rsa is a key (read_file, file.read, read, no-ssh, {value) [no-ssh]",
      witness: [[SUBJ_PATH, "/home/u/.ssh/id_rsa"]], reservation: 0, possible: false, opaque: false, warned: [], moves: false, targets: [[SUBJ_PATH, "/home/u/.ssh/id_rsa"]],
    });
  });

  test("ask by rule", () => {
    const d = fence.decide(0, "read_file", { path: "proj/.env" });
    expect(d).toMatchObject({ kind: "ask", reason: "rule_ask", rule: "env-glob" });
    expect(d.message).toBe("AgentsFence asks about read_file: rule env-glob asks about file.read (read) for /home/u/work/proj/.env [env-glob]");
  });

  test("each default, with a sentence that says why", () => {
    expect(fence.decide(0, "read_file", { path: "notes.txt" })).toEqual({
      kind: "allow", reason: "default_allow", rule: "", capability: "file.read", risk: "read",
      message: "AgentsFence allowed read_file: file.read (read) is allowed by the policy's default for read [default_allow]",
      witness: [], reservation: 0, possible: false, opaque: false, warned: [], moves: false, targets: [[SUBJ_PATH, "/home/u/work/notes.txt"]],
    });
    expect(fence.decide(0, "mcp__mail__send_email", { to: "x@other.example" })).toEqual({
      kind: "block", reason: "default_block", rule: "", capability: "email.send", risk: "send",
      message: "AgentsFence blocked mcp__mail__send_email: no rule allows email.send (send) and the policy's default for send is block [default_block]",
      witness: [], reservation: 0, possible: false, opaque: false, warned: [], moves: false, targets: [[SUBJ_EMAIL, "x@other.example"]],
    });
    expect(fence.decide(0, "config_x", { dry_run: true })).toMatchObject({ kind: "ask", reason: "default_ask", rule: "" });
  });

  test("deny overrides allow", () => {
    expect(decideWith("mail a@evil.example", "mcp__mail__send_email", { to: "a@evil.example" })).toMatchObject({
      kind: "block", rule: "mail-evil", message: "AgentsFence blocked mcp__mail__send_email: a@evil.example is evil [mail-evil]",
    });
    expect(decideWith("mail a@other.example", "mcp__mail__send_email", { to: "a@other.example" })).toMatchObject({
      kind: "allow", rule: "mail-named", message: "AgentsFence allowed mcp__mail__send_email: the user named a@other.example [mail-named]",
    });
  });
});

describe("quantifiers and witnesses", () => {
  test("an allow rule needs every value (ALL); its first value is the witness", () => {
    expect(fence.decide(0, "mcp__mail__send_email", { to: ["b@corp.example", "d@sub.corp.example"] })).toMatchObject({
      kind: "allow", rule: "mail-corp", message: expect.stringContaining("allows email.send (send) for b@corp.example [mail-corp]"),
    });
    expect(fence.decide(0, "mcp__mail__send_email", { to: "b@corp.example", cc: "x@other.example" })).toMatchObject({ kind: "block", reason: "default_block" });
  });

  test("an allow rule over an empty subject does not hold", () => {
    expect(fence.decide(0, "mcp__mail__send_email", { subject: "hi" })).toMatchObject({ kind: "block", reason: "default_block" });
  });

  test("a block rule needs one value (ANY), and that value is the witness", () => {
    const d = fence.decide(0, "mcp__mail__send_email", { to: ["b@corp.example", "z@evil.example"] });
    expect(d).toMatchObject({ kind: "block", rule: "mail-evil" });
    expect(d.message).toContain("z@evil.example is evil");
  });

  test("NEGATE applies per value: the unnamed channel is the witness", () => {
    const d = decideWith("post it to #general", "chat_post", { channel: ["#general", "#random"] });
    expect(d).toMatchObject({ kind: "ask", rule: "channel-unnamed", message: "AgentsFence asks about chat_post: #random was not named [channel-unnamed]" });
    expect(decideWith("post it to #general", "chat_post", { channel: "#general" })).toMatchObject({ kind: "allow", rule: "channel-named" });
  });
});

describe("each test op", () => {
  test("EQUALS on an argument", () => {
    expect(fence.decide(0, "config_x", { mode: "force", dry_run: true })).toMatchObject({ kind: "ask", reason: "forced", rule: "mode-equals" });
    expect(fence.decide(0, "config_x", { mode: "forced", dry_run: true })).toMatchObject({ reason: "default_ask" });
  });

  test("PRESENT false", () => {
    expect(fence.decide(0, "config_x", {})).toMatchObject({ kind: "ask", reason: "no_dry_run" });
    expect(fence.decide(0, "config_x", { dry_run: false })).toMatchObject({ reason: "default_ask" });
  });

  test("IN over programs of a command", () => {
    expect(fence.decide(0, "shell", { command: "ls; /bin/rm -rf x" })).toMatchObject({ kind: "block", rule: "rm-program", message: expect.stringContaining(" for rm [rm-program]") });
    expect(fence.decide(0, "shell", { command: "git rm x" })).toMatchObject({ kind: "allow", rule: "git-prefix" });
  });

  test("GLOB over paths", () => {
    expect(fence.decide(0, "read_file", { path: "/srv/app/.env" })).toMatchObject({ rule: "env-glob" });
    expect(fence.decide(0, "read_file", { path: "/srv/app/.env.bak" })).toMatchObject({ reason: "default_allow" });
  });

  test("DOMAIN: the host and its parents", () => {
    expect(fence.decide(0, "fetch", { url: "https://a.b.evil.example/x" })).toMatchObject({ kind: "block", rule: "evil-domain" });
    expect(fence.decide(0, "fetch", { url: "https://user@evil.example:8443/" })).toMatchObject({ kind: "block", rule: "evil-domain" });
    expect(fence.decide(0, "fetch", { url: "https://notevil.example/" })).toMatchObject({ reason: "default_ask" });
    expect(fence.decide(0, "fetch", { url: "https://evil.example.org/" })).toMatchObject({ reason: "default_ask" });
    expect(fence.decide(0, "mcp__mail__send_email", { to: "x@sub.corp.example" })).toMatchObject({ kind: "allow", rule: "mail-corp" });
  });

  test("UNDER: absolute and ~ forms, the directory itself, not a sibling", () => {
    for (const path of ["/home/u/.ssh", "/home/u/.ssh/a/b", "~/.ssh/config", "../.ssh/k", "$HOME/.ssh/x", "/etc/shadow"]) {
      expect(fence.decide(0, "read_file", { path }), path).toMatchObject({ kind: "block", rule: "no-ssh" });
    }
    for (const path of ["/home/u/.sshx", "/home/u/ssh/.ssh2", "/etc/shadow2", "/etc"]) {
      expect(fence.decide(0, "read_file", { path }), path).toMatchObject({ reason: "default_allow" });
    }
  });

  test("a workdir argument resolves the call's relative paths", () => {
    expect(fence.decide(0, "shell", { command: "cat .ssh/id", cwd: "/home/u" })).toMatchObject({ kind: "block", rule: "shell-ssh" });
    expect(fence.decide(0, "shell", { command: "cat .ssh/id", cwd: "/tmp" })).toMatchObject({ kind: "ask", reason: "default_ask" });
    expect(fence.decide(0, "shell", { command: "cat .ssh/id" })).toMatchObject({ kind: "ask", reason: "default_ask" });
  });

  test("IN_INTENT on e-mail targets", () => {
    expect(decideWith("send this to bob@other.example", "mcp__mail__send_email", { to: "Bob@Other.Example" })).toMatchObject({ kind: "allow", rule: "mail-named" });
    expect(decideWith("send this to bob@other.example", "mcp__mail__send_email", { to: "eve@other.example" })).toMatchObject({ kind: "block", reason: "default_block" });
  });

  test("TOOL patterns", () => {
    expect(fence.decide(0, "config_secret_key", { dry_run: true })).toMatchObject({ kind: "block", rule: "secret-tool", reason: "rule_block" });
  });
});

describe("classification", () => {
  test("both MCP spellings are the same tool", () => {
    for (const tool of ["mcp__mail__send_email", "mcp_mail_send_email"]) {
      expect(fence.decide(0, tool, { to: "x@corp.example" }), tool).toMatchObject({ capability: "email.send", rule: "mail-corp" });
    }
  });

  test("words of the name, camelCase and MCP prefixes included; the lowest entry wins", () => {
    expect(fence.decide(0, "createCalendarEvent", {})).toMatchObject({ capability: "data.write", risk: "write" });
    expect(fence.decide(0, "mcp__slack__post_message", { channel: "#x" })).toMatchObject({ capability: "message.send" });
    expect(fence.decide(0, "HTTPDeleteRecord", {})).toMatchObject({ capability: "data.delete" });
    expect(fence.decide(0, "delete-and-send", {})).toMatchObject({ capability: "message.send" });
    expect(fence.decide(0, "frobnicate", {})).toMatchObject({ capability: "unknown", risk: "unknown", reason: "default_ask" });
  });

  test("an unmapped tool's roles come from role_map by top-level argument name", () => {
    expect(fence.decide(0, "mcp__x__update_file", { path: "~/.ssh/k" })).toMatchObject({ capability: "data.write", rule: "shell-ssh" });
    expect(fence.decide(0, "mcp__x__update_file", { path: ["/tmp/a", "~/.ssh/k"] })).toMatchObject({ rule: "shell-ssh" });
    // An argument no role names is read by its shape: a path is a target wherever it appears.
    expect(fence.decide(0, "mcp__x__update_file", { other: "~/.ssh/k" })).toMatchObject({ capability: "data.write", rule: "shell-ssh" });
    expect(fence.decide(0, "mcp__x__update_file", { other: { deeper: ["x", "~/.ssh/k"] } })).toMatchObject({ rule: "shell-ssh" });
    expect(fence.decide(0, "mcp__x__update_file", { other: "notes about the ssh folder" })).toMatchObject({ reason: "default_ask" });
  });

  test("describe classifies a tool from its description, for later decisions", () => {
    expect(fence.decide(0, "frobnicate", {})).toMatchObject({ capability: "unknown" });
    expect(fence.describe("frobnicate", "Removes the given record permanently.")).toEqual({ ok: true, text: "data.delete\tdestructive" });
    expect(fence.decide(0, "frobnicate", {})).toMatchObject({ capability: "data.delete", risk: "destructive" });
    expect(fence.describe("read_file", "Removes everything")).toEqual({ ok: true, text: "file.read\tread" });
    expect(fence.describe("quux", "Does a thing")).toEqual({ ok: true, text: "unknown\tunknown" });
    expect(fence.describe("x".repeat(300), "delete")).toMatchObject({ ok: false, text: "the tool name is longer than 256 bytes" });
  });

  test("describe reads the parameter schema: formats and names give roles, a path a verb acts on is written", () => {
    const schema = {
      type: "object",
      properties: {
        site: { type: "string", format: "uri" },
        backup_path: { type: "string" },
        out_path: { type: "string", description: "Where to update the copy" },
        to: { type: "string" },
        note: { type: "string", description: "What to update" },
        count: { type: "integer" },
      },
    };
    // Nothing in the name or the first word of the description classifies it, nor does a word of
    // a property's description: those say what the parameter is, not what the tool does. A number
    // is what the action is made with: an object.
    expect(fence.describe("frobnicate", "Does a thing.", schema)).toEqual({
      ok: true, text: "unknown\tunknown\nrole\tsite\turl\nrole\tbackup_path\tpath\nrole\tout_path\twritten\nrole\tto\temail\nrole\tcount\tobject",
    });
    expect(fence.decide(0, "frobnicate", { backup_path: "../.ssh/id" })).toMatchObject({ capability: "unknown", reason: "default_ask" });
    // A tool its own name classifies learns its parameters' roles too (a relative path has no
    // shape of its own: only the role makes it one).
    expect(fence.decide(0, "updateThing", { backup_path: "../.ssh/id" })).toMatchObject({ capability: "data.write", reason: "default_ask" });
    expect(fence.describe("updateThing", "", schema).ok).toBe(true);
    expect(fence.decide(0, "updateThing", { backup_path: "../.ssh/id" })).toMatchObject({ rule: "shell-ssh" });
    expect(fence.explain(0, "updateThing", {}).text).toContain("class\tdata.write\twrite\tinferred");
    // An operation chosen by an enum value is a verb of the tool: the riskiest one counts.
    expect(fence.describe("quux", "Manages things", { properties: { action: { type: "string", enum: ["list", "remove"] } } }).text)
      .toBe("data.delete\tdestructive");
    // The policy's own map wins over anything a schema says.
    expect(fence.describe("read_file", "", { properties: { to: { type: "string" } } })).toEqual({ ok: true, text: "file.read\tread" });
    expect(fence.describe("bad_schema", "x", "not an object")).toMatchObject({ ok: false, text: "the parameter schema is not a JSON object within the policy's limits" });
    expect(fence.describe("quux", "x", undefined, "", 64)).toMatchObject({ ok: false, text: "unknown annotation bits" });
  });

  test("describe remembers a bounded number of tools", () => {
    for (let i = 0; i < 1024; i++) expect(fence.describe(`tool${i}`, "delete it").ok).toBe(true);
    expect(fence.describe("tool5", "send it")).toEqual({ ok: true, text: "message.send\tsend" });
    expect(fence.describe("one_more", "delete it")).toEqual({ ok: false, text: "too many described tools" });
    expect(fence.describe("read_file", "delete it")).toEqual({ ok: true, text: "file.read\tread" });
    expect(fence.describe("send_more", "delete it")).toEqual({ ok: true, text: "message.send\tsend" });
    expect(fence.decide(0, "tool1023", {})).toMatchObject({ capability: "data.delete" });
  });

  test("what describe learned belongs to the policy it was learned under", () => {
    fence.describe("frobnicate", "delete things");
    expect(fence.load(ops).ok).toBe(true);
    expect(fence.decide(0, "frobnicate", {})).toMatchObject({ capability: "unknown" });
  });
});

const EVIDENCE = `
version: 1
name: evidence
defaults: {read: allow, "*": ask}
classify:
  trusted_servers: [my-files]
  verbs:
    - {words: [delete, merge], objects: [merge], capability: data.delete, risk: destructive, hints: [destructive]}
    - {words: [send], objects: [message], capability: message.send, risk: send}
    - {words: [create, update, save, start], objects: [commit, start], capability: data.write, risk: write, hints: [not_read_only], roles: [written]}
    - {words: [fetch], capability: net.fetch, risk: egress, roles: [url]}
    - {words: [get, list, search], objects: [status], capability: data.read, risk: read, read: true, hints: [read_only]}
  arg_roles: {url: url, path: path}
`;
// describe's annotation bits (docs/bytecode.md §8): given, then true.
const READ_ONLY_TRUE = 1 | 2, READ_ONLY_FALSE = 1, DESTRUCTIVE_TRUE = 4 | 8;

describe("the order of evidence (docs/bytecode.md §3.3)", () => {
  let f: Fence;
  beforeEach(() => {
    f = loadFence(fenceWasm());
    expect(f.load(compileYaml(EVIDENCE)).ok).toBe(true);
  });
  const cls = (tool: string) => `${f.decide(0, tool, {}).capability}`;

  test("the tool's own name comes first; its server's name never classifies it", () => {
    expect(cls("mcp__send__list_files")).toBe("data.read");
    expect(cls("mcp_send_list_files")).toBe("data.read");
    expect(cls("mcp__send__frobnicate")).toBe("unknown");
    expect(f.describe("mcp__my_list__frob", "", undefined, "my-list").text).toBe("unknown\tunknown");
    expect(f.describe("mcp__a__b__delete_x", "", undefined, "a__b").text).toBe("data.delete\tdestructive");
  });

  test("a read verb holds against objects and folded words, never against another verb", () => {
    expect(cls("get_message")).toBe("data.read");
    expect(cls("list_commits")).toBe("data.read");
    expect(cls("get_merged_status")).toBe("data.read");
    expect(cls("send_message")).toBe("message.send");
    expect(cls("get_or_create_label")).toBe("data.write");
    expect(cls("search_and_delete")).toBe("data.delete");
    expect(cls("merge_contacts")).toBe("data.delete");
    expect(cls("git_commit")).toBe("data.write");
    expect(cls("repo_status")).toBe("data.read");
    expect(cls("getStatusURLs")).toBe("data.read");
  });

  test("a description or schema raises a class and never makes a tool a read", () => {
    expect(f.describe("frobnicate", "Lists and searches the things").text).toBe("unknown\tunknown");
    expect(f.describe("get_thing", "Deletes the thing it gets").text).toBe("data.delete\tdestructive");
    expect(f.describe("list_things", "Returns things; use delete_thing to delete one").text).toBe("data.read\tread");
    expect(f.describe("get_page", "", { properties: { url: { type: "string" } } }).text).toBe("net.fetch\tegress\nrole\turl\turl");
    expect(f.describe("get_file", "", { properties: { isUrl: { type: "boolean" } } }).text).toBe("net.fetch\tegress\nrole\tisUrl\turl");
    // A role guessed from a string's last word finds targets but is no evidence of the class.
    expect(f.describe("get_issue", "", { properties: { regionUrl: { type: "string" } } }).text).toBe("data.read\tread\nrole\tregionUrl\turl");
    expect(f.describe("get_shot", "", { properties: { savePath: { type: "string" } } }).text).toBe("data.write\twrite\nrole\tsavePath\twritten");
    expect(f.describe("get_doc", "", { properties: { path: { type: "string", description: "the document to read" } } }).text)
      .toBe("data.read\tread\nrole\tpath\tpath");
    // A number is no URL, whatever its name: what the action is made with (an object), no evidence.
    expect(f.describe("get_n", "", { properties: { url: { type: "integer" } } }).text).toBe("data.read\tread\nrole\turl\tobject");
    expect(cls("get_page")).toBe("net.fetch");
  });

  test("annotations raise; a read-only claim lowers only for a trusted server", () => {
    expect(f.describe("mcp__web__get_tab", "", undefined, "web", DESTRUCTIVE_TRUE).text).toBe("data.delete\tdestructive");
    expect(f.describe("mcp__web__get_tab2", "", undefined, "web", DESTRUCTIVE_TRUE | READ_ONLY_TRUE).text).toBe("data.read\tread");
    expect(f.describe("mcp__web__list_tabs", "", undefined, "web", READ_ONLY_FALSE).text).toBe("data.write\twrite");
    expect(f.describe("mcp__web__create_x", "", undefined, "web", READ_ONLY_TRUE).text).toBe("data.write\twrite");
    expect(f.describe("mcp__web__frob", "", undefined, "web", READ_ONLY_TRUE).text).toBe("unknown\tunknown");
    expect(f.describe("mcp__my_files__create_x", "", undefined, "my-files", READ_ONLY_TRUE).text).toBe("data.read\tread");
    expect(f.describe("mcp__my_files__frob", "", undefined, "my-files", READ_ONLY_TRUE).text).toBe("data.read\tread");
    expect(f.describe("mcp__my_files__frob2", "", undefined, "my-files", 0).text).toBe("unknown\tunknown");
    expect(cls("mcp__my_files__frob")).toBe("data.read");
  });
});

describe("sessions and intent", () => {
  test("the intent record summarizes what was bound", () => {
    const h = fence.openSession();
    const r = fence.intent(h, "Email bob@example.com, see https://docs.example.org/a and ~/notes.md");
    expect(r.ok).toBe(true);
    expect(r.text).toContain("email\tbob@example.com");
  });

  test("a prohibition blocks the class before its rules run", () => {
    const d = decideWith("don't send anything to x@corp.example", "mcp__mail__send_email", { to: "x@corp.example" });
    expect(d).toMatchObject({ kind: "block", reason: "intent_prohibited", rule: "intent", capability: "email.send" });
    expect(d.message).toMatch(/^AgentsFence blocked mcp__mail__send_email: .*email\.send.* \[intent\]$/);
  });

  test("a closed handle never reaches another session", () => {
    const h1 = fence.openSession();
    expect(fence.intent(h1, "mail a@other.example").ok).toBe(true);
    expect(fence.closeSession(h1)).toBe(true);
    expect(fence.closeSession(h1)).toBe(false);
    const h2 = fence.openSession();
    expect(h2).not.toBe(h1);
    expect(fence.decide(h1, "read_file", { path: "x" })).toMatchObject({ kind: "block", reason: "unknown_session", rule: "" });
    expect(fence.intent(h1, "hi")).toMatchObject({ ok: false });
    expect(fence.decide(h2, "mcp__mail__send_email", { to: "a@other.example" })).toMatchObject({ reason: "default_block" });
    for (const h of [12345, -1, 0x7fffffff, h2 + 1]) {
      expect(fence.decide(h, "read_file", { path: "x" }), String(h)).toMatchObject({ reason: "unknown_session" });
    }
  });

  test("handles never repeat, even when one slot is reused thousands of times", () => {
    const seen = new Set<number>();
    for (let i = 0; i < 5000; i++) {
      const h = fence.openSession();
      expect(h).toBeGreaterThan(0);
      expect(seen.has(h)).toBe(false);
      seen.add(h);
      fence.closeSession(h);
    }
  });

  test("the binder reads at most MAX_INTENT_BYTES, cut back to a whole character", () => {
    fence = fresh(compileYaml("version: 1\nname: short\nlimits: {max_intent_bytes: 13}\n"));
    const h = fence.openSession();
    const r = fence.intent(h, "mail a@x.io \u00e9 and b@y.io"); // byte 13 is inside the é
    expect(r.ok).toBe(true);
    expect(r.text.split("\n").filter((line) => line !== "").map((line) => line.split("\t").slice(0, 2))).toEqual([["email", "a@x.io"]]);
  });

  test("at most MAX_SESSIONS live; a load closes every session", () => {
    const small = compileYaml("version: 1\nname: small\nlimits: {max_sessions: 2}\n");
    expect(fence.load(small).ok).toBe(true);
    const [a, b] = [fence.openSession(), fence.openSession()];
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(0);
    expect(fence.openSession()).toBe(0);
    fence.closeSession(a);
    const c = fence.openSession();
    expect(c).toBeGreaterThan(0);
    expect(fence.load(small).ok).toBe(true);
    expect(fence.decide(b, "x", {})).toMatchObject({ reason: "unknown_session" });
    expect(fence.decide(c, "x", {})).toMatchObject({ reason: "unknown_session" });
  });
});

describe("the record's targets", () => {
  test("every target the roles made, each once, in the order made; an argument without a role by its shape", () => {
    const d = fence.decide(0, "mcp__mail__send_email", { to: "Bob <BOB@corp.example>, x@other.example", cc: "bob@corp.example", body: "see x@leak.example" });
    expect(d.targets).toEqual([[SUBJ_EMAIL, "bob@corp.example"], [SUBJ_EMAIL, "x@other.example"], [SUBJ_EMAIL, "x@leak.example"]]);
    expect(fence.decide(0, "shell", { command: "cat notes.md", cwd: "/srv" }).targets)
      .toEqual([[SUBJ_PROGRAM, "cat"], [SUBJ_PATH, "/srv/notes.md"]]);
  });

  test("a prohibition carries them; a fault before they were made carries none", () => {
    expect(decideWith("don't send anything", "mcp__mail__send_email", { to: "a@corp.example" }))
      .toMatchObject({ reason: "intent_prohibited", targets: [[SUBJ_EMAIL, "a@corp.example"]] });
    expect(fence.decide(0, "read_file", "[1]")).toMatchObject({ reason: "bad_arguments", targets: [] });
  });
});

describe("faults block with a reason", () => {
  test("no policy", () => {
    const f = loadFence(wasm);
    expect(f.decide(0, "read_file", {})).toEqual({
      kind: "block", reason: "no_policy", rule: "", capability: "", risk: "",
      message: "AgentsFence blocked read_file: no policy is loaded [no_policy]",
      witness: [], reservation: 0, possible: false, opaque: false, warned: [], moves: false, targets: [],
    });
    expect(f.openSession()).toBe(0);
    expect(f.disasm()).toBe("no policy is loaded\n");
  });

  test("bad arguments", () => {
    for (const args of ["[1]", "{", "", "null", '{"a":1} x', '{"a":"\\ud800"}', new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])]) {
      expect(fence.decide(0, "read_file", args), String(args)).toMatchObject({ kind: "block", reason: "bad_arguments", capability: "file.read" });
    }
    const d = fence.decide(0, new Uint8Array([0x61, 0xc0, 0x80]), {});
    expect(d).toMatchObject({ kind: "block", reason: "bad_arguments" });
    expect(d.message).toBe("AgentsFence blocked a tool with an unreadable name: the tool name is not valid UTF-8 [bad_arguments]");
  });

  test("limits", () => {
    fence = fresh(compileYaml(`
version: 1
name: tight
tools: [{name: mail, capability: email.send, risk: send, args: {to: email}}]
limits: {max_args_bytes: 64, max_json_depth: 2, max_leaves: 3, max_targets: 2}
`));
    expect(fence.decide(0, "mail", { body: "x".repeat(80) })).toMatchObject({ reason: "limit_exceeded", capability: "email.send" });
    expect(fence.decide(0, "mail", { a: 1, b: 2, c: 3, d: 4 })).toMatchObject({ reason: "limit_exceeded" });
    expect(fence.decide(0, "mail", { to: ["a@x.io", "b@x.io", "c@x.io"] })).toMatchObject({ reason: "limit_exceeded" });
    expect(fence.decide(0, "mail", { a: { b: { c: 1 } } })).toMatchObject({ reason: "bad_arguments" });
    expect(fence.decide(0, "mail", { a: { b: 1 }, to: ["a@x.io", "b@x.io"] })).toMatchObject({ reason: "default_ask" });
  });
});

describe("hostile calls", () => {
  test("a command that ends inside double quotes with a backslash is decided", () => {
    for (const command of ['"\\', 'echo "x\\', '\u00e9null{"{\\commanda.b\\']) {
      const d = fence.decide(0, "shell", JSON.stringify({ command }));
      expect(d.message.startsWith("AgentsFence ")).toBe(true);
    }
  });

  test("random names and argument bytes always get a decision", () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const pieces = ['{"', '":', '"', "[", "]", "{", "}", ",", "\\", "u00", "path", "to", "command", "~/.ssh/", "http://", "@", "a.b", "$(", "`", "sh -c '", " ", "\u00e9", "1e9", "null"];
    const h = fence.openSession();
    fence.intent(h, "mail bob@corp.example about ~/work and https://docs.example.org");
    for (let i = 0; i < 3000; i++) {
      const name = i % 3 === 0 ? new Uint8Array(Array.from({ length: rand(12) }, () => rand(256))) : ["shell", "read_file", "mcp_mail_send_email", "fetch", "chat_post", "x"][rand(6)];
      let args = "";
      const parts = rand(40);
      for (let k = 0; k < parts; k++) args += pieces[rand(pieces.length)];
      const d = fence.decide(rand(2) === 0 ? h : 0, name, i % 2 === 0 ? `{"command":${JSON.stringify(args)},"path":${JSON.stringify(args)},"to":${JSON.stringify(args)}}` : args);
      expect(["allow", "block", "ask", "confine"]).toContain(d.kind);
      expect(d.message.startsWith("AgentsFence ")).toBe(true);
    }
  });
});

// Tools nobody mapped of a class with `choices` (docs/bytecode.md §3.3, §5.2 "Choices").
const CHOOSING = `
version: 1
name: choosing
defaults: {"*": ask}
tools:
  - name: mapped_buy
    capability: money.move
    risk: money
    args: {hotel: object}
classify:
  verbs:
    - {words: [buy], capability: money.move, risk: money, choices: [unread, heading, code]}
    - {words: [send], capability: message.send, risk: send, choices: [unread], content: [object]}
    - {words: [create], capability: data.write, risk: write, choices: [unread]}
    - {words: [get], capability: data.read, risk: read, read: true}
  arg_roles: {hotel: object, id: object, note: text, title: heading, code: code, to: email}
`;

describe("choices of tools nobody mapped", () => {
  let f: Fence;
  beforeEach(() => {
    f = loadFence(fenceWasm());
    expect(f.load(compileYaml(CHOOSING)).ok).toBe(true);
    expect(f.configure("/home/u", "/home/u/p").ok).toBe(true);
  });
  const objects = (tool: string, args: Record<string, unknown>) =>
    f.decide(0, tool, args).targets.filter((t) => t[0] === SUBJ_OBJECT).map((t) => t[1]).sort();

  test("an argument no role reads is an object: nested, in a list, beside the schema", () => {
    expect(objects("mcp__s__buy", { sku: "ABC-1", qty: 2, room: { hotel: "Harbor Inn" }, extras: ["a", "b"] }))
      .toEqual(["2", "a", "abc-1", "b", "harbor inn"]);
    // A word of its name gives its role first: an object's, or prose's; a nested leaf's own key too.
    expect(objects("mcp__s__buy", { hotel_id: "h-9", gift_note: "Happy birthday" })).toEqual(["h-9"]);
    expect(objects("mcp__s__create_edit", { edits: [{ oldNote: "teh", newNote: "the", line: 3 }] })).toEqual(["3"]);
  });

  test("a flag set true is the object of its name; false and null choose nothing", () => {
    expect(objects("mcp__s__buy", { subscribe: true, options: { gift_wrap: true }, express: false, insured: null }))
      .toEqual(["options.gift_wrap", "subscribe"]);
  });

  test("a heading and a code are objects only where the class chooses them", () => {
    expect(objects("mcp__s__buy", { title: "Dune", code: "SAVE10", note: "for Bob" })).toEqual(["dune", "save10"]);
    expect(objects("mcp__s__create_page", { title: "Dune", code: "x = 1", note: "for Bob" })).toEqual([]);
  });

  test("a message's ids are content it carries; its choices are objects", () => {
    expect(objects("mcp__s__send_note", { to: "bob@example.com", id: "m-1", priority: "high" })).toEqual(["high"]);
  });

  test("a mapped tool, and a read, keep reading arguments as before", () => {
    expect(objects("mapped_buy", { hotel: "Hotel Lumen", sku: "ABC-1" })).toEqual(["hotel lumen"]);
    expect(objects("mcp__s__get_item", { sku: "ABC-1", hotel: "X" })).toEqual(["x"]);
  });
});
