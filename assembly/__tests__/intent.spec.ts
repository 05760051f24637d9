import { SUBJ_ARG, SUBJ_EMAIL, SUBJ_DOMAIN, SUBJ_URL, SUBJ_PATH, SUBJ_RECIPIENT, SUBJ_PROGRAM, INTENT_NAMED, INTENT_DESTINATION, INTENT_EXACT, INTENT_SOURCE } from "../../bytecode/format";
import { NO, YES } from "../decision/tri";
import { intentBind, intentFree, intentGrants, intentHas, intentProhibits, intentWriteSummary } from "../intent/intent";
import { outBegin, outFinish } from "../abi/out";
import { scratchReset } from "../abi/mem";
import { installPolicy, CLASS_SEND, CLASS_DELETE, CLASS_WRITE, CLASS_SHELL, CLASS_CODE } from "./policy";
import { utf8, raw, repeated, lastLen, text, configureTestEnv } from "./helpers";

function bind(intent: usize, message: string): usize {
  scratchReset();
  const p = utf8(message);
  return intentBind(intent, p, lastLen);
}

function has(intent: usize, subject: u32, value: string): bool {
  scratchReset();
  const p = utf8(value);
  // The named reading: how values are found and matched, whatever role the words give them
  // (roles and moods: tests/vectors/requests.yaml).
  return intentHas(intent, subject, p, lastLen, INTENT_NAMED) == YES;
}

// The summary's kind and value (or capability and verb) columns.
function summary(intent: usize): string {
  outBegin();
  intentWriteSummary(intent);
  const record = <usize>(outFinish() & ~1);
  const lines = text(record + 4, load<u32>(record)).split("\n");
  let out = "";
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].length == 0) continue;
    const cols = lines[i].split("\t");
    const verb = cols[0] == "grant" || cols[0] == "prohibit" || cols[0] == "grant-maybe" || cols[0] == "ask";
    out += cols[0] + "\t" + cols[1] + (verb && cols.length > 2 ? "\t" + cols[2] : "") + "\n";
  }
  return out;
}

describe("intent: named items", () => {
  beforeAll(() => {
    installPolicy();
    configureTestEnv();
  });

  it("names people and quoted names for recipients, not the word that opens a sentence", () => {
    const i = bind(0, "Summarize the article Bob posted in the 'general' channel and send it to Alice. Invite Dora. 2. Post it");
    expect(has(i, SUBJ_RECIPIENT, "alice")).toBe(true);
    expect(has(i, SUBJ_RECIPIENT, "bob")).toBe(true);
    expect(has(i, SUBJ_RECIPIENT, "general")).toBe(true);
    expect(has(i, SUBJ_RECIPIENT, "dora")).toBe(true);
    expect(has(i, SUBJ_RECIPIENT, "telegram:dora")).toBe(true);
    expect(has(i, SUBJ_RECIPIENT, "summarize")).toBe(false);
    expect(has(i, SUBJ_RECIPIENT, "invite")).toBe(false);
    expect(has(i, SUBJ_RECIPIENT, "post")).toBe(false);
    expect(has(i, SUBJ_RECIPIENT, "#alice")).toBe(false); // a channel is not the person
    expect(has(i, SUBJ_EMAIL, "alice")).toBe(false);
    intentFree(i);
  });

  it("reads an apostrophe inside a word as no quote", () => {
    const i = bind(0, "don't post, it's 'random' we want");
    expect(has(i, SUBJ_RECIPIENT, "t post, it")).toBe(false);
    expect(has(i, SUBJ_RECIPIENT, "random")).toBe(true);
    intentFree(i);
  });

  it("names addresses in normal form", () => {
    const i = bind(0, "Email Bob@Example.com the report");
    expect(i).toBeGreaterThan(0);
    expect(has(i, SUBJ_EMAIL, "bob@example.com")).toBe(true);
    expect(has(i, SUBJ_EMAIL, "eve@attacker.example")).toBe(false);
    expect(has(i, SUBJ_RECIPIENT, "bob@example.com")).toBe(true);
    intentFree(i);
  });

  it("names the host of an address as a mention, that host alone", () => {
    const i = bind(0, "Email Bob@Example.com the report, but not eve@evil.example");
    expect(has(i, SUBJ_DOMAIN, "example.com")).toBe(true);
    expect(has(i, SUBJ_DOMAIN, "status.example.com")).toBe(false); // no subdomain
    scratchReset();
    const host = utf8("example.com");
    expect(intentHas(i, SUBJ_DOMAIN, host, lastLen, INTENT_SOURCE)).toBe(NO); // nothing may reach it
    expect(intentHas(i, SUBJ_DOMAIN, host, lastLen, INTENT_DESTINATION)).toBe(NO);
    expect(has(i, SUBJ_DOMAIN, "evil.example")).toBe(false); // a ruled-out address names nothing
    expect(summary(i)).not.toContain("domain\texample.com"); // the address's line says it
    intentFree(i);
  });

  it("names domains, and the hosts of URLs", () => {
    const i = bind(0, "Check example.com and clone https://GitHub.com/example/repo.");
    expect(has(i, SUBJ_DOMAIN, "example.com")).toBe(true);
    expect(has(i, SUBJ_DOMAIN, "docs.example.com")).toBe(true);
    expect(has(i, SUBJ_DOMAIN, "badexample.com")).toBe(false);
    expect(has(i, SUBJ_DOMAIN, "com")).toBe(false);
    expect(has(i, SUBJ_DOMAIN, "github.com")).toBe(true);
    expect(has(i, SUBJ_URL, "https://github.com/example/repo")).toBe(true);
    expect(has(i, SUBJ_URL, "https://github.com/example/repo/issues")).toBe(true);
    // A URL names itself and the paths below it, not every page of its host; a host named as
    // itself names every URL on it.
    expect(has(i, SUBJ_URL, "https://github.com/other/thing")).toBe(false);
    expect(has(i, SUBJ_URL, "https://github.com/example/repository")).toBe(false);
    expect(has(i, SUBJ_URL, "https://user@example.com:443/x")).toBe(true);
    expect(has(i, SUBJ_URL, "https://gitlab.com/example/repo")).toBe(false);
    expect(has(i, SUBJ_URL, "https://github.com.evil.io/")).toBe(false);
    intentFree(i);
  });

  it("grants a URL by itself or by its host, not by a parent of it", () => {
    const i = bind(0, "Summarize https://docs.python.org/3/whatsnew/");
    expect(has(i, SUBJ_URL, "https://docs.python.org/3/whatsnew/3.13.html")).toBe(true);
    expect(has(i, SUBJ_URL, "https://docs.python.org@attacker.example/")).toBe(false);
    expect(has(i, SUBJ_URL, "https://python.org/")).toBe(false);
    intentFree(i);
  });

  it("names paths and the directories below them", () => {
    const i = bind(0, "Summarize notes.txt into summary.md, see ~/.ssh/config and src/");
    expect(has(i, SUBJ_PATH, "/home/user/project/summary.md")).toBe(true);
    expect(has(i, SUBJ_PATH, "/home/user/project/notes.txt")).toBe(true);
    expect(has(i, SUBJ_PATH, "/home/user/project/other.md")).toBe(false);
    expect(has(i, SUBJ_PATH, "/home/user/.ssh/config")).toBe(true);
    expect(has(i, SUBJ_PATH, "/home/user/.ssh/id_rsa")).toBe(false);
    expect(has(i, SUBJ_PATH, "/home/user/project/src/app.py")).toBe(true);
    expect(has(i, SUBJ_PATH, "/home/user/project/srcx")).toBe(false);
    expect(has(i, SUBJ_PATH, "/home/user/project")).toBe(false);
    intentFree(i);
  });

  it("names channels and handles", () => {
    const i = bind(0, "Post the release notes to #General and ping @Alice");
    expect(has(i, SUBJ_RECIPIENT, "#general")).toBe(true);
    expect(has(i, SUBJ_RECIPIENT, "general")).toBe(true);
    expect(has(i, SUBJ_RECIPIENT, "slack:#general")).toBe(true);
    expect(has(i, SUBJ_RECIPIENT, "slack:general")).toBe(true);
    expect(has(i, SUBJ_RECIPIENT, "@alice")).toBe(true);
    expect(has(i, SUBJ_RECIPIENT, "alice")).toBe(true);
    expect(has(i, SUBJ_RECIPIENT, "#random")).toBe(false);
    expect(has(i, SUBJ_RECIPIENT, "@general")).toBe(false);
    expect(has(i, SUBJ_RECIPIENT, "a:b:#general")).toBe(false);
    intentFree(i);
  });

  it("compares ARG values with every kind of named item", () => {
    const i = bind(0, "Send notes.txt to bob@x.com");
    expect(has(i, SUBJ_ARG, "bob@x.com")).toBe(true);
    expect(has(i, SUBJ_ARG, "/home/user/project/notes.txt")).toBe(true);
    expect(has(i, SUBJ_ARG, "notes.txt")).toBe(false);
    expect(has(i, SUBJ_PROGRAM, "bob@x.com")).toBe(false);
    intentFree(i);
  });

  it("keeps lookups of hostile values linear", () => {
    const i = bind(0, "Look at /srv/data and example.com");
    scratchReset();
    const deep = repeated("/a", 200000);
    expect(intentHas(i, SUBJ_PATH, deep, lastLen, INTENT_DESTINATION)).toBe(NO);
    const dots = repeated("a.", 100000);
    expect(intentHas(i, SUBJ_DOMAIN, dots, lastLen, INTENT_DESTINATION)).toBe(NO);
    expect(has(i, SUBJ_DOMAIN, "a.".repeat(130) + "example.com")).toBe(false);
    expect(has(i, SUBJ_DOMAIN, "a.".repeat(100) + "example.com")).toBe(true);
    expect(has(i, SUBJ_PATH, "/srv/data" + "/x".repeat(50000))).toBe(true);
    intentFree(i);
  });

  it("holds nothing without a store", () => {
    expect(has(0, SUBJ_EMAIL, "bob@x.com")).toBe(false);
    expect(intentProhibits(0, CLASS_SEND)).toBe(false);
    expect(summary(0)).toBe("");
  });
});

describe("intent: prohibitions", () => {
  it("prohibits the classes of a negated verb", () => {
    const i = bind(0, "Read my mail, send nothing");
    expect(intentProhibits(i, CLASS_SEND)).toBe(true);
    expect(intentProhibits(i, CLASS_DELETE)).toBe(false);
    expect(intentProhibits(i, 0)).toBe(false);
    expect(intentProhibits(i, 1000)).toBe(false);
    intentFree(i);
  });

  it("prohibits every class of a verb", () => {
    const i = bind(0, "Don’t run anything");
    expect(intentProhibits(i, CLASS_SHELL)).toBe(true);
    expect(intentProhibits(i, CLASS_CODE)).toBe(true);
    intentFree(i);
  });

  it("grants what a negation with a cancelling word asks for", () => {
    const i = bind(0, "Create the event. Do not forget to email Mark, and don't hesitate to delete the draft");
    expect(intentProhibits(i, CLASS_SEND)).toBe(false);
    expect(intentProhibits(i, CLASS_DELETE)).toBe(false);
    expect(intentGrants(i, CLASS_SEND, 0)).toBe(YES);
    expect(intentGrants(i, CLASS_DELETE, 0)).toBe(YES);
    intentFree(i);
    const j = bind(0, "Do not forget: never email Mark");
    expect(intentProhibits(j, CLASS_SEND)).toBe(true);
    intentFree(j);
  });

  it("binds a prohibition to its clause", () => {
    const i = bind(0, "Don't delete anything, but email bob@example.com the summary");
    expect(intentProhibits(i, CLASS_DELETE)).toBe(true);
    expect(intentProhibits(i, CLASS_SEND)).toBe(false);
    expect(has(i, SUBJ_EMAIL, "bob@example.com")).toBe(true);
    intentFree(i);
  });
});

describe("intent: binding", () => {
  it("amends by union, and keeps each item once", () => {
    let i = bind(0, "Summarize the thread");
    i = bind(i, "now email it to carol@example.org too");
    i = bind(i, "and to carol@example.org, and never write files");
    expect(has(i, SUBJ_EMAIL, "carol@example.org")).toBe(true);
    expect(intentProhibits(i, CLASS_WRITE)).toBe(true);
    i = bind(i, "save nothing, write nothing");
    expect(summary(i)).toBe("email\tcarol@example.org\nprohibit\tfile.write\twrite\ngrant\tmessage.send\temail\n");
    expect(intentGrants(i, CLASS_SEND, 0)).toBe(YES);
    expect(intentGrants(i, CLASS_WRITE, 0)).toBe(NO);
    intentFree(i);
  });

  it("writes the summary by kind", () => {
    const i = bind(0, "Mail a@b.co about https://x.io/p, y.org, ./r.md and #c; don't delete it");
    expect(summary(i)).toBe("email\ta@b.co\nurl\thttps://x.io/p\ndomain\tx.io\ndomain\ty.org\npath\t/home/user/project/r.md\nrecipient\t#c\nobject\tp\nprohibit\tdata.delete\tdelete\ngrant\tmessage.send\tmail\n");
    intentFree(i);
  });

  it("binds an empty message into a store", () => {
    const i = bind(0, "");
    expect(i).toBeGreaterThan(0);
    expect(summary(i)).toBe("");
    intentFree(i);
  });

  it("reads at most MAX_INTENT_BYTES", () => {
    installPolicy(100, 12);
    const i = bind(0, "0123456789 bob@x.com");
    expect(has(i, SUBJ_EMAIL, "bob@x.com")).toBe(false);
    intentFree(i);
    installPolicy();
  });

  it("holds thousands of items", () => {
    let message = "";
    for (let k = 0; k < 3000; k++) message += "u" + k.toString() + "@x.com ";
    const i = bind(0, message);
    expect(has(i, SUBJ_EMAIL, "u0@x.com")).toBe(true);
    expect(has(i, SUBJ_EMAIL, "u2999@x.com")).toBe(true);
    expect(has(i, SUBJ_EMAIL, "u3000@x.com")).toBe(false);
    intentFree(i);
  });

  it("grants a value the user ruled out under no reading, and takes back what lies below it", () => {
    const i = bind(0, "Summarize docs/ and example.com but not docs/private, never read ~/.ssh/id_rsa, except evil.example.com");
    expect(has(i, SUBJ_PATH, "/home/user/project/docs/guide.md")).toBe(true);
    expect(has(i, SUBJ_PATH, "/home/user/project/docs/private")).toBe(false);
    expect(has(i, SUBJ_PATH, "/home/user/project/docs/private/plan.md")).toBe(false);
    expect(has(i, SUBJ_PATH, "/home/user/.ssh/id_rsa")).toBe(false);
    expect(has(i, SUBJ_DOMAIN, "www.example.com")).toBe(true);
    expect(has(i, SUBJ_DOMAIN, "evil.example.com")).toBe(false);
    expect(has(i, SUBJ_DOMAIN, "cdn.evil.example.com")).toBe(false);
    intentFree(i);
  });

  it("keeps what another clause of the message grants, and a later turn rules out every reading", () => {
    let i = bind(0, "Read ~/.ssh/config, and do not print ~/.ssh/config");
    expect(has(i, SUBJ_PATH, "/home/user/.ssh/config")).toBe(true);
    i = bind(i, "no, not ~/.ssh/config");
    expect(has(i, SUBJ_PATH, "/home/user/.ssh/config")).toBe(false);
    i = bind(i, "ok, read ~/.ssh/config");
    expect(has(i, SUBJ_PATH, "/home/user/.ssh/config")).toBe(true);
    intentFree(i);
  });

  it("reads exact: the value itself, not a directory or parent above it", () => {
    const i = bind(0, "Check the permissions on ~/.ssh and fetch example.com and ~/.aws/config");
    scratchReset();
    const dir = utf8("/home/user/.ssh");
    expect(intentHas(i, SUBJ_PATH, dir, lastLen, INTENT_EXACT)).toBe(YES);
    scratchReset();
    const key = utf8("/home/user/.ssh/id_rsa");
    expect(intentHas(i, SUBJ_PATH, key, lastLen, INTENT_EXACT)).toBe(NO);
    expect(intentHas(i, SUBJ_PATH, key, lastLen, INTENT_NAMED)).toBe(YES);
    scratchReset();
    const config = utf8("/home/user/.aws/config");
    expect(intentHas(i, SUBJ_PATH, config, lastLen, INTENT_EXACT)).toBe(YES);
    scratchReset();
    const sub = utf8("www.example.com");
    expect(intentHas(i, SUBJ_DOMAIN, sub, lastLen, INTENT_EXACT)).toBe(NO);
    expect(intentHas(i, SUBJ_DOMAIN, sub, lastLen, INTENT_NAMED)).toBe(YES);
    intentFree(i);
  });

  it("reads invalid and truncated UTF-8", () => {
    scratchReset();
    // "x@y.co " then a lone continuation byte, an overlong '/', and a cut-off ’ and “
    const p = raw([0x78, 0x40, 0x79, 0x2e, 0x63, 0x6f, 0x20, 0x80, 0x20, 0xc0, 0xaf, 0x20, 0x6e, 0x6f, 0x74, 0x20, 0xe2, 0x80]);
    const i = intentBind(0, p, lastLen);
    expect(i).toBeGreaterThan(0);
    // Read, and ruled out by the "not" after it in its clause.
    expect(summary(i)).toBe("email\tx@y.co\n");
    expect(has(i, SUBJ_EMAIL, "x@y.co")).toBe(false);
    intentFree(i);
  });

  it("reads a hostile 64 KB message", () => {
    scratchReset();
    const p = repeated("don't ’’ @ # ~ ../ http:// a@ .. ", 2000);
    const i = intentBind(0, p, lastLen);
    expect(i).toBeGreaterThan(0);
    intentFree(i);
  });
});
