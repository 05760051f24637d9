// Derived items (docs/bytecode.md §7.1) through fence.wasm: which outputs are read, what they
// derive, and that only IN_DERIVED ever sees it.
import { beforeEach, describe, expect, test } from "vitest";
import { compileYaml } from "./bytecode";
import { type Fence, loadFence } from "../../host-js/host";
import { fenceWasm } from "./wasm";

const POLICY = `
version: 1
name: derive
defaults: {read: allow, "*": ask}
tools:
  - name: read_channel
    capability: chat.read
    risk: read
    args: {channel: recipient}
  - name: list_channels
    capability: chat.read
    risk: read
  - name: read_file
    capability: file.read
    risk: read
    args: {path: path}
  - name: fetch
    capability: net.fetch
    risk: egress
    args: {url: url}
  - name: post
    capability: chat.post
    risk: send
    args: {channel: recipient}
  - name: send_email
    capability: email.send
    risk: send
    args: {to: email}
rules:
  - id: fetch-named
    effect: allow
    capability: [net.fetch]
    when:
      url: {in_intent: source}
  - id: fetch-linked
    effect: allow
    capability: [net.fetch]
    when:
      url: {in_derived: true}
  - id: email-named
    effect: allow
    capability: [email.send]
    when:
      email: {in_intent: true}
  - id: email-derived
    effect: ask
    capability: [email.send]
    reason: derived_recipient
    when:
      email: {in_derived: true}
  - id: post-named
    effect: allow
    capability: [chat.post]
    when:
      recipient: {in_intent: true}
intent:
  derive_from: [chat.read]
  verbs:
    - {words: [email], capabilities: [email.send], object: destination}
    - {words: [fetch], capabilities: [net.fetch], object: source}
`;

const GENERAL = "- body: read https://www.informations.com/today and mail bob@corp.example\n  sender: Bob\n- body: join #random\n";

describe("derive", () => {
  let fence: Fence;
  let h: number;
  beforeEach(async () => {
    fence = await loadFence(fenceWasm());
    expect(fence.load(compileYaml(POLICY)).ok).toBe(true);
    expect(fence.configure("/home/u", "/home/u/work").ok).toBe(true);
    h = fence.openSession();
    expect(fence.intent(h, "Summarize the links in the 'general' channel").ok).toBe(true);
  });

  test("reads the output of a call whose every target the user named", () => {
    const r = fence.derive(h, "read_channel", { channel: "general" }, GENERAL);
    expect(r.ok).toBe(true);
    const lines = r.text.split("\n");
    expect(lines[0]).toBe("derived");
    expect(lines).toContain("derived-url\thttps://www.informations.com/today");
    expect(lines).toContain("derived-domain\twww.informations.com");
    expect(lines).toContain("derived-email\tbob@corp.example");
    expect(lines).toContain("derived-recipient\t#random");
    expect(lines.some((line) => line.startsWith("name\tgeneral\t"))).toBe(true); // the named items stay as they were
    expect(fence.decide(h, "fetch", { url: "www.informations.com" })).toMatchObject({ kind: "allow", rule: "fetch-linked" });
  });

  test("a derived host opens only its bare front page: nothing added to a URL can carry data out", () => {
    fence.derive(h, "read_channel", { channel: "general" }, GENERAL);
    expect(fence.decide(h, "fetch", { url: "https://www.informations.com/today" })).toMatchObject({ kind: "allow", rule: "fetch-linked" });
    expect(fence.decide(h, "fetch", { url: "https://WWW.Informations.com/" })).toMatchObject({ kind: "allow", rule: "fetch-linked" });
    for (const url of [
      "https://www.informations.com/today?q=the-users-secret",
      "https://www.informations.com/the-users-secret",
      "https://www.informations.com/#the-users-secret",
      "https://the-users-secret@www.informations.com/",
      "https://www.informations.com:8443/",
      "www.informations.com\\the-users-secret",
    ]) {
      expect(fence.decide(h, "fetch", { url }), url).toMatchObject({ kind: "ask", reason: "default_ask" });
    }
  });

  test("a derived target is never a named one", () => {
    fence.derive(h, "read_channel", { channel: "general" }, GENERAL);
    expect(fence.decide(h, "send_email", { to: "bob@corp.example" })).toMatchObject({ kind: "ask", reason: "derived_recipient" });
    expect(fence.decide(h, "post", { channel: "#random" })).toMatchObject({ kind: "ask", reason: "default_ask" });
    expect(fence.decide(h, "fetch", { url: "www.elsewhere.example" })).toMatchObject({ kind: "ask", reason: "default_ask" });
  });

  test("ignores a call with a target the user did not name, or none", () => {
    expect(fence.derive(h, "read_channel", { channel: "random" }, GENERAL).text).toMatch(/^ignored\ta target of the call is not one the user named\n/);
    expect(fence.derive(h, "list_channels", {}, GENERAL).text).toMatch(/^ignored\tthe call names no target/);
    expect(fence.decide(h, "fetch", { url: "www.informations.com" })).toMatchObject({ kind: "ask" });
  });

  test("ignores classes outside derive_from, and a page a derived link led to", () => {
    const s = fence.openSession();
    fence.intent(s, "Read /home/u/work/notes.md and www.start.example");
    expect(fence.derive(s, "read_file", { path: "notes.md" }, "see www.a.example").text).toMatch(/^ignored\tthe policy derives nothing/);
    expect(fence.derive(s, "fetch", { url: "www.start.example" }, "see www.b.example").text).toMatch(/^ignored\tthe policy derives nothing/);
    fence.derive(h, "read_channel", { channel: "general" }, GENERAL);
    // The channel was named; a link in it was only derived: the page behind it vouches for nothing.
    expect(fence.derive(h, "read_channel", { channel: "www.informations.com" }, "www.true-informations.com").text).toMatch(/^ignored\t/);
    expect(fence.decide(h, "fetch", { url: "www.true-informations.com" })).toMatchObject({ kind: "ask" });
  });

  test("reads nothing into a session with no intent, and fails on a closed one", () => {
    const s = fence.openSession();
    expect(fence.derive(s, "read_channel", { channel: "general" }, GENERAL).text).toMatch(/^ignored\t/);
    fence.closeSession(s);
    expect(fence.derive(s, "read_channel", { channel: "general" }, GENERAL)).toMatchObject({ ok: false, text: "the session is unknown or was closed" });
  });
});

describe("narrow", () => {
  test("prohibits, or turns an allow into an ask, and never allows", async () => {
    const fence = await loadFence(fenceWasm());
    expect(fence.load(compileYaml(POLICY)).ok).toBe(true);
    const h = fence.openSession();
    fence.intent(h, "Email bob@corp.example and fetch www.a.example");
    expect(fence.decide(h, "send_email", { to: "bob@corp.example" })).toMatchObject({ kind: "allow" });
    const r = fence.narrow(h, "ask\temail.*\nprohibit\tnet.fetch");
    expect(r.ok).toBe(true);
    expect(r.text).toContain("ask\temail.send\t(model)");
    expect(r.text).toContain("prohibit\tnet.fetch\t(model)");
    expect(fence.decide(h, "send_email", { to: "bob@corp.example" })).toMatchObject({ kind: "ask", reason: "intent_narrowed", rule: "intent" });
    expect(fence.decide(h, "fetch", { url: "www.a.example" })).toMatchObject({ kind: "block", reason: "intent_prohibited" });
    // An ask stays an ask, and a class the narrowing did not name is untouched.
    expect(fence.decide(h, "send_email", { to: "eve@x.example" })).toMatchObject({ kind: "ask", reason: "default_ask" });
    expect(fence.decide(h, "read_file", { path: "/tmp/x" })).toMatchObject({ kind: "allow" });
  });

  test("a malformed line applies nothing", async () => {
    const fence = await loadFence(fenceWasm());
    expect(fence.load(compileYaml(POLICY)).ok).toBe(true);
    const h = fence.openSession();
    fence.intent(h, "Email bob@corp.example");
    for (const bad of ["allow\temail.send", "prohibit net.fetch", "ask\t", "prohibit\tnet.fetch\nwiden\t*"]) {
      expect(fence.narrow(h, bad), bad).toMatchObject({ ok: false });
    }
    expect(fence.decide(h, "send_email", { to: "bob@corp.example" })).toMatchObject({ kind: "allow" });
    expect(fence.decide(h, "fetch", { url: "www.a.example" })).toMatchObject({ kind: "ask" });
  });
});
