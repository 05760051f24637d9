import { globMatch, globsMeet, literalHead, literalDir } from "../readers/glob";
import { scratchReset } from "../abi/mem";
import { utf8, repeated, lastLen } from "./helpers";

function glob(pattern: string, value: string): bool {
  const p = utf8(pattern);
  const pl = lastLen;
  const v = utf8(value);
  return globMatch(p, pl, v, lastLen);
}

describe("glob", () => {
  beforeEach(() => scratchReset());

  it("matches literals exactly", () => {
    expect(glob("/etc/passwd", "/etc/passwd")).toBe(true);
    expect(glob("/etc/passwd", "/etc/passwd2")).toBe(false);
    expect(glob("/etc/passwd", "/etc/pass")).toBe(false);
    expect(glob("", "")).toBe(true);
    expect(glob("", "a")).toBe(false);
    expect(glob("a", "")).toBe(false);
  });

  it("keeps * inside one path segment", () => {
    expect(glob("*.py", "main.py")).toBe(true);
    expect(glob("*.py", "src/main.py")).toBe(false);
    expect(glob("/home/*/x", "/home/u/x")).toBe(true);
    expect(glob("/home/*/x", "/home/u/v/x")).toBe(false);
    expect(glob("abc*", "abc")).toBe(true);
    expect(glob("*", "")).toBe(true);
    expect(glob("*", "/")).toBe(false);
  });

  it("lets ** cross segments", () => {
    expect(glob("**/.env", "/home/u/project/.env")).toBe(true);
    expect(glob("**/.env", "/.env")).toBe(true);
    expect(glob("**/.env", ".env")).toBe(false);
    expect(glob("**/.env", "/home/u/.env.local")).toBe(false);
    expect(glob("**/.env.*", "/home/u/.env.local")).toBe(true);
    expect(glob("~/.ssh/**", "~/.ssh/id_rsa")).toBe(true);
    expect(glob("~/.ssh/**", "~/.ssh/keys/id_rsa")).toBe(true);
    expect(glob("~/.ssh/**", "~/.ssh")).toBe(false);
    expect(glob("**/.git/hooks/**", "/p/.git/hooks/pre-commit")).toBe(true);
    expect(glob("***", "a/b")).toBe(true);
  });

  it("lets /**/ match zero directories, and only there", () => {
    expect(glob("/home/**/.env", "/home/.env")).toBe(true);
    expect(glob("/home/**/.env", "/home/u/p/.env")).toBe(true);
    expect(glob("/home/**/.env", "/home//.env")).toBe(true);
    expect(glob("/home/**/.env", "/home/x.env")).toBe(false); // not `/home/**.env`
    expect(glob("/home/**/.env", "/homer/.env")).toBe(false);
    expect(glob("**/.git/hooks/**", "/.git/hooks/x")).toBe(true);
    expect(glob("/a/**/b/**/c", "/a/b/c")).toBe(true);
    expect(glob("/a/***/b", "/a/b")).toBe(true);
    expect(glob("/a/**b", "/a/b")).toBe(true);
    expect(glob("/a/**b", "/ab")).toBe(false);
    expect(glob("a**/b", "ab")).toBe(false);
    expect(glob("/a/**/?", "/a/x")).toBe(true);
    expect(glob("/a/**/?", "/a/")).toBe(false);
  });

  it("turns values away by their literal head, tail and middle runs alone", () => {
    expect(glob("ab*ba", "aba")).toBe(false); // head and tail may not share a byte
    expect(glob("ab*ba", "abba")).toBe(true);
    expect(glob("**/.git/hooks/**", "/p/.git/config")).toBe(false);
    expect(glob("**/.git/hooks/**", "/.git/hooks/")).toBe(true);
    expect(glob("a*mid*z", "a-mi-d-z")).toBe(false);
    expect(glob("a*mid*z", "amidz")).toBe(true);
    expect(glob("*mid?*", "xmid")).toBe(false);
    expect(glob("*mid?*", "xmidy")).toBe(true);
  });

  it("matches ? as one byte other than /", () => {
    expect(glob("a?c", "abc")).toBe(true);
    expect(glob("a?c", "a/c")).toBe(false);
    expect(glob("a?c", "ac")).toBe(false);
    expect(glob("??", "ab")).toBe(true);
  });

  it("chooses between * and ** placements correctly", () => {
    // ** must give up the first x so that * need not cross '/'
    expect(glob("**x*y", "x/xy")).toBe(true);
    expect(glob("*a*b", "xa/ab")).toBe(false);
    expect(glob("**a*b", "xa/ab")).toBe(true);
    expect(glob("*/*", "a/b")).toBe(true);
    expect(glob("*/*", "a/b/c")).toBe(false);
    expect(glob("**/*", "a/b/c")).toBe(true);
  });

  it("stays linear on hostile patterns and values", () => {
    const many = repeated("a", 100000);
    const n = lastLen;
    const p1 = utf8("*a*a*a*a*a*a*a*a*a*a*a*a*b");
    expect(globMatch(p1, lastLen, many, n)).toBe(false);
    const p2 = utf8("**a**a**a**a**a**a**a**a**b");
    expect(globMatch(p2, lastLen, many, n)).toBe(false);
    const p3 = utf8("**a**a**a**a**a**a**a**a**a");
    expect(globMatch(p3, lastLen, many, n)).toBe(true);
  });

  it("handles patterns longer than the static state", () => {
    const a = "a".repeat(3000);
    expect(glob(a + "*", a + "xyz")).toBe(true);
    expect(glob(a + "*", a + "x/z")).toBe(false);
    expect(glob(a + "?" + a, a + "b" + a)).toBe(true);
  });
});

// globsMeet against its definition: two patterns meet when some string matches both. Every
// pattern of up to three tokens over a small alphabet is paired with every other, and strings
// over {a, b, /} of up to five bytes are tried as witnesses: long enough for these patterns, whose
// shortest common string is never longer than their literal bytes plus one per wildcard.
const TOKENS: string[] = ["a", "/", "*", "?", "**"];
const WITNESS_BYTES: string[] = ["a", "b", "/"];

function patterns(): string[] {
  const out: string[] = [""];
  let layer: string[] = [""];
  for (let depth = 0; depth < 3; depth++) {
    const next: string[] = [];
    for (let i = 0; i < layer.length; i++) for (let t = 0; t < TOKENS.length; t++) next.push(layer[i] + TOKENS[t]);
    for (let i = 0; i < next.length; i++) out.push(next[i]);
    layer = next;
  }
  return out;
}

function witnesses(): string[] {
  const out: string[] = [""];
  let layer: string[] = [""];
  for (let depth = 0; depth < 5; depth++) {
    const next: string[] = [];
    for (let i = 0; i < layer.length; i++) for (let t = 0; t < WITNESS_BYTES.length; t++) next.push(layer[i] + WITNESS_BYTES[t]);
    for (let i = 0; i < next.length; i++) out.push(next[i]);
    layer = next;
  }
  return out;
}

describe("globsMeet", () => {
  it("holds exactly when some string matches both patterns", () => {
    const all = patterns();
    const strings = witnesses();
    // Which strings each pattern matches, once.
    const matches: Array<Array<bool>> = [];
    for (let i = 0; i < all.length; i++) {
      const row: Array<bool> = [];
      for (let k = 0; k < strings.length; k++) {
        scratchReset();
        row.push(glob(all[i], strings[k]));
      }
      matches.push(row);
    }
    let wrong = 0;
    for (let i = 0; i < all.length; i++) {
      for (let j = i; j < all.length; j++) {
        let both = false;
        for (let k = 0; k < strings.length && !both; k++) both = matches[i][k] && matches[j][k];
        scratchReset();
        const a = utf8(all[i]);
        const al = lastLen;
        const b = utf8(all[j]);
        if (globsMeet(a, al, b, lastLen) != both) wrong++;
      }
    }
    expect(wrong).toBe(0);
  });

  it("reads a pattern's literal head and directory", () => {
    scratchReset();
    const p = utf8("/home/u/docs/*.md");
    expect(literalHead(p, lastLen)).toBe(13);
    expect(literalDir(p, lastLen)).toBe(12);
    const q = utf8("/x*");
    expect(literalDir(q, lastLen)).toBe(1);
    const r = utf8("*.md");
    expect(literalDir(r, lastLen)).toBe(0);
  });
});
