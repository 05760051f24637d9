import { v4aBegin, v4aNext, foundStart, foundEnd, nextFrom } from "../readers/v4a";
import { utf8, lastLen, text } from "./helpers";

// The header paths of a patch, joined by '|'.
function paths(patch: string): string {
  const p = utf8(patch);
  const n = lastLen;
  v4aBegin();
  let out = "";
  let from: u32 = 0;
  let first = true;
  while (v4aNext(p, n, from)) {
    out += (first ? "" : "|") + text(p + foundStart, foundEnd - foundStart);
    first = false;
    from = nextFrom;
  }
  return out;
}

describe("v4a headers", () => {
  it("reads every header of a patch", () => {
    expect(paths("*** Begin Patch\n*** Update File: src/app.py\n@@\n-x\n+y\n***Add File:   ~/.bashrc\n+evil\n*** End Patch\n"))
      .toBe("src/app.py|~/.bashrc");
    expect(paths("*** Delete File: a.txt\r\n*** Update File: b.txt")).toBe("a.txt|b.txt");
    expect(paths("*** Update File: my file.txt  \n")).toBe("my file.txt");
  });

  it("reads both paths of a move", () => {
    expect(paths("*** Move File: a.py -> b/c.py\n*** Move to: d.py\n")).toBe("a.py|b/c.py|d.py");
    expect(paths("*** Move File: a->b -> c")).toBe("a|b -> c");
    expect(paths("*** Move File: a ->   ")).toBe("a");
    expect(paths("*** Move File: -> b")).toBe("");
  });

  it("tolerates any white space Python's regex takes", () => {
    expect(paths("***\u00a0Add\u2003File:\u3000evil.sh\u00a0 \n")).toBe("evil.sh");
    expect(paths("***\tUpdate \t File:x")).toBe("x");
    expect(paths("***\u001fDelete\u0085File: y")).toBe("y");
  });

  it("ignores lines that are not headers", () => {
    expect(paths("+*** Add File: a\n *** Add File: b\n*** Addendum File: c\n*** AddFile: d\n*** add file: e\n** Add File: f")).toBe("");
    expect(paths("*** Add File:\n*** Add File:   \n*** Update: x\n*** Begin Patch\n*** End Patch")).toBe("");
  });

  it("reads nothing from empty or header-only text", () => {
    expect(paths("")).toBe("");
    expect(paths("***")).toBe("");
    expect(paths("\n\n\n")).toBe("");
  });
});
