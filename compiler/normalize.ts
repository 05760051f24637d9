// Normal forms of policy constants (docs/bytecode.md §6): the compiler writes constants
// already normalized, so the evaluator compares bytes.

export function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

export function normalizeEmail(s: string): string {
  return asciiLower(s.trim());
}

export function isEmailAddress(s: string): boolean {
  return /^[^@\s<>]+@[^@\s<>]+$/.test(s.trim());
}

export function normalizeDomain(s: string): string {
  return asciiLower(s.trim()).replace(/\.$/, "");
}

export function isHostName(s: string): boolean {
  return /^[^\s/@:*?#]+$/.test(normalizeDomain(s));
}

// Scheme and host lower-cased, a default port (https's 443, http's 80) dropped; userinfo, other
// ports, path and query kept as given. Also applied to URL globs and prefixes, whose wildcards
// are left alone.
export function normalizeUrl(s: string): string {
  const text = s.trim();
  const schemeEnd = text.indexOf("://");
  if (schemeEnd < 0) return text;
  const authorityStart = schemeEnd + 3;
  const rest = text.slice(authorityStart);
  const authorityLength = rest.search(/[/?#]/);
  const authority = authorityLength < 0 ? rest : rest.slice(0, authorityLength);
  const tail = authorityLength < 0 ? "" : rest.slice(authorityLength);
  const at = authority.lastIndexOf("@");
  const userinfo = authority.slice(0, at + 1);
  const scheme = asciiLower(text.slice(0, schemeEnd));
  const defaultPort = { https: ":443", http: ":80" }[scheme];
  let host = asciiLower(authority.slice(at + 1));
  if (defaultPort !== undefined && host.endsWith(defaultPort)) {
    host = host.slice(0, -defaultPort.length);
  }
  return scheme + "://" + userinfo + host + tail;
}

/**
 * A sum constant (docs/bytecode.md §6.10) in normal form: a decimal ("500", "12.5"), then a space
 * and a currency code when one is given ("500 EUR", or "EUR 500"). Null when it is not one.
 */
export function normalizeAmount(value: string | number): string | null {
  const text = String(value).trim();
  const m = /^(?:([A-Za-z]{3})\s+)?(\d+(?:\.\d+)?)(?:\s+([A-Za-z]{3}))?$/.exec(text);
  if (m === null || (m[1] !== undefined && m[3] !== undefined)) return null;
  let [whole, fraction = ""] = m[2].split(".");
  whole = whole.replace(/^0+(?=\d)/, "");
  fraction = fraction.replace(/0+$/, "");
  const code = (m[1] ?? m[3])?.toUpperCase();
  return (fraction ? `${whole}.${fraction}` : whole) + (code ? ` ${code}` : "");
}

// `$HOME` and `${HOME}` at the start of a path are spelled `~`.
export function homeToTilde(s: string): string {
  const text = s.trim();
  for (const home of ["$HOME", "${HOME}"]) {
    if (text === home) return "~";
    if (text.startsWith(home + "/")) return "~" + text.slice(home.length);
  }
  return text;
}

/**
 * A path constant in normal form: absolute or below `~`, `.` and empty segments dropped,
 * `..` applied (never above `/`), no trailing `/`. Null when the path is relative or
 * climbs above `~`, which no lexical form can express. With `workingDirectory` (an `under`
 * constant), `.` and `./…` are the working directory and below it (docs/bytecode.md §6.5):
 * normal form `.` or `./a/b`, null when it climbs above `.`.
 */
export function normalizePath(s: string, workingDirectory = false): string | null {
  const text = homeToTilde(s);
  let root: string;
  if (text === "~" || text.startsWith("~/")) root = "~";
  else if (text === HERMES_HOME || text.startsWith(HERMES_HOME + "/")) root = HERMES_HOME;
  else if (text.startsWith("/")) root = "/";
  else if (workingDirectory && (text === "." || text.startsWith("./"))) root = WORKING_DIRECTORY;
  else return null;
  const segments: string[] = [];
  for (const segment of text.slice(root === "/" ? 1 : root.length).split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") segments.push(segment);
    else if (segments.length > 0) segments.pop();
    else if (root !== "/") return null;
  }
  if (root === "/") return "/" + segments.join("/");
  return segments.length > 0 ? root + "/" + segments.join("/") : root;
}

/** A path constant's root for every Hermes home and profile (docs/bytecode.md §6.5). */
export const HERMES_HOME = "$HERMES_HOME";
/** An `under` constant's root for the configured working directory (docs/bytecode.md §6.5). */
export const WORKING_DIRECTORY = ".";

// A path glob must be able to match an absolute path or a `~` form: `*` and `?` never
// match `/`, so only `/`, `~` or `**` can start one.
export function isAbsolutePathGlob(s: string): boolean {
  const text = homeToTilde(s);
  return text.startsWith("/") || text === "~" || text.startsWith("~/") || text.startsWith("**");
}

/** The intent binder's case folding (docs/bytecode.md §7.3): ASCII, Latin-1 (U+00C0-U+00DE but
 *  U+00D7) and Cyrillic (U+0400-U+042F) capitals to lower case; nothing else changes. */
export function grammarLower(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0xc0 && c <= 0xde && c !== 0xd7) || (c >= 0x410 && c <= 0x42f)) out += String.fromCodePoint(c + 0x20);
    else out += c >= 0x400 && c <= 0x40f ? String.fromCodePoint(c + 0x50) : ch;
  }
  return out;
}
