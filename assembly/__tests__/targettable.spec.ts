import { SUBJ_DOMAIN, SUBJ_URL, SUBJ_PATH, SUBJ_EMAIL } from "../../bytecode/format";
import {
  tableBegin, tableStatus, targetCount, targetKind, targetPtr, targetLen, addTarget, addTargetCopy,
  addUrl, addPath, addHost, setWorkdir, TARGETS_OK, TARGETS_LIMIT,
} from "../readers/targettable";
import { scratchReset } from "../abi/mem";
import { utf8, lastLen, text, configureTestEnv } from "./helpers";

function all(): string {
  let out = "";
  for (let i: u32 = 0; i < targetCount(); i++) {
    out += (i > 0 ? "," : "") + targetKind(i).toString() + ":" + text(targetPtr(i), targetLen(i));
  }
  return out;
}

describe("target table", () => {
  beforeAll(() => {
    configureTestEnv();
  });
  beforeEach(() => {
    scratchReset();
    tableBegin(4);
  });

  it("keeps each (kind, value) once and drops empty values", () => {
    const a = utf8("x@y.com");
    addTarget(SUBJ_EMAIL, a, lastLen);
    const b = utf8("x@y.com");
    addTarget(SUBJ_EMAIL, b, lastLen);
    addTarget(SUBJ_DOMAIN, b, lastLen);
    addTarget(SUBJ_DOMAIN, b, 0);
    expect(all()).toBe("2:x@y.com,3:x@y.com");
  });

  it("copies transient values", () => {
    const a = utf8("curl");
    addTargetCopy(6, a, lastLen);
    store<u8>(a, 0x78);
    expect(all()).toBe("6:curl");
  });

  it("fails with a limit past maxTargets, and the failure sticks", () => {
    for (let i = 0; i < 4; i++) {
      const p = utf8("/p" + i.toString());
      addPath(p, lastLen);
    }
    expect(tableStatus()).toBe(TARGETS_OK);
    const again = utf8("/p0");
    addPath(again, lastLen);
    expect(tableStatus()).toBe(TARGETS_OK);
    const more = utf8("/p4");
    addPath(more, lastLen);
    expect(tableStatus()).toBe(TARGETS_LIMIT);
    tableBegin(4);
    expect(tableStatus()).toBe(TARGETS_OK);
    expect(targetCount()).toBe(0);
  });

  it("grows its index past the first sizes", () => {
    tableBegin(5000);
    for (let i = 0; i < 3000; i++) {
      const p = utf8("h" + i.toString() + ".example");
      addHost(p, lastLen);
    }
    for (let i = 0; i < 3000; i++) {
      const p = utf8("H" + i.toString() + ".Example.");
      addHost(p, lastLen);
    }
    expect(targetCount()).toBe(3000);
    expect(tableStatus()).toBe(TARGETS_OK);
  });

  it("adds a URL with its hosts and a file URL's path", () => {
    tableBegin(10);
    const u = utf8("HTTPS://Good.com@Evil.COM:443/x");
    addUrl(u, lastLen);
    expect(all()).toBe("4:https://Good.com@evil.com/x,3:evil.com"); // https's default port dropped
    tableBegin(10);
    const v = utf8("https://evil.com\\@good.com/");
    addUrl(v, lastLen);
    expect(all()).toBe("4:https://evil.com\\@good.com/,3:good.com,3:evil.com");
    tableBegin(10);
    const f = utf8("file:///home/user/.ssh/id_rsa");
    addUrl(f, lastLen);
    expect(all()).toBe("4:file:///home/user/.ssh/id_rsa,5:/home/user/.ssh/id_rsa");
  });

  it("resolves paths against the workdir, itself resolved against the working directory", () => {
    const w = utf8("../srv/./app/");
    setWorkdir(w, lastLen);
    const p = utf8("x/../y");
    addPath(p, lastLen);
    expect(all()).toBe("5:/home/user/srv/app/y");
    tableBegin(4);
    addPath(p, lastLen);
    expect(all()).toBe("5:/home/user/project/y");
  });
});
