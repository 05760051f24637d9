// Stage 2: validation. Each file against the schema and the rules that need a whole file;
// then the merged policy (duplicate ids, selectors that match nothing). Every finding
// names the YAML node it is about and what was expected there.
import * as path from "node:path";
import type * as z from "zod";
import { diagnostic, formatPos, type Diagnostic } from "./diagnostic";
import { globMatches } from "./glob";
import type { PolicyIR } from "./ir";
import { homeToTilde, isAbsolutePathGlob, isEmailAddress, isHostName, normalizeAmount, normalizePath } from "./normalize";
import type { ParsedFile, YamlPath } from "./parse";
import { SUBJECT_CODES, subjectOf, VALID_TESTS, type TestName } from "./predicates";
import { PLACEHOLDERS, PolicyFile, type Predicate } from "./schema";
import { SUBJ_AMOUNT, SUBJ_DOMAIN, SUBJ_EMAIL, SUBJ_PATH, SUBJ_WRITE } from "../bytecode/format";

export interface CheckedFile {
  file: string;
  absPath: string;
  policy: PolicyFile;
  locate: ParsedFile["locate"];
}

export interface Findings {
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

export function checkFile(
  parsed: ParsedFile,
  absPath: string,
  exists: (absPath: string) => boolean,
): Findings & { checked?: CheckedFile } {
  const findings: Findings = { errors: [...parsed.errors], warnings: [...parsed.warnings] };
  if (parsed.errors.length > 0) return findings;
  const result = PolicyFile.safeParse(parsed.value, { reportInput: true });
  if (!result.success) {
    for (const issue of result.error.issues) findings.errors.push(...issueDiagnostics(issue, parsed));
    return sorted(findings);
  }
  const checked = { file: parsed.file, absPath, policy: result.data, locate: parsed.locate };
  const report = (at: YamlPath, message: string, part: "key" | "value" = "value") =>
    findings.errors.push(diagnostic(parsed.locate(at, part), message));
  checkExtends(checked, exists, report);
  checkTools(checked.policy, report);
  checkRules(checked.policy, report);
  checkBudgets(checked.policy, report);
  return findings.errors.length > 0 ? sorted(findings) : { ...findings, checked };
}

// In file order, as an editor lists them.
function sorted(findings: Findings): Findings {
  const byPosition = (a: Diagnostic, b: Diagnostic) => a.line - b.line || a.col - b.col;
  return { errors: findings.errors.sort(byPosition), warnings: findings.warnings.sort(byPosition) };
}

type Report = (at: YamlPath, message: string, part?: "key" | "value") => void;

function checkExtends(file: CheckedFile, exists: (absPath: string) => boolean, report: Report): void {
  (file.policy.extends ?? []).forEach((entry, i) => {
    if (entry === "defaults") return;
    const target = path.resolve(path.dirname(file.absPath), entry);
    if (!exists(target)) report(["extends", i], `extends "${entry}": no such file (${target})`);
  });
}

function checkTools(policy: PolicyFile, report: Report): void {
  (policy.tools ?? []).forEach((tool, i) => {
    if (tool.name === undefined && tool.mcp === undefined) {
      report(["tools", i], "a tool entry needs name or mcp");
    } else if (tool.name !== undefined && tool.mcp !== undefined) {
      report(["tools", i, "mcp"], "a tool entry takes name or mcp, not both", "key");
    }
  });
}

// A budget counts calls (limit) or sums (amount), one of the two.
function checkBudgets(policy: PolicyFile, report: Report): void {
  (policy.budgets ?? []).forEach((budget, i) => {
    if ((budget.limit === undefined) === (budget.amount === undefined)) {
      report(["budgets", i], "a budget takes limit (calls) or amount (a cap on their sums), one of the two");
    } else if (budget.amount !== undefined) {
      const cap = normalizeAmount(budget.amount);
      if (cap === null || !/[1-9]/.test(cap.split(" ")[0])) report(["budgets", i, "amount"], AMOUNT_EXPECTED);
    }
  });
}

const AMOUNT_EXPECTED = 'expected a sum above 0: a number like 500 or 12.5, optionally with a currency code ("500 EUR")';

const PLACEHOLDER_RE = /\{([^{}]*)\}/g;

function checkRules(policy: PolicyFile, report: Report): void {
  (policy.rules ?? []).forEach((rule, i) => {
    for (const [, name] of (rule.message ?? "").matchAll(PLACEHOLDER_RE)) {
      if (!(PLACEHOLDERS as readonly string[]).includes(name)) {
        const expected = PLACEHOLDERS.map((p) => `{${p}}`).join(", ");
        report(["rules", i, "message"], `unknown placeholder {${name}} in message (expected ${expected})`);
      }
    }
    for (const [key, predicate] of Object.entries(rule.when ?? {})) {
      checkPredicate(key, predicate, ["rules", i, "when", key], report);
    }
  });
}

function checkPredicate(key: string, predicate: Predicate, at: YamlPath, report: Report): void {
  const { subject } = subjectOf(key);
  const valid = [...VALID_TESTS[subject], "not"];
  const given = Object.keys(predicate).filter((k) => predicate[k as keyof Predicate] !== undefined);
  if (given.length === 0) {
    report(at, `${key} needs a predicate: one of ${valid.join(", ")}`);
    return;
  }
  for (const name of given) {
    if (name === "not") {
      checkPredicate(key, predicate.not!, [...at, "not"], report);
    } else if (!valid.includes(name)) {
      report([...at, name], `${name} does not apply to ${key} (it takes ${valid.join(", ")})`, "key");
    } else {
      checkConstants(subject, name as TestName, predicate, [...at, name], report);
    }
  }
}

// Constants that can never match a normalized target are errors, not silent dead rules.
function checkConstants(subject: number, test: TestName, predicate: Predicate, at: YamlPath, report: Report): void {
  const raw = predicate[test];
  if (test === "in_intent" && raw === "ruled_out" && subject !== SUBJ_PATH && subject !== SUBJ_WRITE) {
    report(at, "in_intent: ruled_out reads paths only (subjects path and write)");
    return;
  }
  if ((typeof raw === "boolean" && test !== "equals") || test === "in_intent" || test === "intent_any" || test === "truthy") return;
  const values = Array.isArray(raw) ? raw : [raw];
  values.forEach((value, j) => {
    const where = Array.isArray(raw) ? [...at, j] : at;
    const problem = constantProblem(subject, test, String(value));
    if (problem) report(where, problem);
  });
}

function constantProblem(subject: number, test: TestName, value: string): string | undefined {
  if ((test === "at_most" || subject === SUBJ_AMOUNT) && normalizeAmount(value) === null) {
    return `"${value}" is not a sum: ${AMOUNT_EXPECTED.replace("above 0: ", "")}`;
  }
  if (test === "domain" || (subject === SUBJ_DOMAIN && (test === "equals" || test === "in"))) {
    if (!isHostName(value)) return `"${value}" is not a host name (expected one like example.com; subdomains match too)`;
  }
  if (subject === SUBJ_EMAIL && (test === "equals" || test === "in") && !isEmailAddress(value)) {
    return `"${value}" is not an e-mail address (expected one like name@example.com)`;
  }
  if (subject !== SUBJ_PATH && subject !== SUBJ_WRITE) return undefined;
  if (test === "glob") {
    if (!isAbsolutePathGlob(value)) {
      return `path glob "${value}" can never match: paths are absolute, so it must start with /, ~ or **`;
    }
  } else if (test === "prefix") {
    const text = homeToTilde(value);
    if (!text.startsWith("/") && !text.startsWith("~")) {
      return `path prefix "${value}" must be absolute or start with ~ (or $HOME)`;
    }
  } else if (normalizePath(value, test === "under") === null) {
    const text = homeToTilde(value);
    if (text.startsWith("~")) return `path "${value}" climbs above ~`;
    if (test === "under" && (text === "." || text.startsWith("./"))) return `path "${value}" climbs above the working directory`;
    return test === "under"
      ? `path "${value}" must be absolute, start with ~ (or $HOME), or start with ./ (the working directory)`
      : `path "${value}" must be absolute or start with ~ (or $HOME)`;
  }
  return undefined;
}

/** Checks that need the merged policy: rule and budget ids across files, selectors against classes. */
export function checkPolicy(ir: PolicyIR): Findings {
  const findings: Findings = { errors: [], warnings: [] };
  const firstById = new Map<string, PolicyIR["rules"][number]>();
  const firstBudget = new Map<string, PolicyIR["budgets"][number]>();
  for (const rule of ir.rules) {
    const first = firstById.get(rule.id);
    if (first) {
      const message = `duplicate rule id "${rule.id}" (first defined at ${formatPos(first.idAt)})`;
      findings.errors.push(diagnostic(rule.idAt, message));
    } else {
      firstById.set(rule.id, rule);
    }
    if (rule.classes.length === 0) {
      const message = `rule "${rule.id}" can never apply: no tool class of this policy matches its capability, risk and tool selectors`;
      findings.warnings.push(diagnostic(rule.at, message));
    }
  }
  // A budget's id shares the decision record's rule field with rule ids: keep them apart.
  for (const budget of ir.budgets) {
    const first = firstById.get(budget.id) ?? firstBudget.get(budget.id);
    if (first) {
      const message = `duplicate id "${budget.id}": a rule or budget already has it (first defined at ${formatPos(first.idAt)})`;
      findings.errors.push(diagnostic(budget.idAt, message));
    } else {
      firstBudget.set(budget.id, budget);
    }
    if (budget.classes.length === 0) {
      const message = `budget "${budget.id}" counts nothing: no tool class of this policy matches its capability and risk selectors`;
      findings.warnings.push(diagnostic(budget.at, message));
    }
  }
  findings.warnings.push(...shadowWarnings(ir));
  for (const verb of ir.intent.verbs) {
    for (const glob of verb.capabilities) {
      if (!ir.classes.some((c) => globMatches(glob.pattern, c.capability))) {
        const message = `intent capability "${glob.pattern}" matches no capability of this policy`;
        findings.warnings.push(diagnostic(glob.at, message));
      }
    }
  }
  return findings;
}

// ---- rules that can never decide ----

type RuleIRItem = PolicyIR["rules"][number];
type ConditionIRItem = RuleIRItem["conditions"][number];

// Block rules run first, then ask, then allow; each group in policy order (docs/bytecode.md §5.3).
// Warn rules run before them all and decide nothing: they neither shadow a rule nor are shadowed.
const EFFECT_RANK = { warn: -1, block: 0, ask: 1, confine: 2, allow: 3 } as const;

/**
 * A rule that holds whenever another rule that runs before it (on every class it applies to)
 * holds never decides anything. Implication is read off the IR conservatively: each test of
 * the earlier rule must follow from one test of the later rule on the same subject.
 */
function shadowWarnings(ir: PolicyIR): Diagnostic[] {
  const order = ir.rules
    .map((rule, index) => ({ rule, index }))
    .sort((a, b) => EFFECT_RANK[a.rule.effect] - EFFECT_RANK[b.rule.effect] || a.index - b.index);
  const warnings: Diagnostic[] = [];
  const earlier = new EarlierRules();
  order.forEach(({ rule }, position) => {
    if (rule.classes.length === 0 || rule.effect === "warn") return; // no class: already reported
    const contradiction = contradictoryConditions(rule);
    if (contradiction) {
      warnings.push(diagnostic(rule.at, `rule "${rule.id}" can never apply: ${contradiction}`));
      return;
    }
    const shadowers: RuleIRItem[] = [];
    for (const c of rule.classes) {
      const shadower = earlier.candidates(c, rule).find((e) => holdsWhenever(e, rule));
      if (shadower === undefined) break;
      shadowers.push(shadower);
    }
    earlier.add(position, rule);
    if (shadowers.length === rule.classes.length) {
      const first = shadowers[0]!;
      const why = first.effect === rule.effect ? "comes before it" : `runs before it (${first.effect} rules run before ${rule.effect} rules)`;
      const message = `rule "${rule.id}" can never decide: rule "${first.id}" (${formatPos(first.at)}) ${why} and holds whenever it does`;
      warnings.push(diagnostic(rule.at, message));
    }
  });
  return warnings;
}

/**
 * The rules seen so far, by class, for the shadow check. An earlier rule holds whenever a later
 * one does only if each of its conditions is implied by one of the later rule's, and a plain
 * value test (not negated) is implied only by a test of the same subject and family whose values
 * are all among its own. So an earlier rule whose first condition is such a test is tried only
 * on later rules with a test whose first value it holds: thousands of rules on one class, each
 * with its own recipient, cost a lookup each instead of a comparison with every rule before.
 */
class EarlierRules {
  private readonly general = new Map<number, Array<[number, RuleIRItem]>>(); // class -> (position, rule)
  private readonly byValue = new Map<string, Array<[number, RuleIRItem]>>(); // valueKey -> (position, rule)

  add(position: number, rule: RuleIRItem): void {
    const first = rule.conditions[0];
    const values = first !== undefined && !first.negate ? constantsOf(first.test) : undefined;
    for (const c of rule.classes) {
      if (values === undefined) append(this.general, c, [position, rule]);
      else for (const v of new Set(values)) append(this.byValue, valueKey(c, first!, v), [position, rule]);
    }
  }

  /** The earlier rules of class `c` that may hold whenever `later` does, in policy order. */
  candidates(c: number, later: RuleIRItem): RuleIRItem[] {
    const found = [...(this.general.get(c) ?? [])];
    for (const condition of later.conditions) {
      const values = condition.negate ? undefined : constantsOf(condition.test);
      if (values === undefined) continue;
      if (values.length === 0) return this.all(c); // an empty test is implied by nothing useful to index
      found.push(...(this.byValue.get(valueKey(c, condition, values[0])) ?? []));
    }
    return [...new Set(found.sort((a, b) => a[0] - b[0]).map(([, rule]) => rule))];
  }

  private all(c: number): RuleIRItem[] {
    const found = [...(this.general.get(c) ?? [])];
    for (const [key, entries] of this.byValue) if (key.startsWith(`${c}\u0000`)) found.push(...entries);
    return [...new Set(found.sort((a, b) => a[0] - b[0]).map(([, rule]) => rule))];
  }
}

function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const found = map.get(key);
  if (found) found.push(value);
  else map.set(key, [value]);
}

function valueKey(c: number, condition: ConditionIRItem, value: string): string {
  return [c, condition.subject, condition.arg ?? "", family(condition.test.kind), value].join("\u0000");
}

/** `present: true` and `present: false` on one subject: no call has both. */
function contradictoryConditions(rule: RuleIRItem): string | undefined {
  for (const a of rule.conditions) {
    for (const b of rule.conditions) {
      if (a.test.kind === "present" && b.test.kind === "present" && sameSubject(a, b) && a.test.present && !b.test.present) {
        return `it asks for ${subjectLabel(a)} to be both present and absent`;
      }
    }
  }
  return undefined;
}

/** Whether `earlier` holds on every call on which `later` holds. */
function holdsWhenever(earlier: RuleIRItem, later: RuleIRItem): boolean {
  if (earlier.tools !== null && (later.tools === null || !later.tools.every((t) => earlier.tools!.includes(t)))) return false;
  const earlierAll = earlier.effect === "allow" || earlier.effect === "confine";
  const laterAll = later.effect === "allow" || later.effect === "confine";
  return earlier.conditions.every((e) => later.conditions.some((l) => implies(l, laterAll, e, earlierAll)));
}

// Per-value tests use ALL in allow and confine rules and ANY otherwise; ALL needs at least one value, so
// it implies ANY, never the reverse. PRESENT, GRANTED and INTENT_ANY ignore the quantifier.
function implies(given: ConditionIRItem, givenAll: boolean, wanted: ConditionIRItem, wantedAll: boolean): boolean {
  if (!sameSubject(given, wanted) || given.negate !== wanted.negate) return false;
  const g = given.test;
  const w = wanted.test;
  if (w.kind === "present") return g.kind === "present" && g.present === w.present;
  if (w.kind === "granted") return g.kind === w.kind;
  if (w.kind === "intent_any") return g.kind === w.kind && readingImplies(g.reading, w.reading, given.negate);
  if (wantedAll && !givenAll) return false;
  if (w.kind === "in_intent") return g.kind === "in_intent" && readingImplies(g.reading, w.reading, given.negate);
  const wantedValues = constantsOf(w);
  const givenValues = constantsOf(g);
  if (wantedValues === undefined || givenValues === undefined || family(g.kind) !== family(w.kind)) return false;
  // A value in a smaller set is in the larger one; a value outside a larger set is outside the smaller one.
  return given.negate ? isSubset(wantedValues, givenValues) : isSubset(givenValues, wantedValues);
}

// A destination is also a source, and a source is named: "in_intent: true" implies "source",
// which implies "named"; "exact" (the value itself named) implies "named" too. "not named"
// implies "not source", which implies "not true", and "not exact".
// "ruled_out" implies only itself.
const READING_IMPLIES: number[][] = [[0, 1, 2], [1], [1, 2], [1, 3], [4]]; // by reading: destination, named, source, exact, ruled_out
function readingImplies(given: number, wanted: number, negated: boolean): boolean {
  return negated ? READING_IMPLIES[wanted].includes(given) : READING_IMPLIES[given].includes(wanted);
}

function isSubset(small: string[], large: string[]): boolean {
  if (small.length * large.length <= 64) return small.every((v) => large.includes(v));
  const members = new Set(large); // allow-lists run to 100,000 members
  return small.every((v) => members.has(v));
}

function constantsOf(test: ConditionIRItem["test"]): string[] | undefined {
  if (test.kind === "equals") return [test.value];
  return "values" in test ? test.values : undefined;
}

// equals is in with one member; the other tests compare only with themselves.
function family(kind: ConditionIRItem["test"]["kind"]): string {
  return kind === "equals" ? "in" : kind;
}

function sameSubject(a: ConditionIRItem, b: ConditionIRItem): boolean {
  return a.subject === b.subject && a.arg === b.arg;
}

function subjectLabel(condition: ConditionIRItem): string {
  if (condition.arg !== null) return `args.${condition.arg}`;
  return Object.entries(SUBJECT_CODES).find(([, code]) => code === condition.subject)![0];
}

// ---- zod issues -> diagnostics ----

/** What kind of file a schema checks, for messages about the file as a whole. */
export interface DocumentKind {
  name: string; // "the policy"
  empty: string; // what the smallest such file holds
  notMapping?: string; // what to do instead, when the file is not a mapping
}

const POLICY_DOCUMENT: DocumentKind = { name: "the policy", empty: "a policy needs at least version: 1" };

/** One zod issue as diagnostics at its YAML node; `schema` lists the keys an unknown key could have been. */
export function issueDiagnostics(issue: z.core.$ZodIssue, parsed: ParsedFile, schema: z.ZodType = PolicyFile,
  document: DocumentKind = POLICY_DOCUMENT): Diagnostic[] {
  const at = issue.path;
  const labelAt = (path: YamlPath) => (path.length === 0 ? document.name : labelOf(path));
  const label = labelAt(at);
  const got = describeValue(issue.input);
  const here = (message: string, where: YamlPath = at, part: "key" | "value" = "value") =>
    diagnostic(parsed.locate(where, part), message);
  if (at.length === 0 && (issue.input === undefined || issue.input === null)) {
    return [here(`the file is empty: ${document.empty}`)];
  }
  if (at.length === 0 && issue.code === "invalid_type" && document.notMapping !== undefined) {
    return [here(`${label} must be a mapping (got ${got}): ${document.notMapping}`)];
  }
  if (issue.input === undefined && (issue.code === "invalid_type" || issue.code === "invalid_value")) {
    return [here(`missing key ${String(at[at.length - 1])}`, at.slice(0, -1))];
  }
  switch (issue.code) {
    case "invalid_type":
      return [here(`${label} must be ${expectedPhrase(issue.expected)} (got ${got})`)];
    case "invalid_value": {
      const values = issue.values.map((v) => String(v));
      const expected = values.length === 1 ? values[0] : `one of ${values.join(", ")}`;
      return [here(`${label} must be ${expected} (got ${got})`)];
    }
    case "invalid_format":
      return [here(`${label} must be ${issue.message} (got ${got})`)];
    case "too_small":
    case "too_big":
      return [here(`${label} ${boundPhrase(issue)}${issue.origin === "array" ? "" : ` (got ${got})`}`)];
    case "unrecognized_keys": {
      const known = objectKeysAt(schema as unknown as SchemaNode, at);
      const expected = known ? ` (expected one of ${known.join(", ")})` : "";
      return issue.keys.map((key) => here(`unknown key "${key}"${expected}`, [...at, key], "key"));
    }
    case "invalid_key": {
      const reasons = issue.issues.map((i) => i.message).join("; ");
      return [here(`invalid key ${got} in ${labelAt(at.slice(0, -1))}: expected ${reasons}`, at, "key")];
    }
    case "invalid_union": {
      const expected = issue.errors.flat().flatMap((i) => (i.code === "invalid_type" ? [expectedPhrase(i.expected)] : []));
      return [here(`${label} must be ${orList([...new Set(expected)])} (got ${got})`)];
    }
    default:
      return [here(`${label}: ${issue.message}`)];
  }
}

// "effect", "capability[0]", "defaults.read": the path below the innermost list item.
function labelOf(at: YamlPath): string {
  let start = 0;
  for (let i = 0; i < at.length - 1; i++) if (typeof at[i] === "number") start = i + 1;
  let label = "";
  for (const segment of at.slice(start)) {
    label += typeof segment === "number" ? `[${segment}]` : `${label ? "." : ""}${String(segment)}`;
  }
  return label;
}

function orList(items: string[]): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

function expectedPhrase(expected: string): string {
  const phrases: Record<string, string> = {
    string: "a string",
    number: "a number",
    int: "an integer",
    boolean: "true/false",
    array: "a list",
    object: "a mapping",
    record: "a mapping",
  };
  return phrases[expected] ?? expected;
}

function boundPhrase(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string {
  const small = issue.code === "too_small";
  const bound = Number(small ? (issue as z.core.$ZodIssueTooSmall).minimum : (issue as z.core.$ZodIssueTooBig).maximum);
  const least = small ? "at least" : "at most";
  if (issue.origin === "array") return `must have ${least} ${bound} item${bound === 1 ? "" : "s"}`;
  if (issue.origin === "string") {
    return small && bound === 1 ? "must not be empty" : `must have ${least} ${bound} characters`;
  }
  return `must be ${least} ${bound}`;
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? value.slice(0, 57) + "..." : value);
  return String(value);
}

interface SchemaNode {
  _zod: {
    def: {
      type: string;
      shape?: Record<string, SchemaNode>;
      element?: SchemaNode;
      valueType?: SchemaNode;
      innerType?: SchemaNode;
    };
  };
}

// The keys the schema allows at `at`, to list them next to an unknown key.
function objectKeysAt(schema: SchemaNode, at: YamlPath): string[] | undefined {
  let node: SchemaNode | undefined = unwrap(schema);
  for (const segment of at) {
    const def: SchemaNode["_zod"]["def"] = node._zod.def;
    if (def.type === "object") node = def.shape?.[String(segment)];
    else if (def.type === "array") node = def.element;
    else if (def.type === "record") node = def.valueType;
    else return undefined;
    if (!node) return undefined;
    node = unwrap(node);
  }
  const shape = node._zod.def.shape;
  return shape ? Object.keys(shape) : undefined;
}

function unwrap(node: SchemaNode): SchemaNode {
  let current = node;
  while (current._zod.def.innerType) current = current._zod.def.innerType;
  return current;
}
