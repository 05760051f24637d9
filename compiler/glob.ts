// Glob matching of docs/bytecode.md §6.4, used at compile time on capabilities and tool
// names: `*` any run without `/`, `**` any run (`/**/` also a single `/`), `?` one character
// other than `/`.

export function isGlob(s: string): boolean {
  return s.includes("*") || s.includes("?");
}

function globToRegExp(pattern: string): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*" && pattern[i + 1] === "*") {
      let end = i;
      while (pattern[end] === "*") end++;
      if (pattern[i - 1] === "/" && pattern[end] === "/") {
        source += "(?:[\\s\\S]*/)?"; // `/**/`: any directories, or none
        end++;
      } else {
        source += "[\\s\\S]*";
      }
      i = end - 1;
    } else if (c === "*") {
      source += "[^/]*";
    } else if (c === "?") {
      source += "[^/]";
    } else {
      source += c.replace(/[\\^$.|+(){}[\]]/g, "\\$&");
    }
  }
  return new RegExp(`^${source}$`);
}

// A policy tests one pattern against many names (every class, every tool): compile it once.
const compiled = new Map<string, RegExp>();

export function globMatches(pattern: string, value: string): boolean {
  let regExp = compiled.get(pattern);
  if (regExp === undefined) {
    regExp = globToRegExp(pattern);
    compiled.set(pattern, regExp);
  }
  return regExp.test(value);
}
