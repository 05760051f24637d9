// Warnings about selectors and patterns that compile but cannot mean what was written: a tool
// name no tool has, a risk class or capability no class of the policy has, a glob with a `{` or
// `[` (the fence's globs have neither lists nor brackets: docs/bytecode.md §6.4). Each names
// the YAML node it is about and, when a known name is near (edit distance), what was meant.
import { diagnostic, type Diagnostic } from "./diagnostic";
import type { CheckedFile } from "./check";
import { globMatches, isGlob } from "./glob";
import hermesTools from "./hermes-tools.json";
import type { PolicyIR } from "./ir";
import type { YamlPath } from "./parse";

/** The tools Hermes registers (scripts/hermes-tools.py reads them from its tool registry). */
export const HERMES_TOOLS: readonly string[] = hermesTools.tools;
const HERMES_VERSION: string = hermesTools.hermes_agent;

// MCP tools are named by their server (`mcp__<server>__<tool>`, formerly `mcp_<server>_<tool>`),
// which no list can know: a selector of that shape is taken as written.
const MCP_NAME = /^mcp_/;

export interface Known {
  tools: string[]; // exact names: Hermes' and the policy's
  toolGlobs: string[]; // the policy's tool-name globs
  risks: string[];
  capabilities: string[];
}

export function knownOf(ir: PolicyIR): Known {
  const classes = ir.classes.slice(1); // class 0 is unknown/unknown
  return {
    tools: [...new Set([...HERMES_TOOLS, ...ir.exactTools.map(([name]) => name)])],
    toolGlobs: ir.globTools.map(([pattern]) => pattern),
    risks: [...new Set(classes.map((c) => c.risk))],
    capabilities: [...new Set(classes.map((c) => c.capability))],
  };
}

/** The warnings of every file's rules and budgets against what the merged policy knows. */
export function lintFiles(files: CheckedFile[], known: Known): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  for (const file of files) {
    const warn = (at: YamlPath, message: string) => warnings.push(diagnostic(file.locate(at), message));
    (file.policy.rules ?? []).forEach((rule, i) => {
      (rule.tool ?? []).forEach((name, j) => {
        const problem = toolProblem(name, known);
        if (problem) warn(["rules", i, "tool", j], problem);
      });
      lintClassSelectors(rule, ["rules", i], known, warn);
      for (const [key, predicate] of Object.entries(rule.when ?? {})) lintGlobs(predicate as Record<string, unknown>, ["rules", i, "when", key], warn);
    });
    (file.policy.budgets ?? []).forEach((budget, i) => lintClassSelectors(budget, ["budgets", i], known, warn));
    (file.policy.tools ?? []).forEach((tool, i) => {
      for (const [j, name] of (Array.isArray(tool.name) ? tool.name : tool.name === undefined ? [] : [tool.name]).entries()) {
        const problem = bracketProblem(name, "tool name");
        if (problem) warn(Array.isArray(tool.name) ? ["tools", i, "name", j] : ["tools", i, "name"], problem);
      }
    });
  }
  return warnings;
}

type Warn = (at: YamlPath, message: string) => void;

function lintClassSelectors(entry: { risk?: string[]; capability?: string[] }, at: YamlPath, known: Known, warn: Warn): void {
  (entry.risk ?? []).forEach((risk, j) => {
    if (!known.risks.includes(risk)) {
      warn([...at, "risk", j], `no tool class of this policy has the risk class "${risk}"${didYouMean(risk, known.risks)} `
        + `(risk classes: ${known.risks.join(", ")})`);
    }
  });
  (entry.capability ?? []).forEach((capability, j) => {
    if (!known.capabilities.some((c) => globMatches(capability, c))) {
      const hint = isGlob(capability) ? "" : didYouMean(capability, known.capabilities);
      warn([...at, "capability", j], `capability "${capability}" matches no tool class of this policy${hint}`);
    }
  });
}

function toolProblem(name: string, known: Known): string | undefined {
  const brackets = bracketProblem(name, "tool selector");
  if (brackets) return brackets;
  if (MCP_NAME.test(name)) return undefined;
  if (isGlob(name)) {
    if (known.toolGlobs.includes(name) || known.tools.some((t) => globMatches(name, t))) return undefined;
    return `tool selector "${name}" matches no tool of Hermes ${HERMES_VERSION} or of this policy`;
  }
  if (known.tools.includes(name) || known.toolGlobs.some((g) => globMatches(g, name))) return undefined;
  return `no tool of Hermes ${HERMES_VERSION} or of this policy is named "${name}"${didYouMean(name, known.tools)}`
    + " (a tool of another plugin: map it under tools: to keep this warning away)";
}

function lintGlobs(predicate: Record<string, unknown>, at: YamlPath, warn: Warn): void {
  const globs = predicate.glob;
  if (globs !== undefined) {
    (Array.isArray(globs) ? globs : [globs]).forEach((glob, j) => {
      const problem = bracketProblem(String(glob), "glob");
      if (problem) warn(Array.isArray(globs) ? [...at, "glob", j] : [...at, "glob"], problem);
    });
  }
  const negated = predicate.not;
  if (negated !== null && typeof negated === "object") lintGlobs(negated as Record<string, unknown>, [...at, "not"], warn);
}

/** A `{` or `[` in a pattern: literal characters to the fence, rarely what was meant. */
export function bracketProblem(pattern: string, what: string): string | undefined {
  const text = pattern.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*\}/g, ""); // ${HOME}: a variable, not a list
  for (const [open, close] of [["{", "}"], ["[", "]"]] as const) {
    const start = text.indexOf(open);
    if (start < 0) continue;
    const end = text.indexOf(close, start);
    if (end < 0) return `${what} "${pattern}" has an unclosed ${open}: it matches only names with a literal ${open}`;
    const inside = text.slice(start + 1, end);
    return open === "{"
      ? `${what} "${pattern}" has a list {${inside}}, which the fence's globs do not expand (it matches a literal {): `
        + "write one pattern per alternative"
      : `${what} "${pattern}" has a bracket [${inside}], which the fence's globs read literally: `
        + "use ? for one character, or one pattern per alternative";
  }
  return undefined;
}

/** ` (did you mean "x"?)` for the nearest candidate within a third of the name's length. */
export function didYouMean(name: string, candidates: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(name.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(name, candidate, bestDistance);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best === undefined ? "" : ` (did you mean "${best}"?)`;
}

/** Levenshtein distance, or `bound` once it is certain to be at least that. */
export function editDistance(a: string, b: string, bound = Infinity): number {
  if (Math.abs(a.length - b.length) >= bound) return bound;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      rowMin = Math.min(rowMin, current[j]);
    }
    if (rowMin >= bound) return bound;
    previous = current;
  }
  return previous[b.length];
}
