// A rendered body read for what its reader's client fetches, against a browser's own reading (the
// oracle): parse5, the WHATWG HTML parser, finds the fetching attributes (src, srcset, href,
// background, poster, data, a refresh's url=, CSS url() in style attributes and <style>) and the
// text a client links; Node's WHATWG URL resolves each against a page's address as a browser does
// (`//host`, `https:/host`, `https:\\host`, any case). Every host the browser reaches must be a
// DOMAIN target of the send, or the call OPAQUE (never allowed): the fence may read more, never less.
import { describe, expect, test } from "vitest";
import { parse } from "parse5";
import { SUBJ_DOMAIN, SUBJ_OPAQUE } from "../../bytecode/format";
import { compilePolicy } from "../../compiler/index";
import { loadFence } from "../../host-js/host";
import { fenceWasm } from "./wasm";

const BASE = "https://example.invalid/";
const FETCHING = ["src", "href", "background", "poster", "data", "action", "formaction"];

type Node = { nodeName: string; attrs?: { name: string; value: string }[]; childNodes?: Node[]; value?: string; content?: Node };

function cssUrls(css: string): string[] {
  const out = [...css.matchAll(/url\(\s*(['"]?)([^'")]*)\1\s*\)/gi)].map((m) => m[2]);
  return out.concat([...css.matchAll(/@import\s+(['"])([^'"]*)\1/gi)].map((m) => m[2]));
}

// Every URL the document makes its client fetch or link, as written.
function hrefs(html: string): string[] {
  const out: string[] = [];
  let text = "";
  const walk = (n: Node) => {
    if (n.nodeName === "#text") text += n.value;
    for (const a of n.attrs ?? []) {
      if (FETCHING.includes(a.name)) out.push(a.value);
      if (a.name === "srcset") for (const c of a.value.split(/,(?=\s|\S)/)) out.push(c.trim().split(/\s+/)[0]);
      if (a.name === "style") out.push(...cssUrls(a.value));
      if (a.name === "content" && /url\s*=/i.test(a.value)) out.push(a.value.replace(/^.*?url\s*=\s*['"]?/i, "").replace(/['"]$/, ""));
    }
    if (n.nodeName === "style") for (const c of n.childNodes ?? []) out.push(...cssUrls(c.value ?? ""));
    for (const c of n.childNodes ?? []) walk(c);
    if (n.content) walk(n.content);
  };
  walk(parse(html) as unknown as Node);
  return out.concat(text.match(/https?:\/\/[^\s<>"']+/gi) ?? []);
}

// The hosts a browser reaches from the document (beyond the page's own).
function browserHosts(html: string): string[] {
  const hosts = new Set<string>();
  for (const h of hrefs(html)) {
    try {
      const u = new URL(h, BASE);
      const host = u.hostname.replace(/\.+$/, ""); // the fence's normal form: no trailing dot (§6)
      if ((u.protocol === "http:" || u.protocol === "https:") && host !== "example.invalid") hosts.add(host);
    } catch {
      // no URL: nothing fetched
    }
  }
  return [...hosts];
}

// ---- the bodies ----

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32);
}

const HOSTS = ["evil.example", "cdn.tracker.example", "x1.example", "mail.attacker.example", "sub.evil.example"];
const HREFS = [
  (h: string) => `//${h}/p.png`, (h: string) => `https://${h}/p.png`, (h: string) => `HTTPS://${h.toUpperCase()}/x`,
  (h: string) => `https:/${h}/p`, (h: string) => `https:\\\\${h}\\p`, (h: string) => `http:${h}/x`, (h: string) => `\\\\${h}/x`,
  (h: string) => `/\\${h}/x`, (h: string) => `https://user:pw@${h}:8443/x?q=1`, (h: string) => `https://example.com@${h}/`,
  (h: string) => ` \t//${h}`, (h: string) => `hTTp://${h}#f`, (h: string) => `https://${h.replace(".", "%2e")}/`,
];

// Writes s with some characters as character references a browser decodes.
function encode(s: string, r: () => number): string {
  let out = "";
  for (const c of s) {
    const k = r();
    if (k < 0.08) out += `&#${c.charCodeAt(0)};`;
    else if (k < 0.16) out += `&#x${c.charCodeAt(0).toString(16)};`;
    else if (k < 0.2 && c === ":") out += "&colon;";
    else if (k < 0.2 && c === "/") out += "&sol;";
    else if (k < 0.2 && c === ".") out += "&period;";
    else if (k < 0.22) out += c + "&#9;";
    else if (k < 0.24) out += c + "\n";
    else out += c;
  }
  return out;
}

// Where a URL is fetched from; the text of a <style> is no attribute: its references stay as written.
const PLACES: ((u: string, v: string, raw: string) => string)[] = [
  (u: string) => `<img src="${u}">`, (u: string) => `<img src='${u}' alt=x>`, (u: string) => `<img alt=x src=${u.replace(/[\s>"']/g, "")}>`,
  (u: string, v: string) => `<img srcset="${u} 1x, ${v} 2x">`, (u: string) => `<div style="background:url(${u})">x</div>`,
  (u: string) => `<td style="background-image: url('${u}')">`, (_u: string, _v: string, raw: string) => `<style>body{background:url("${raw}")}</style>`,
  (u: string) => `<meta http-equiv=refresh content="0;url=${u}">`, (u: string) => `<link rel=stylesheet href="${u}">`,
  (u: string) => `<table background="${u}"><tr><td>x</td></tr></table>`, (u: string) => `<a href="${u}">read</a>`,
  (u: string) => `<video poster="${u}"></video>`, (u: string) => `<iframe src="${u}"></iframe>`, (u: string) => `<object data="${u}"></object>`,
];

function body(r: () => number): string {
  const pick = <T,>(a: T[]) => a[Math.floor(r() * a.length)];
  let html = "<html><body><p>Hi Bob, the notes.</p>";
  for (let k = 0; k < 1 + Math.floor(r() * 3); k++) {
    const raw = pick(HREFS)(pick(HOSTS));
    html += pick(PLACES)(encode(raw, r), encode(pick(HREFS)(pick(HOSTS)), r), raw);
  }
  if (r() < 0.2) { // a link in the text, split by tags
    const h = pick(HOSTS);
    const at = 1 + Math.floor(r() * (h.length - 1));
    html += `<p>see https://${h.slice(0, at)}<b></b>${h.slice(at)}/x</p>`;
  }
  return html + "</body></html>";
}

const HAND = [
  "<img src=//evil.example/x>",
  '<img srcset="a.png 1x, https://cdn.tracker.example/b.png 2x">',
  "<p style=\"background:url(//evil.example/bg.png)\">x</p>",
  "<style>@import url('https:/evil.example/a.css'); p{background:url(//x1.example/p)}</style>",
  '<meta http-equiv="refresh" content="0; URL=\'https:\\\\evil.example\\x\'">',
  '<link href="HTTPS://EVIL.EXAMPLE/s.css" rel=stylesheet>',
  '<body background="//evil.example/b.gif">',
  '<img src="&#x68;ttps://evil.example/x">',
  '<img src="https&#58;//evil.example/x">',
  '<img src="h&#x09;ttps://ev&#10;il.example/x">',
  "<p>https://ev<b></b>il.example/x</p>",
  '<img src="https://example.com&#64;evil.example/">',
];

const CASES = [...HAND, ...Array.from({ length: 1500 }, (_, i) => body(rng(i + 22)))];

describe("a rendered body's fetches", () => {
  const compiled = compilePolicy([{ path: "policies/defaults.yaml" }]);
  if (!compiled.ok) throw new Error("the shipped policy does not compile");
  const fence = loadFence(fenceWasm());
  expect(fence.load(compiled.bytes).ok).toBe(true);
  expect(fence.configure("/home/u", "/home/u/work").ok).toBe(true);
  const session = () => {
    const h = fence.openSession();
    expect(fence.intent(h, "Email bob@example.com the notes").ok).toBe(true);
    return h;
  };

  test(`every host a browser fetches from is a target (${CASES.length} bodies)`, () => {
    const misses: string[] = [];
    let hosts = 0;
    for (const html of CASES) {
      const h = session(); // one send each: a session's sends run out its budget

      const want = browserHosts(html);
      hosts += want.length;
      let d;
      try { d = fence.decide(h, "send_message", { action: "send", target: "email:bob@example.com", message: html }); } catch (e) { misses.push(`${JSON.stringify(html)} ${e}`); fence.closeSession(h); continue; }
      fence.closeSession(h);
      if (d.targets.some(([s]) => s === SUBJ_OPAQUE)) continue;
      const found = new Set(d.targets.filter(([s]) => s === SUBJ_DOMAIN).map(([, v]) => v));
      const lost = want.filter((x) => !found.has(x));
      if (lost.length) misses.push(`${JSON.stringify(html)} lost ${lost.join(" ")}`);
    }
    expect(hosts).toBeGreaterThan(CASES.length);
    expect(misses.slice(0, 20).join("\n")).toBe("");
  });

  test("an unnamed host a body fetches from makes the send no allow", () => {
    const h = session();
    for (const html of HAND) {
      const d = fence.decide(h, "send_message", { action: "send", target: "email:bob@example.com", message: html });
      expect(d.kind, html).not.toBe("allow");
    }
    const plain = fence.decide(h, "send_message", { action: "send", target: "email:bob@example.com", message: "<p>Hi Bob,<br>the notes &amp; the minutes." });
    expect(plain.kind).toBe("allow");
  });
});
