// Stage 3: the checked files, in merge order, -> one PolicyIR. Merges per docs/policy.md
// ("extends"), enumerates the classes, resolves selectors and normalizes constants.
import {
  ROLE_CODE, ROLE_COMMAND, ROLE_DOMAIN, ROLE_EMAIL, ROLE_PATCH, ROLE_PATH, ROLE_RECIPIENT, ROLE_URL,
  ROLE_TEXT, ROLE_WORKDIR, ROLE_WRITTEN, ROLE_OBJECT, ROLE_DATA, ROLE_TREE, ROLE_AMOUNT, ROLE_AMOUNT_MINOR, ROLE_MEMBERS, ROLE_HEADING, CLASSIFY_READ, CLASSIFY_HINT_DESTRUCTIVE, CLASSIFY_CHOICES, CLASSIFY_CHOICE_HEADINGS, CLASSIFY_OBJECTS_CONTENT, CLASSIFY_CHOICE_CODES,
  CLASSIFY_HINT_NOT_READ_ONLY, CLASSIFY_HINT_OPEN_WORLD, CLASSIFY_HINT_READ_ONLY, SUBJ_AMOUNT, SUBJ_DOMAIN, SUBJ_EMAIL, SUBJ_OBJECT, SUBJ_PATH,
  SHO_VALUE, SHO_VALUE2, SHO_ATTACHED, SHO_OPAQUE, SHO_OUTPUT, SHO_RECURSIVE, SHO_IN_PLACE, SHO_COMMAND,
  SHO_COMMAND_UNTIL, SHO_SUPPLIES, SHO_SCRIPT, SHO_DIRECTORY, SHO_OUTPUT_DIR, SHO_EXTRACT, SHO_LIST, SHO_ARCHIVE,
  SHO_ARCHIVE_OUT, SHO_REPLACE, SHO_MEMBERS, SHM_TREES, SHM_WRITTEN, SHM_LAST_WRITTEN, SHM_SECOND_WRITTEN, SHM_FIRST_SCRIPT, SHM_FIRST_DATA,
  SHM_NO_FILES, SHM_SUBCOMMAND, SHM_EXTRACTS, SHM_OLD_STYLE, SHM_KEYS, SHM_LONG_SINGLE, SHM_OPERANDS_OPAQUE,
  SHM_OPAQUE, SHM_REMOTE, SHM_WRITES, SHM_REV_PATHS, SHM_RUNS, SHM_AFTER_ONE, SHM_AFTER_FILE, SHM_APPENDS,
  SUBJ_RECIPIENT, SUBJ_URL, SUBJ_WRITE, INTENT_DESTINATION, INTENT_NAMED, INTENT_SOURCE, INTENT_EXACT, INTENT_RULED_OUT,
  G_PHRASE_HEAD, GRAMMAR_OBJECT_SHIFT, G_DEST, G_SOURCE, G_MENTION, G_RELATIVE, G_AUX, G_DEST_AFTER, G_SOURCE_AFTER,
  G_DEST_BEFORE, G_QUESTION, G_POLITE, G_ADDRESSEE, G_CONDITION, G_CONDITION_AFTER, G_SUBJECT, G_DETERMINER, G_BARRIER,
  G_LEAD, G_CONJ, G_ONLY, G_INSTEAD, G_REVOKE, G_EXCLUDE, G_RESTORE, G_QUOTE_MARKER, G_HEADER, GRAMMAR2_PREFIX, G2_ADD, G2_RETRACT, G2_AFTER_ALL, G2_PAUSE, G_VERB, G_NEGATION, G_NOTHING, OBJECT_DESTINATION, OBJECT_WRITTEN, OBJECT_SOURCE, OBJECT_INCLUDED, OBJECT_CONVERTED, OBJECT_DELEGATED,
  BUDGET_PER_SESSION, BUDGET_PER_USER, BUDGET_PER_TEAM, BUDGET_PERIOD_NONE, BUDGET_PERIOD_DAY, BUDGET_PERIOD_WEEK,
} from "../bytecode/format";
import type { CheckedFile } from "./check";
import { globMatches, isGlob } from "./glob";
import type { BudgetIR, ClassIR, ConditionIR, IntentIR, IntentVerbIR, PolicyIR, RuleIR, SandboxIR, TestIR, ToolIR } from "./ir";
import {
  asciiLower, grammarLower, HERMES_HOME, homeToTilde, normalizeAmount, normalizeDomain, normalizeEmail, normalizePath, normalizeUrl,
} from "./normalize";
import type { YamlPath } from "./parse";
import { subjectOf, type TestName } from "./predicates";
import { CHOICES, EXPOSURE_SETTINGS_MAX, HINTS } from "./schema";
import type {
  Budget, ClassifyVerb, DefaultEffect, ExposureSetting, IntentVerb, Limits, PolicyFile, Predicate, RoleName, Rule, Sandbox, ShellProgram,
  ToolEntry,
} from "./schema";
import { SHELL_OPERAND_KINDS, SHELL_OPTION_KINDS } from "./schema";
import { GRAMMAR_CATEGORIES } from "./schema";

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
  tree: ROLE_TREE,
  members: ROLE_MEMBERS,
  amount: ROLE_AMOUNT,
  amount_minor: ROLE_AMOUNT_MINOR,
  heading: ROLE_HEADING,
};

// The values docs/policy.md shows; a policy that says nothing about the shell still reads
// `sudo rm …` as rm.
const DEFAULT_SHELL = {
  wrappers: ["sudo", "env", "xargs", "nohup", "time", "timeout", "nice"],
  network_programs: ["curl", "wget", "nc", "ssh", "scp"],
  shells: ["sh", "bash", "zsh"],
  max_depth: 4,
};

// The flags each kind of option list gives its options (bytecode.md §3.4): kinds whose option
// names a file or a command take a value.
const OPTION_FLAGS: Record<(typeof SHELL_OPTION_KINDS)[number], number> = {
  flag: 0,
  value: SHO_VALUE,
  two_values: SHO_VALUE2,
  attached_value: SHO_ATTACHED,
  opaque: SHO_OPAQUE,
  output: SHO_OUTPUT | SHO_VALUE,
  recursive: SHO_RECURSIVE,
  in_place: SHO_IN_PLACE,
  command: SHO_COMMAND | SHO_VALUE,
  command_until: SHO_COMMAND_UNTIL,
  supplies: SHO_SUPPLIES,
  script: SHO_SCRIPT,
  directory: SHO_DIRECTORY | SHO_VALUE,
  output_dir: SHO_OUTPUT_DIR | SHO_VALUE,
  extract: SHO_EXTRACT,
  list: SHO_LIST,
  archive: SHO_ARCHIVE | SHO_VALUE,
  archive_out: SHO_ARCHIVE_OUT,
  replace: SHO_REPLACE,
  members: SHO_MEMBERS | SHO_VALUE,
};

const OPERAND_FLAGS: Record<(typeof SHELL_OPERAND_KINDS)[number], number> = {
  trees: SHM_TREES,
  written: SHM_WRITTEN,
  last_written: SHM_LAST_WRITTEN,
  second_written: SHM_SECOND_WRITTEN,
  first_script: SHM_FIRST_SCRIPT,
  first_data: SHM_FIRST_DATA,
  no_files: SHM_NO_FILES,
  subcommand: SHM_SUBCOMMAND,
  extracts: SHM_EXTRACTS,
  old_style: SHM_OLD_STYLE,
  keys: SHM_KEYS,
  long_single: SHM_LONG_SINGLE,
  operands_opaque: SHM_OPERANDS_OPAQUE,
  opaque: SHM_OPAQUE,
  remote: SHM_REMOTE,
  rev_paths: SHM_REV_PATHS,
  runs: SHM_RUNS,
  runs_after_one: SHM_RUNS | SHM_AFTER_ONE,
  runs_after_file: SHM_RUNS | SHM_AFTER_ONE | SHM_AFTER_FILE,
  appends: SHM_APPENDS,
};

/** A program entry as its option set: each option with the OR of its kinds' flags, "@" with the
 *  operand flags, "%TOKEN" per opaque token. */
function programOptions(entry: ShellProgram): Array<[string, number]> {
  const flags = new Map<string, number>();
  for (const kind of SHELL_OPTION_KINDS) {
    for (const option of entry[kind] ?? []) flags.set(option, (flags.get(option) ?? 0) | OPTION_FLAGS[kind]);
  }
  // A replace string is the option's value: the next word, unless the option's value is attached.
  for (const [option, f] of flags) {
    if ((f & SHO_REPLACE) !== 0 && (f & SHO_ATTACHED) === 0) flags.set(option, f | SHO_VALUE);
  }
  let operands = (entry.operands ?? []).reduce((m, kind) => m | OPERAND_FLAGS[kind], 0);
  if (entry.writes !== undefined) operands |= SHM_WRITES;
  if (operands !== 0) flags.set("@", operands);
  for (const token of entry.opaque_tokens ?? []) flags.set(`%${token}`, 0);
  for (const written of entry.writes ?? []) flags.set(`>${written.replace(/(.)\/+$/, "$1")}`, 0);
  return [...flags];
}

/** Program name -> option set; of entries for one name the first wins (an extending file's
 *  entries come first, as its tools do). */
function shellPrograms(entries: ShellProgram[]): Array<[string, Array<[string, number]>]> {
  const byName = new Map<string, Array<[string, number]>>();
  for (const entry of entries) {
    const options = programOptions(entry);
    for (const name of entry.names) if (!byName.has(name)) byName.set(name, options);
  }
  return [...byName];
}

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
  trustedServers: string[];
  argRoles: Map<string, RoleName>;
  exposure: ExposureSetting[];
  rules: Located<Rule>[];
  budgets: Located<Budget>[];
  intent: {
    negations?: string[];
    nothing_words?: string[];
    negation_cancels?: string[];
    derive_from?: string[];
    records_from?: string[];
    own_records_from?: string[];
    file_extensions?: string[];
    verbs?: Located<IntentVerb>[];
    /** Action name -> its tool words and verb words, in the order first named. */
    actions: Map<string, { tools: Set<string>; verbs: Set<string> }>;
    grammar: Map<string, Set<string>>;
  };
  shell: NonNullable<PolicyFile["shell"]>;
  shellPrograms: ShellProgram[];
  sandbox: Sandbox;
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
    trustedServers: [],
    argRoles: new Map(),
    exposure: [],
    rules: [],
    budgets: [],
    intent: { grammar: new Map(), actions: new Map() },
    shell: {},
    shellPrograms: [],
    sandbox: {},
    limits: {},
    failOpen: [],
  };
  for (const file of files) {
    const p = file.policy;
    for (const [risk, effect] of Object.entries(p.defaults ?? {})) merged.defaults.set(risk, effect);
    // An operator's mappings beat the shipped ones: later files' entries come first.
    merged.tools = [...(p.tools ?? []), ...merged.tools];
    merged.classifyVerbs = [...(p.classify?.verbs ?? []), ...merged.classifyVerbs];
    merged.trustedServers.push(...(p.classify?.trusted_servers ?? []));
    // Lower-case: the evaluator looks argument names up ASCII case aside (bytecode.md §5.2).
    for (const [name, role] of Object.entries(p.classify?.arg_roles ?? {})) merged.argRoles.set(asciiLower(name), role);
    // An operator's exposure setting replaces the shipped one of the same name, and comes first.
    const own = p.classify?.exposure ?? [];
    merged.exposure = [...own, ...merged.exposure.filter((e) => !own.some((o) => o.setting === e.setting))];
    merged.rules.push(...located(file, ["rules"], p.rules));
    merged.budgets.push(...located(file, ["budgets"], p.budgets));
    const { verbs, grammar, actions, ...wordLists } = p.intent ?? {};
    Object.assign(merged.intent, definedEntries(wordLists));
    // The grammar grows with each file: an operator adds the words of a language or a phrase.
    for (const [category, list] of Object.entries(grammar ?? {})) {
      const known = merged.intent.grammar.get(category) ?? new Set<string>();
      for (const phrase of list ?? []) known.add(phrase);
      merged.intent.grammar.set(category, known);
    }
    // An action grows with each file: an operator adds a tool's word or a language's verb.
    for (const { action, tools, verbs: asking } of actions ?? []) {
      const known = merged.intent.actions.get(action) ?? { tools: new Set<string>(), verbs: new Set<string>() };
      for (const w of tools) known.tools.add(asciiLower(w));
      for (const w of asking) known.verbs.add(grammarLower(w));
      merged.intent.actions.set(action, known);
    }
    // Like classify verbs: an operator's intent verbs come first, so their words win.
    if (verbs !== undefined) merged.intent.verbs = [...located(file, ["intent", "verbs"], verbs), ...(merged.intent.verbs ?? [])];
    const { programs, ...shellLists } = p.shell ?? {};
    Object.assign(merged.shell, definedEntries(shellLists));
    // An operator's program entries come first, so theirs describe a program the shipped ones do.
    merged.shellPrograms = [...(programs ?? []), ...merged.shellPrograms];
    // Like shell's lists: a later file's key replaces an earlier one's (`capabilities: []` turns it off).
    Object.assign(merged.sandbox, definedEntries(p.sandbox));
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
    flags: choiceFlagsOf(entry),
  }));
  const toolNames = merged.tools.map((entry, tool) => toolNamesOf(entry).map((name) => [name, tool] as [string, number]));
  const exactTools = firstWins(toolNames.flat().filter(([name]) => !isGlob(name)));
  const globTools = firstWins(toolNames.flat().filter(([name]) => isGlob(name)));
  const entryClasses = merged.classifyVerbs.map((verb) => classes.of(verb.capability, verb.risk));
  const classifyWords = firstWins(classifyWordsOf(merged.classifyVerbs));

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
    scope: budgetScope(value.per, value.period),
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
      entryFlags: merged.classifyVerbs.map(classifyFlags),
      entryRoles: merged.classifyVerbs.map((verb) => (verb.roles ?? []).reduce((bits, r) => bits | (1 << ROLE_CODES[r]), 0)),
      words: classifyWords,
      trustedServers: unique(merged.trustedServers.map(mcpNameComponent)),
      argRoles: [...merged.argRoles].map(([name, role]) => [name, ROLE_CODES[role]]),
      ...exposureTables(merged.exposure),
    },
    rules,
    budgets,
    intent: {
      negations: unique((merged.intent.negations ?? []).map(grammarLower)),
      nothingWords: unique((merged.intent.nothing_words ?? []).map(grammarLower)),
      negationCancels: unique((merged.intent.negation_cancels ?? []).map(grammarLower)),
      deriveFrom: selectClasses(classList, byCapability, merged.intent.derive_from ?? [], () => true),
      recordsFrom: selectClasses(classList, byCapability, merged.intent.records_from ?? [], () => true),
      ownRecordsFrom: selectClasses(classList, byCapability, merged.intent.own_records_from ?? [], () => true),
      fileExtensions: unique((merged.intent.file_extensions ?? []).map((e) => asciiLower(e.replace(/^\./, "")))),
      verbs,
      words: firstWins(intentVerbs.flatMap(({ value }, entry) => value.words.map((w) => [grammarLower(w), entry] as [string, number]))),
      ...actionTables(merged.intent.actions),
      grammar: grammarWords(merged.intent.grammar, intentVerbs.map(({ value }) => value),
        (merged.intent.negations ?? []).map(grammarLower), (merged.intent.nothing_words ?? []).map(grammarLower)),
    },
    shell: {
      wrappers: unique(shell.wrappers),
      networkPrograms: unique(shell.network_programs),
      shells: unique(shell.shells),
      maxDepth: shell.max_depth,
      programs: shellPrograms(merged.shellPrograms),
    },
    sandbox: lowerSandbox(merged.sandbox, classList),
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
      // `named` and `source` read the user's words more widely than `true`, `exact` as `named` but
      // for the value itself only (docs/policy.md, intent).
      test = {
        kind: name,
        reading: given === "named" ? INTENT_NAMED : given === "source" ? INTENT_SOURCE : given === "exact" ? INTENT_EXACT
          : given === "ruled_out" ? INTENT_RULED_OUT : INTENT_DESTINATION,
      };
      negated = negate === (given !== false);
    } else if (name === "in_derived" || name === "granted") {
      test = { kind: name };
      negated = negate === given;
    } else if (name === "equals") {
      const value = normalizeConstant(subject, name, String(given));
      const folded = caseFolded(subject, [value]);
      test = folded.length === 1 ? { kind: "equals", value } : { kind: "in", values: folded };
    } else if (name === "at_most") {
      test = { kind: "at_most", value: normalizeAmount(given as string | number)! };
    } else {
      const values = (given as Array<string | number | boolean>).map((v) => normalizeConstant(subject, name, String(v)));
      test = { kind: name, values: caseFolded(subject, unique(values)) };
    }
    conditions.push({ subject, arg, test, negate: negated });
  }
  return conditions;
}

// A path constant also in its ASCII lower-case form: where the file system compares names case
// aside, the evaluator lower-cases every path (docs/bytecode.md §6.5, configure's FOLD_CASE).
function caseFolded(subject: number, values: string[]): string[] {
  if (subject !== SUBJ_PATH && subject !== SUBJ_WRITE) return values;
  return caseFoldedPaths(values);
}

function caseFoldedPaths(values: string[]): string[] {
  return unique([...values, ...values.map((v) => (v.startsWith(HERMES_HOME) ? HERMES_HOME + asciiLower(v.slice(HERMES_HOME.length)) : asciiLower(v)))]);
}

// Constants in the forms of docs/bytecode.md §6, so the evaluator compares bytes.
function normalizeConstant(subject: number, test: TestName, value: string): string {
  if (test === "domain") return normalizeDomain(value);
  if (test === "under") return normalizePath(value, true)!;
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

/** The exposure settings as the evaluator reads them (docs/bytecode.md §3.3, exposure):
 * `arg=value` (ASCII lower-case) -> setting·16 + level, and a request's word or phrase (lower-case,
 * white space made one space) -> a nibble per setting, level + 1 (0: the word says nothing of it).
 * The first setting and level that list an argument's value win; at most 8 settings of 15 levels. */
function exposureTables(settings: ExposureSetting[]): { exposureArgs: Array<[string, number]>; exposureWords: Array<[string, number]> } {
  const args = new Map<string, number>();
  const words = new Map<string, number>();
  settings.slice(0, EXPOSURE_SETTINGS_MAX).forEach((setting, s) => {
    setting.levels.forEach((level, l) => {
      for (const [arg, values] of Object.entries(level.args ?? {})) {
        for (const v of values) {
          const key = `${asciiLower(arg)}=${asciiLower(String(v))}`;
          if (!args.has(key)) args.set(key, s * 16 + l);
        }
      }
      for (const w of level.words ?? []) {
        const key = grammarLower(w.trim().replace(/\s+/g, " "));
        const nibbles = words.get(key) ?? 0;
        // A word names one level of a setting: the first that lists it.
        if (((nibbles >>> (s * 4)) & 15) === 0) words.set(key, (nibbles | ((l + 1) << (s * 4))) >>> 0);
      }
    });
  });
  return { exposureArgs: [...args], exposureWords: [...words] };
}

/** Each entry's objects, then its words (a word that is both is an object), in entry order:
 * value entry·2 + 1 for an object, entry·2 for a verb (docs/bytecode.md §3 CLASSIFY). */
function classifyWordsOf(entries: ClassifyVerb[]): Array<[string, number]> {
  return entries.flatMap((verb, entry) => [
    ...(verb.objects ?? []).map((w) => [asciiLower(w), entry * 2 + 1] as [string, number]),
    ...verb.words.map((w) => [asciiLower(w), entry * 2] as [string, number]),
  ]);
}

function classifyFlags(verb: ClassifyVerb): number {
  let flags = verb.read ? CLASSIFY_READ : 0;
  for (const hint of verb.hints ?? []) flags |= HINT_FLAGS[hint];
  return flags | choiceFlagsOf(verb);
}

/** What an entry's `choices` and `content` make of the arguments no role reads (a classify
 * entry's class, a tool entry's own tool). */
function choiceFlagsOf(entry: Pick<ClassifyVerb, "choices" | "content">): number {
  let flags = 0;
  for (const choice of entry.choices ?? []) flags |= CHOICE_FLAGS[choice];
  if (entry.content !== undefined) flags |= CLASSIFY_OBJECTS_CONTENT;
  return flags;
}

const CHOICE_FLAGS: Record<(typeof CHOICES)[number], number> = {
  unread: CLASSIFY_CHOICES,
  heading: CLASSIFY_CHOICE_HEADINGS,
  code: CLASSIFY_CHOICE_CODES,
};

const HINT_FLAGS: Record<(typeof HINTS)[number], number> = {
  destructive: CLASSIFY_HINT_DESTRUCTIVE,
  not_read_only: CLASSIFY_HINT_NOT_READ_ONLY,
  open_world: CLASSIFY_HINT_OPEN_WORLD,
  read_only: CLASSIFY_HINT_READ_ONLY,
};

/** A server name as Hermes writes it into `mcp__<server>__<tool>`: each byte outside
 * [A-Za-z0-9_] becomes `_` (tools/mcp_tool.py sanitize_mcp_name_component). */
export function mcpNameComponent(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, "_");
}

function firstWins<T>(pairs: Array<[string, T]>): Array<[string, T]> {
  const seen = new Set<string>();
  return pairs.filter(([key]) => !seen.has(key) && (seen.add(key), true));
}

// The sandbox's lists in the evaluator's forms: a literal path as `under` constants are, a glob as
// glob constants are, each also lower-cased for a file system that ignores case; capability globs
// resolved against the policy's classes.
function lowerSandbox(sandbox: Sandbox, classes: ClassIR[]): SandboxIR {
  const pathForm = (p: string) => (isGlob(p) ? homeToTilde(p) : normalizePath(p) ?? p);
  const paths = (list: Sandbox["hide"]) => caseFoldedPaths(unique((list ?? []).flat().map(pathForm)));
  const capabilityGlobs = sandbox.capabilities ?? [];
  return {
    capabilities: unique(classes.map((c) => c.capability).filter((c) => capabilityGlobs.some((g) => globMatches(g, c)))),
    hide: paths(sandbox.hide),
    readOnly: paths(sandbox.read_only),
    env: unique(sandbox.env ?? []),
    hosts: firstWins((sandbox.hosts ?? []).flatMap(({ programs, hosts }) =>
      programs.map((program) => [program, unique(hosts.map((h) => asciiLower(h)))] as [string, string[]]))),
    enforces: unique(sandbox.enforces ?? []),
  };
}

// A budget's scope field (§3.2): whose calls count, and the period after which the count restarts.
function budgetScope(per: "session" | "user" | "team" | undefined, period: "day" | "week" | undefined): number {
  const who = per === "user" ? BUDGET_PER_USER : per === "team" ? BUDGET_PER_TEAM : BUDGET_PER_SESSION;
  const when = period === "day" ? BUDGET_PERIOD_DAY : period === "week" ? BUDGET_PERIOD_WEEK : BUDGET_PERIOD_NONE;
  return who | (when << 8);
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

// The categories of the grammar's second table (GRAMMAR2_PREFIX, docs/bytecode.md §7.3).
const GRAMMAR2_BITS: Record<string, number> = { additive: G2_ADD, retract: G2_RETRACT, after_all: G2_AFTER_ALL, pause: G2_PAUSE };

const GRAMMAR_BITS: Record<Exclude<(typeof GRAMMAR_CATEGORIES)[number], "additive" | "retract" | "after_all" | "pause">, number> = {
  destination: G_DEST, source: G_SOURCE, mention: G_MENTION, relative: G_RELATIVE, auxiliary: G_AUX,
  destination_after: G_DEST_AFTER, source_after: G_SOURCE_AFTER, destination_before: G_DEST_BEFORE,
  question: G_QUESTION, explain: G_QUESTION, polite: G_POLITE, addressee: G_ADDRESSEE, condition: G_CONDITION,
  condition_after: G_CONDITION_AFTER, subject: G_SUBJECT, determiner: G_DETERMINER, barrier: G_BARRIER, lead: G_LEAD,
  conjunction: G_CONJ, only: G_ONLY, instead: G_INSTEAD, revoke: G_REVOKE, exclude: G_EXCLUDE, restore: G_RESTORE,
  quote_markers: G_QUOTE_MARKER, headers: G_HEADER,
};

const OBJECT_CODES = { destination: OBJECT_DESTINATION, written: OBJECT_WRITTEN, source: OBJECT_SOURCE, included: OBJECT_INCLUDED, converted: OBJECT_CONVERTED, delegated: OBJECT_DELEGATED };

/** The action sets (docs/bytecode.md §7.5): a tool's name word, and a request's verb word, to the
 * bits of the actions it says or asks for (bit k: the k-th action named). */
function actionTables(actions: Map<string, { tools: Set<string>; verbs: Set<string> }>): Pick<IntentIR, "actionTools" | "actionVerbs"> {
  // Bit 31 is the evaluator's own: a verb that names no action (docs/bytecode.md §7.5).
  if (actions.size > 31) throw new Error(`intent.actions: at most 31 actions, not ${actions.size}`);
  const tools = new Map<string, number>(), verbs = new Map<string, number>();
  [...actions.values()].forEach((action, k) => {
    for (const w of action.tools) tools.set(w, (tools.get(w) ?? 0) | (1 << k));
    for (const w of action.verbs) verbs.set(w, (verbs.get(w) ?? 0) | (1 << k));
  });
  const unsigned = (m: Map<string, number>) => [...m].map(([w, bits]) => [w, bits >>> 0] as [string, number]);
  return { actionTools: unsigned(tools), actionVerbs: unsigned(verbs) };
}

/** The grammar set (docs/bytecode.md §7.3): each word or phrase (its words joined with no space)
 *  with the OR of its categories' bits, a phrase's first word marked as a phrase head, and each
 *  verb word with its object direction (the first verb that has the word decides it). */
function grammarWords(grammar: Map<string, Set<string>>, verbs: IntentVerb[], negations: string[], nothing: string[]): Array<[string, number]> {
  const values = new Map<string, number>();
  const add = (key: string, bits: number) => values.set(key, ((values.get(key) ?? 0) | bits) >>> 0);
  for (const category of GRAMMAR_CATEGORIES) {
    for (const phrase of grammar.get(category) ?? []) {
      const parts = grammarLower(phrase).split(" ");
      // A phrase of the second table is looked up whole where the follow-ups are read: no head.
      if (category in GRAMMAR2_BITS) { add(String.fromCharCode(GRAMMAR2_PREFIX) + parts.join(""), GRAMMAR2_BITS[category]); continue; }
      add(parts.join(""), GRAMMAR_BITS[category as keyof typeof GRAMMAR_BITS]);
      if (parts.length > 1) add(parts[0], G_PHRASE_HEAD);
    }
  }
  for (const word of negations) add(word, G_NEGATION);
  for (const word of nothing) add(word, G_NOTHING);
  const seen = new Set<string>();
  for (const verb of verbs) {
    for (const word of verb.words.map(grammarLower)) {
      if (seen.has(word)) continue;
      seen.add(word);
      add(word, G_VERB | ((verb.object === undefined ? 0 : OBJECT_CODES[verb.object]) << GRAMMAR_OBJECT_SHIFT));
    }
  }
  return [...values];
}
