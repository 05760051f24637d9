// Stage 3: the checked files, in merge order, -> one PolicyIR. Merges per docs/policy.md
// ("extends"), enumerates the classes, resolves selectors and normalizes constants.
import {
  ROLE_CODE, ROLE_COMMAND, ROLE_DOMAIN, ROLE_EMAIL, ROLE_PATCH, ROLE_PATH, ROLE_RECIPIENT, ROLE_URL,
  ROLE_TEXT, ROLE_WORKDIR, ROLE_WRITTEN, ROLE_OBJECT, ROLE_DATA, ROLE_AMOUNT, ROLE_AMOUNT_MINOR, SUBJ_AMOUNT, SUBJ_DOMAIN,
  SUBJ_EMAIL, SUBJ_OBJECT, SUBJ_PATH,
  SUBJ_RECIPIENT, SUBJ_URL, SUBJ_WRITE,
} from "../assembly/format";
import type { CheckedFile } from "./check";
import { globMatches, isGlob } from "./glob";
import type { BudgetIR, ClassIR, ConditionIR, IntentVerbIR, PolicyIR, RuleIR, TestIR, ToolIR } from "./ir";
import {
  asciiLower, homeToTilde, normalizeAmount, normalizeDomain, normalizeEmail, normalizePath, normalizeUrl,
} from "./normalize";
import type { YamlPath } from "./parse";
import { subjectOf, type TestName } from "./predicates";
import type {
  Budget, ClassifyVerb, DefaultEffect, IntentVerb, Limits, PolicyFile, Predicate, RoleName, Rule, ToolEntry,
} from "./schema";

const ROLE_CODES: Record<RoleName, number> = {
  email: ROLE_EMAIL,
  url: ROLE_URL,
  domain: ROLE_DOMAIN,
  path: ROLE_PATH,
  command: ROLE_COMMAND,
  code: ROLE_CODE,
  recipient: ROLE_RECIPIENT,
  patch: ROLE_PATCH,
  workdir: ROLE_WORKDIR,
  text: ROLE_TEXT,
  written: ROLE_WRITTEN,
  object: ROLE_OBJECT,
  data: ROLE_DATA,
  amount: ROLE_AMOUNT,
  amount_minor: ROLE_AMOUNT_MINOR,
};

// The values docs/policy.md shows; a policy that says nothing about the shell still reads
// `sudo rm …` as rm.
const DEFAULT_SHELL = {
  wrappers: ["sudo", "env", "xargs", "nohup", "time", "timeout", "nice"],
  network_programs: ["curl", "wget", "nc", "ssh", "scp"],
  shells: ["sh", "bash", "zsh"],
  max_depth: 4,
};

const DEFAULT_LIMITS: Required<Limits> = {
  max_args_bytes: 4194304,
  max_json_depth: 64,
  max_leaves: 16384,
  max_targets: 4096,
  max_intent_bytes: 65536,
  max_sessions: 65536,
};

const UNKNOWN = "unknown";

/** A policy item with the file and YAML path it came from. */
interface Located<T> {
  value: T;
  file: CheckedFile;
  path: YamlPath;
}

interface MergedPolicy {
  defaults: Map<string, DefaultEffect>;
  tools: ToolEntry[];
  classifyVerbs: ClassifyVerb[];
  argRoles: Map<string, RoleName>;
  rules: Located<Rule>[];
  budgets: Located<Budget>[];
  intent: {
    negations?: string[];
    nothing_words?: string[];
    negation_cancels?: string[];
    derive_from?: string[];
    file_extensions?: string[];
    verbs?: Located<IntentVerb>[];
  };
  shell: NonNullable<PolicyFile["shell"]>;
  limits: Limits;
  failOpen: string[];
}

function located<T>(file: CheckedFile, key: YamlPath, items: T[] | undefined): Located<T>[] {
  return (items ?? []).map((value, i) => ({ value, file, path: [...key, i] }));
}

function definedEntries<T extends object>(record: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(record ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Merges files given base first, extending file last (docs/policy.md "extends"). */
function mergePolicies(files: CheckedFile[]): MergedPolicy {
  const merged: MergedPolicy = {
    defaults: new Map(),
    tools: [],
    classifyVerbs: [],
    argRoles: new Map(),
    rules: [],
    budgets: [],
    intent: {},
    shell: {},
    limits: {},
    failOpen: [],
  };
  for (const file of files) {
    const p = file.policy;
    for (const [risk, effect] of Object.entries(p.defaults ?? {})) merged.defaults.set(risk, effect);
    // An operator's mappings beat the shipped ones: later files' entries come first.
    merged.tools = [...(p.tools ?? []), ...merged.tools];
    merged.classifyVerbs = [...(p.classify?.verbs ?? []), ...merged.classifyVerbs];
    // Lower-case: the evaluator looks argument names up ASCII case aside (bytecode.md §5.2).
    for (const [name, role] of Object.entries(p.classify?.arg_roles ?? {})) merged.argRoles.set(asciiLower(name), role);
    merged.rules.push(...located(file, ["rules"], p.rules));
    merged.budgets.push(...located(file, ["budgets"], p.budgets));
    const { verbs, ...wordLists } = p.intent ?? {};
    Object.assign(merged.intent, definedEntries(wordLists));
    // Like classify verbs: an operator's intent verbs come first, so their words win.
    if (verbs !== undefined) merged.intent.verbs = [...located(file, ["intent", "verbs"], verbs), ...(merged.intent.verbs ?? [])];
    Object.assign(merged.shell, definedEntries(p.shell));
    Object.assign(merged.limits, definedEntries(p.limits));
    if (p.fail_open !== undefined) merged.failOpen = p.fail_open;
  }
  return merged;
}

/** `name` is the policy's own: a file's name is not inherited by the files that extend it. */
export function lowerPolicy(files: CheckedFile[], name: string): PolicyIR {
  const merged = mergePolicies(files);
  const classes = new ClassTable();
  const tools: ToolIR[] = merged.tools.map((entry) => ({
    class: classes.of(entry.capability, entry.risk),
    roles: Object.entries(entry.args ?? {}).map(([argPath, role]) => ({ argPath, role: ROLE_CODES[role] })),
  }));
  const toolNames = merged.tools.map((entry, tool) => toolNamesOf(entry).map((name) => [name, tool] as [string, number]));
  const exactTools = firstWins(toolNames.flat().filter(([name]) => !isGlob(name)));
  const globTools = firstWins(toolNames.flat().filter(([name]) => isGlob(name)));
  const entryClasses = merged.classifyVerbs.map((verb) => classes.of(verb.capability, verb.risk));
  const classifyWords = firstWins(wordsOf(merged.classifyVerbs));

  const classList: ClassIR[] = classes.list.map(({ capability, risk }) => ({
    capability,
    risk,
    defaultEffect: merged.defaults.get(risk) ?? merged.defaults.get("*") ?? "ask",
  }));
  const reach = toolReach(tools, exactTools, globTools, entryClasses);
  const byCapability = capabilityIndex(classList);
  const rules = merged.rules.map((rule) => lowerRule(rule, classList, byCapability, reach));
  const budgets: BudgetIR[] = merged.budgets.map(({ value, file, path }) => ({
    id: value.id,
    limit: value.amount === undefined ? value.limit! : 0,
    amount: value.amount === undefined ? null : normalizeAmount(value.amount)!,
    at: file.locate(path),
    idAt: file.locate([...path, "id"]),
    classes: selectClasses(classList, byCapability, value.capability, (c) => !value.risk || value.risk.includes(c.risk)),
  }));

  const intentVerbs = merged.intent.verbs ?? [];
  const verbs: IntentVerbIR[] = intentVerbs.map(({ value, file, path }) => ({
    capabilities: value.capabilities.map((pattern, j) => ({ pattern, at: file.locate([...path, "capabilities", j]) })),
    classes: selectClasses(classList, byCapability, value.capabilities, () => true),
  }));
  const shell = { ...DEFAULT_SHELL, ...merged.shell };
  const limits = { ...DEFAULT_LIMITS, ...merged.limits };
  return {
    name,
    classes: classList,
    tools,
    exactTools,
    globTools,
    classify: {
      entryClasses,
      words: classifyWords,
      argRoles: [...merged.argRoles].map(([name, role]) => [name, ROLE_CODES[role]]),
    },
    rules,
    budgets,
    intent: {
      negations: unique((merged.intent.negations ?? []).map(asciiLower)),
      nothingWords: unique((merged.intent.nothing_words ?? []).map(asciiLower)),
      negationCancels: unique((merged.intent.negation_cancels ?? []).map(asciiLower)),
      deriveFrom: selectClasses(classList, byCapability, merged.intent.derive_from ?? [], () => true),
      fileExtensions: unique((merged.intent.file_extensions ?? []).map((e) => asciiLower(e.replace(/^\./, "")))),
      verbs,
      words: firstWins(wordsOf(intentVerbs.map(({ value }) => value))),
    },
    shell: {
      wrappers: unique(shell.wrappers),
      networkPrograms: unique(shell.network_programs),
      shells: unique(shell.shells),
      maxDepth: shell.max_depth,
    },
    failOpen: unique(merged.failOpen),
    limits: {
      maxArgsBytes: limits.max_args_bytes,
      maxJsonDepth: limits.max_json_depth,
      maxLeaves: limits.max_leaves,
      maxTargets: limits.max_targets,
      maxIntentBytes: limits.max_intent_bytes,
      maxSessions: limits.max_sessions,
    },
  };
}

/** Distinct (capability, risk) pairs in order of first use; class 0 is unknown/unknown. */
class ClassTable {
  readonly list: Array<{ capability: string; risk: string }> = [{ capability: UNKNOWN, risk: UNKNOWN }];
  private readonly byKey = new Map<string, number>([[`${UNKNOWN}\n${UNKNOWN}`, 0]]);

  of(capability: string, risk: string): number {
    const key = `${capability}\n${risk}`;
    let index = this.byKey.get(key);
    if (index === undefined) {
      index = this.list.length;
      this.list.push({ capability, risk });
      this.byKey.set(key, index);
    }
    return index;
  }
}

// `mcp: {server, tool}` names both spellings Hermes uses for MCP tools.
function toolNamesOf(entry: ToolEntry): string[] {
  if (entry.name !== undefined) return typeof entry.name === "string" ? [entry.name] : entry.name;
  const { server, tool } = entry.mcp!;
  return [`mcp__${server}__${tool}`, `mcp_${server}_${tool}`];
}

/** Whether a call of class `c` can have a tool name that one of `selectors` matches. */
type ToolReach = (selectors: string[], c: number) => boolean;

function toolReach(
  tools: ToolIR[],
  exactTools: Array<[string, number]>,
  globTools: Array<[string, number]>,
  classifyClasses: number[],
): ToolReach {
  // Unmapped tools (class 0 or what the verbs say) and glob entries can bring any name to a
  // class; the other classes are reached by their exact names alone.
  const open = new Set([0, ...classifyClasses, ...globTools.map(([, t]) => tools[t].class)]);
  const namesOf = new Map<number, string[]>();
  for (const [name, t] of exactTools) namesOf.set(tools[t].class, [...(namesOf.get(tools[t].class) ?? []), name]);
  const mappedClass = (name: string): number | undefined => {
    const entry = exactTools.find(([n]) => n === name) ?? globTools.find(([pattern]) => globMatches(pattern, name));
    return entry && tools[entry[1]].class;
  };
  return (selectors, c) => {
    if (!open.has(c)) return (namesOf.get(c) ?? []).some((name) => selectors.some((s) => globMatches(s, name)));
    return selectors.some((s) => {
      if (isGlob(s)) return true;
      const mapped = mappedClass(s);
      return mapped === undefined ? c === 0 || classifyClasses.includes(c) : mapped === c;
    });
  };
}

function lowerRule({ value: rule, file, path }: Located<Rule>, classes: ClassIR[], byCapability: CapabilityIndex,
  reach: ToolReach): RuleIR {
  return {
    id: rule.id,
    effect: rule.effect,
    reason: rule.reason ?? `rule_${rule.effect}`,
    message: rule.message ?? null,
    at: file.locate(path),
    idAt: file.locate([...path, "id"]),
    classes: selectClasses(classes, byCapability, rule.capability, (c, i) =>
      (!rule.risk || rule.risk.includes(c.risk)) && (!rule.tool || reach(rule.tool, i))),
    tools: rule.tool ?? null,
    conditions: Object.entries(rule.when ?? {}).flatMap(([key, predicate]) => {
      const { subject, arg } = subjectOf(key);
      return lowerPredicate(subject, arg, predicate, false);
    }),
  };
}

function lowerPredicate(subject: number, arg: string | null, predicate: Predicate, negate: boolean): ConditionIR[] {
  const conditions: ConditionIR[] = [];
  for (const name of Object.keys(predicate) as Array<keyof Predicate>) {
    const given = predicate[name];
    if (given === undefined) continue;
    if (name === "not") {
      conditions.push(...lowerPredicate(subject, arg, predicate.not!, !negate));
      continue;
    }
    let test: TestIR;
    let negated = negate;
    if (name === "present") {
      // PRESENT tests the subject as a whole: `not` flips its operand, not a per-value flag.
      test = { kind: "present", present: given !== negate };
      negated = false;
    } else if (name === "truthy") {
      test = { kind: "truthy", truthy: given !== negate }; // as PRESENT
      negated = false;
    } else if (name === "in_intent" || name === "intent_any") {
      // `named` reads the user's words more widely than `true` (docs/policy.md, intent).
      test = { kind: name, named: given === "named" };
      negated = negate === (given !== false);
    } else if (name === "in_derived" || name === "granted") {
      test = { kind: name };
      negated = negate === given;
    } else if (name === "equals") {
      test = { kind: "equals", value: normalizeConstant(subject, name, String(given)) };
    } else if (name === "at_most") {
      test = { kind: "at_most", value: normalizeAmount(given as string | number)! };
    } else {
      const values = (given as Array<string | number | boolean>).map((v) => normalizeConstant(subject, name, String(v)));
      test = { kind: name, values: unique(values) };
    }
    conditions.push({ subject, arg, test, negate: negated });
  }
  return conditions;
}

// Constants in the forms of docs/bytecode.md §6, so the evaluator compares bytes.
function normalizeConstant(subject: number, test: TestName, value: string): string {
  if (test === "domain") return normalizeDomain(value);
  if (test === "under") return normalizePath(value)!;
  const exact = test === "equals" || test === "in";
  switch (subject) {
    case SUBJ_EMAIL:
      return exact ? normalizeEmail(value) : asciiLower(value.trim());
    case SUBJ_DOMAIN:
      return exact ? normalizeDomain(value) : asciiLower(value.trim());
    case SUBJ_URL:
      return normalizeUrl(value);
    case SUBJ_PATH:
    case SUBJ_WRITE:
      return exact ? normalizePath(value)! : homeToTilde(value);
    case SUBJ_RECIPIENT:
      return asciiLower(value.trim());
    case SUBJ_OBJECT:
      return asciiLower(value.trim().replace(/\s+/g, " "));
    case SUBJ_AMOUNT:
      return normalizeAmount(value) ?? value;
    default:
      return value;
  }
}

/** (lower-case word, index of the entry that lists it) for each word of each entry. */
function wordsOf(entries: Array<{ words: string[] }>): Array<[string, number]> {
  return entries.flatMap(({ words }, entry) => words.map((w) => [asciiLower(w), entry] as [string, number]));
}

function firstWins<T>(pairs: Array<[string, T]>): Array<[string, T]> {
  const seen = new Set<string>();
  return pairs.filter(([key]) => !seen.has(key) && (seen.add(key), true));
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** The classes of each capability, so a selector that names one exactly finds its classes
 * without testing every class (a policy may map thousands of MCP tools). */
type CapabilityIndex = Map<string, number[]>;

function capabilityIndex(classes: ClassIR[]): CapabilityIndex {
  const index: CapabilityIndex = new Map();
  classes.forEach(({ capability }, i) => {
    const found = index.get(capability);
    if (found) found.push(i);
    else index.set(capability, [i]);
  });
  return index;
}

/** In ascending order, the classes whose capability one of `patterns` matches (every class when
 * there are no patterns) and that `keep` keeps. */
function selectClasses(classes: ClassIR[], byCapability: CapabilityIndex, patterns: string[] | undefined,
  keep: (c: ClassIR, index: number) => boolean): number[] {
  let candidates: number[];
  if (patterns === undefined) {
    candidates = classes.map((_, i) => i);
  } else if (patterns.some(isGlob)) {
    candidates = indicesWhere(classes, (c) => patterns.some((g) => globMatches(g, c.capability)));
  } else {
    candidates = [...new Set(patterns.flatMap((p) => byCapability.get(p) ?? []))].sort((a, b) => a - b);
  }
  return candidates.filter((i) => keep(classes[i], i));
}

function indicesWhere<T>(items: T[], keep: (item: T, index: number) => boolean): number[] {
  return items.flatMap((item, i) => (keep(item, i) ? [i] : []));
}
