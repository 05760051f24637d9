import {
  configureEnv, homePtr, homeLen, cwdPtr, cwdLen, resolvePath, isRelativePath, normalizeEmail, isAddress,
  normalizeUrl, urlHost, normalizeHost, hostOfNormalUrl, fileUrlPath, spanPtr, spanLen,
} from "../readers/normalize";
import { scratchReset } from "../abi/mem";
import { utf8, lastLen, spanText, text } from "./helpers";

function path(s: string): string {
  const p = utf8(s);
  return spanText(resolvePath(p, lastLen, cwdPtr(), cwdLen()));
}

function email(s: string): string {
  const p = utf8(s);
  return spanText(normalizeEmail(p, lastLen));
}

function address(s: string): bool {
  const p = utf8(s);
  return isAddress(p, lastLen);
}

function url(s: string): string {
  const p = utf8(s);
  return spanText(normalizeUrl(p, lastLen));
}

function host(s: string, backslashEnds: bool = false): string {
  const p = utf8(s);
  return spanText(urlHost(p, lastLen, backslashEnds));
}

function bareHost(s: string): string {
  const p = utf8(s);
  return spanText(normalizeHost(p, lastLen));
}

function configure(h: string, c: string): bool {
  const hp = utf8(h);
  const hl = lastLen;
  const cp = utf8(c);
  return configureEnv(hp, hl, cp, lastLen, 0, 0, 0);
}

describe("paths without a configured home", () => {
  beforeEach(() => scratchReset());

  it("keeps ~ as the root of the ~ form", () => {
    expect(path("~/.ssh/../x")).toBe("~/x");
    expect(path("~/../../etc")).toBe("~/etc");
    expect(path("$HOME/a/")).toBe("~/a");
    expect(path("~")).toBe("~");
  });

  it("resolves relative paths against /", () => {
    expect(path("a/b")).toBe("/a/b");
  });

  it("resolves relative paths against a base in the ~ form", () => {
    const base = utf8("~/work");
    const bl = lastLen;
    const p = utf8("../x/./y");
    expect(spanText(resolvePath(p, lastLen, base, bl))).toBe("~/x/y");
    const q = utf8("../../../z");
    expect(spanText(resolvePath(q, lastLen, base, bl))).toBe("~/z");
  });
});

describe("configureEnv", () => {
  beforeEach(() => scratchReset());

  it("takes absolute directories in normal form", () => {
    expect(configure("/home/user/", "/home/user/project/./")).toBe(true);
    expect(text(homePtr(), homeLen())).toBe("/home/user");
    expect(text(cwdPtr(), cwdLen())).toBe("/home/user/project");
  });

  it("rejects relative ones and keeps the previous", () => {
    expect(configure("home", "/tmp")).toBe(false);
    expect(configure("/tmp", "project")).toBe(false);
    expect(text(homePtr(), homeLen())).toBe("/home/user");
    expect(text(cwdPtr(), cwdLen())).toBe("/home/user/project");
  });

  it("takes an empty working directory as unknown", () => {
    expect(configure("/home/user", "")).toBe(true);
    expect(cwdLen()).toBe(0);
    expect(configure("/home/user", "/home/user/project")).toBe(true);
  });
});

describe("paths", () => {
  beforeEach(() => scratchReset());

  it("tells the paths that resolve against the working directory", () => {
    const relative = ["notes.txt", "./a", "../a", " .ssh/id_rsa", "$HOMEX/a", "~", "$HOME", "${HOME}/a", "/etc"];
    const expected = [true, true, true, true, true, false, false, false, false];
    for (let k = 0; k < relative.length; k++) {
      const p = utf8(relative[k]);
      expect(isRelativePath(p, lastLen)).toBe(expected[k]);
    }
  });

  it("resolves relative paths against the working directory", () => {
    expect(path("notes.txt")).toBe("/home/user/project/notes.txt");
    expect(path(".")).toBe("/home/user/project");
    expect(path("./src//app.py")).toBe("/home/user/project/src/app.py");
  });

  it("resolves traversal", () => {
    expect(path("../.bashrc")).toBe("/home/user/.bashrc");
    expect(path("/home/user/project/./docs/../summary.md")).toBe("/home/user/project/summary.md");
    expect(path("a/b/../../..")).toBe("/home/user");
    expect(path("/../../etc/passwd")).toBe("/etc/passwd");
    expect(path("/etc/..")).toBe("/");
    expect(path("/etc/.")).toBe("/etc");
    expect(path("/a/...")).toBe("/a/...");
  });

  it("drops repeated and trailing slashes", () => {
    expect(path("//etc//passwd//")).toBe("/etc/passwd");
    expect(path("/")).toBe("/");
    expect(path("////")).toBe("/");
  });

  it("expands home spellings", () => {
    expect(path("~")).toBe("/home/user");
    expect(path("~/")).toBe("/home/user");
    expect(path("~/.ssh/id_ed25519")).toBe("/home/user/.ssh/id_ed25519");
    expect(path("$HOME/.ssh/authorized_keys")).toBe("/home/user/.ssh/authorized_keys");
    expect(path("${HOME}/.aws/../.aws/credentials")).toBe("/home/user/.aws/credentials");
    expect(path("$HOME")).toBe("/home/user");
    expect(path("~root/.ssh")).toBe("/root/.ssh");
    expect(path("~bob/x")).toBe("/home/bob/x");
  });

  it("does not expand look-alikes", () => {
    expect(path("$HOMEX/a")).toBe("/home/user/project/$HOMEX/a");
    expect(path("a/~/b")).toBe("/home/user/project/a/~/b");
    expect(path("$home/a")).toBe("/home/user/project/$home/a");
  });

  it("trims white space and refuses empty paths", () => {
    expect(path("  /etc/x \n")).toBe("/etc/x");
    expect(path("")).toBe("<none>");
    expect(path("   ")).toBe("<none>");
  });

  it("resolves against a given base", () => {
    const base = utf8("/srv/app");
    const bl = lastLen;
    const p = utf8("../etc/x");
    expect(spanText(resolvePath(p, lastLen, base, bl))).toBe("/srv/etc/x");
  });
});

describe("e-mail addresses", () => {
  beforeEach(() => scratchReset());

  it("drops display names and lower-cases", () => {
    expect(email('"Bob Smith" <BOB@example.COM>')).toBe("bob@example.com");
    expect(email("Bob <bob@x.com")).toBe("bob@x.com");
    expect(email("  Bob@X.com.  ")).toBe("bob@x.com");
  });

  it("takes the address in the brackets, not one in the display name", () => {
    expect(email('"bob@example.com" <eve@attacker.example>')).toBe("eve@attacker.example");
    expect(email('"a<b@c.com>" <d@e.com>')).toBe("d@e.com");
    expect(email('"x\\"<y@z.com>" <d@e.com>')).toBe("d@e.com");
  });

  it("drops mailto:", () => {
    expect(email("mailto:Bob@X.com")).toBe("bob@x.com");
    expect(email("<MAILTO:bob@x.com>")).toBe("bob@x.com");
  });

  it("gives nothing for nothing", () => {
    expect(email("")).toBe("<none>");
    expect(email(" <> ")).toBe("<none>");
  });

  it("tells addresses from other handles", () => {
    expect(address("bob@x.com")).toBe(true);
    expect(address("bob")).toBe(false);
    expect(address("@x.com")).toBe(false);
    expect(address("bob@")).toBe(false);
    expect(address("a@b@c.com")).toBe(false);
    expect(address("matrix:@user:server.org")).toBe(false);
    expect(address("bob@localhost")).toBe(false);
    expect(address("#general")).toBe(false);
  });
});

describe("URLs and hosts", () => {
  beforeEach(() => scratchReset());

  it("lower-cases scheme and host only", () => {
    expect(url("HTTPS://Docs.Python.ORG/3/WhatsNew?Q=A#X")).toBe("https://docs.python.org/3/WhatsNew?Q=A#X");
    expect(url("  http://Attacker.Example:8080/x ")).toBe("http://attacker.example:8080/x");
  });

  it("reads the host after userinfo", () => {
    expect(url("https://Good.com@EVIL.com/x")).toBe("https://Good.com@evil.com/x");
    expect(host("https://docs.python.org@attacker.example/")).toBe("attacker.example");
    expect(host("https://user:pa@ss@Host.COM:99?q")).toBe("host.com");
  });

  it("strips ports, trailing dots and %-encoding from hosts", () => {
    expect(host("http://Attacker.Example:8080/x")).toBe("attacker.example");
    expect(host("https://evil.com./")).toBe("evil.com");
    expect(url("https://evil.com./a")).toBe("https://evil.com/a");
    expect(host("https://%65vil.COM/")).toBe("evil.com");
  });

  it("keeps IPv6 literals in brackets", () => {
    expect(host("https://[::1]:8443/")).toBe("[::1]");
    expect(host("http://[FE80::1]/")).toBe("[fe80::1]");
  });

  it("reads both hosts when a backslash makes parsers disagree", () => {
    expect(host("https://evil.com\\@good.com/", false)).toBe("good.com");
    expect(host("https://evil.com\\@good.com/", true)).toBe("evil.com");
  });

  it("reads hosts of URLs without a scheme", () => {
    expect(host("Example.com/path")).toBe("example.com");
    expect(host("//cdn.example.com/x")).toBe("cdn.example.com");
    expect(host("mailto:bob@x.com")).toBe("<none>");
    expect(host("https:///path")).toBe("<none>");
  });

  it("finds the host of a URL in normal form in place", () => {
    const p = utf8("https://u@docs.python.org:443/3/");
    const h = hostOfNormalUrl(p, lastLen);
    expect(text(spanPtr(h), spanLen(h))).toBe("docs.python.org");
    expect(spanPtr(h)).toBe(p + 10);
  });

  it("normalizes hosts given on their own", () => {
    expect(bareHost("User@Example.COM.:22")).toBe("example.com");
    expect(bareHost("https://A.b/c")).toBe("a.b");
    expect(bareHost(" example.com/x ")).toBe("example.com");
    expect(bareHost("")).toBe("<none>");
  });

  it("reads the path of a file URL", () => {
    const p = utf8("file:///etc/passwd");
    expect(spanText(fileUrlPath(p, lastLen))).toBe("/etc/passwd");
    const q = utf8("FILE://host/x?y");
    expect(spanText(fileUrlPath(q, lastLen))).toBe("/x");
    const r = utf8("https://x/y");
    expect(fileUrlPath(r, lastLen)).toBe(0);
  });
});
