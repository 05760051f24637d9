// Stage 4: PolicyIR -> Plan: the code of each class as rules of tests, and one pool of
// deduplicated sets. What is left for emit.ts is layout.
import {
  EFFECT_ALLOW, EFFECT_ASK, EFFECT_BLOCK, EFFECT_CONFINE, EFFECT_WARN, FLAG_ALL, FLAG_NEGATE, OP_TEST_AT_MOST, OP_TEST_EQUALS, OP_TEST_GLOB,
  OP_TEST_GRANTED, OP_TEST_IN, OP_TEST_IN_INTENT, OP_TEST_IN_DERIVED, OP_TEST_INTENT_ANY, OP_TEST_PRESENT, OP_TEST_TRUTHY, SETKIND_HASH, SETKIND_KEYS, SETKIND_LIST, SUBJ_TOOL,
} from "../bytecode/format";
import { isGlob } from "./glob";
import type { ConditionIR, PolicyIR, RuleIR } from "./ir";
import { PREDICATE_OPS } from "./predicates";
import type { Effect } from "./schema";

export const EFFECT_CODES: Record<Effect, number> = {
  allow: EFFECT_ALLOW, block: EFFECT_BLOCK, ask: EFFECT_ASK, confine: EFFECT_CONFINE, warn: EFFECT_WARN,
};

// "Deny overrides allow": block rules run first, then ask, then confine (an allow inside the
// task's sandbox), then allow (docs/bytecode.md §5.3); warn rules, which decide nothing, before
// them all, so each one that holds is recorded.
const EFFECT_ORDER: Effect[] = ["warn", "block", "ask", "confine", "allow"];

export interface SetPlan {
  kind: number;
  /** (key, value) pairs: HASH members have distinct keys; LIST members keep their order. */
  members: Array<[key: string, value: number]>;
}

export type Operand = { string: string } | { set: number } | { number: number };

export interface TestPlan {
  op: number;
  subject: number;
  flags: number;
  /** Argument path of an ARG test, else null (NONE). */
  arg: string | null;
  operand: Operand;
}

export interface RulePlan {
  /** Index into PolicyIR.rules (and the RULES section). */
  rule: number;
  tests: TestPlan[];
}

export interface ClassPlan {
  rules: RulePlan[];
  defaultEffect: number;
}

/** Set indices of the tables outside the code. */
export interface TableSets {
  exactTools: number;
  globTools: number;
  classifyWords: number;
  argRoles: number;
  trustedServers: number;
  exposureArgs: number;
  exposureWords: number;
  negations: number;
  nothingWords: number;
  negationCancels: number;
  fileExtensions: number;
  intentWords: number;
  grammar: number;
  actionTools: number;
  actionVerbs: number;
  shellWrappers: number;
  shellNetwork: number;
  shellShells: number;
  shellPrograms: number;
  failOpen: number;
  sandboxCapabilities: number;
  sandboxHide: number;
  sandboxReadOnly: number;
  sandboxEnv: number;
  sandboxHosts: number;
  sandboxRules: number;
}

export interface Plan {
  ir: PolicyIR;
  sets: SetPlan[];
  tables: TableSets;
  classes: ClassPlan[];
}

/** Members of a set that is only a set: every value 0. */
function asMembers(keys: string[]): Array<[string, number]> {
  return keys.map((key) => [key, 0]);
}

export function optimize(ir: PolicyIR): Plan {
  const pool = new SetPool();
  const tables: TableSets = {
    exactTools: pool.hash(ir.exactTools),
    globTools: pool.list(ir.globTools),
    classifyWords: pool.hash(ir.classify.words),
    argRoles: pool.hash(ir.classify.argRoles),
    trustedServers: pool.keys(ir.classify.trustedServers),
    exposureArgs: pool.hash(ir.classify.exposureArgs),
    exposureWords: pool.hash(ir.classify.exposureWords),
    negations: pool.keys(ir.intent.negations),
    nothingWords: pool.keys(ir.intent.nothingWords),
    negationCancels: pool.keys(ir.intent.negationCancels),
    fileExtensions: pool.keys(ir.intent.fileExtensions),
    intentWords: pool.hash(ir.intent.words),
    grammar: pool.hash(ir.intent.grammar),
    actionTools: pool.hash(ir.intent.actionTools),
    actionVerbs: pool.hash(ir.intent.actionVerbs),
    shellWrappers: pool.keys(ir.shell.wrappers),
    shellNetwork: pool.keys(ir.shell.networkPrograms),
    shellShells: pool.keys(ir.shell.shells),
    // Each program's option set once (grep, egrep and fgrep share one), then the map to them.
    shellPrograms: pool.hash(ir.shell.programs.map(([name, options]) => [name, pool.hash(options)])),
    failOpen: pool.keys(ir.failOpen),
    sandboxCapabilities: pool.keys(ir.sandbox.capabilities),
    sandboxHide: pool.list(asMembers(ir.sandbox.hide)),
    sandboxReadOnly: pool.list(asMembers(ir.sandbox.readOnly)),
    sandboxEnv: pool.list(asMembers(ir.sandbox.env)),
    sandboxHosts: pool.hash(ir.sandbox.hosts.map(([program, hosts]) => [program, pool.keys(hosts)])),
    sandboxRules: pool.keys(ir.sandbox.enforces),
  };
  const ruleTests = ir.rules.map((rule) => testsOf(rule, pool));
  // Each class's rules in effect order, then policy order: one pass over the rules' classes
  // (a policy may hold thousands of rules and classes).
  const rulesOf: RulePlan[][] = ir.classes.map(() => []);
  for (const effect of EFFECT_ORDER) {
    ir.rules.forEach((rule, r) => {
      if (rule.effect !== effect) return;
      for (const c of new Set(rule.classes)) rulesOf[c].push({ rule: r, tests: ruleTests[r] });
    });
  }
  const classes = ir.classes.map((cls, c): ClassPlan => {
    const rules = rulesOf[c];
    // A rule without tests always decides (but a warn rule): the rules after it can never run.
    const unconditional = rules.findIndex((r) => r.tests.length === 0 && ir.rules[r.rule].effect !== "warn");
    if (unconditional >= 0) rules.length = unconditional + 1;
    return { rules, defaultEffect: EFFECT_CODES[cls.defaultEffect] };
  });
  return { ir, sets: pool.sets, tables, classes };
}

// Allow and confine rules read every value ("ALL"), block and ask rules any one of them (§5).
function testsOf(rule: RuleIR, pool: SetPool): TestPlan[] {
  const quantifier = rule.effect === "allow" || rule.effect === "confine" ? FLAG_ALL : 0;
  const tests: TestPlan[] = [];
  if (rule.tools) tests.push(toolTest(rule.tools, quantifier, pool));
  for (const condition of rule.conditions) tests.push(conditionTest(condition, quantifier, pool));
  return tests;
}

// One exact name: EQUALS; several: IN; any glob among them: one GLOB over all (an exact
// name is a glob that matches only itself).
function toolTest(names: string[], quantifier: number, pool: SetPool): TestPlan {
  const base = { subject: SUBJ_TOOL, flags: quantifier, arg: null };
  if (names.some(isGlob)) return { ...base, op: OP_TEST_GLOB, operand: { set: pool.list(asMembers(names)) } };
  const distinct = [...new Set(names)];
  if (distinct.length === 1) return { ...base, op: OP_TEST_EQUALS, operand: { string: distinct[0] } };
  return { ...base, op: OP_TEST_IN, operand: { set: pool.keys(distinct) } };
}

function conditionTest(condition: ConditionIR, quantifier: number, pool: SetPool): TestPlan {
  const { subject, arg, test } = condition;
  const flags = (condition.negate ? FLAG_NEGATE : 0) | quantifier;
  const on = (op: number, operand: Operand): TestPlan => ({ op, subject, flags, arg, operand });
  switch (test.kind) {
    case "present": // tests the subject as a whole: no quantifier, `not` already flipped it
      return { ...on(OP_TEST_PRESENT, { number: test.present ? 1 : 0 }), flags: 0 };
    case "truthy": // as present
      return { ...on(OP_TEST_TRUTHY, { number: test.truthy ? 1 : 0 }), flags: 0 };
    case "in_intent":
      return on(OP_TEST_IN_INTENT, { number: test.reading });
    case "in_derived":
      return on(OP_TEST_IN_DERIVED, { number: 0 });
    case "granted":
      return on(OP_TEST_GRANTED, { number: 0 });
    case "intent_any": // a fact of the intent, not of each value: no quantifier
      return {
        ...on(OP_TEST_INTENT_ANY, { number: test.reading }),
        flags: condition.negate ? FLAG_NEGATE : 0,
      };
    case "equals":
      return on(OP_TEST_EQUALS, { string: test.value });
    case "at_most":
      return on(OP_TEST_AT_MOST, { string: test.value });
    case "in":
      if (test.values.length === 1) return on(OP_TEST_EQUALS, { string: test.values[0] });
      return on(OP_TEST_IN, { set: pool.keys(test.values) });
    case "glob":
    case "prefix":
      return on(PREDICATE_OPS[test.kind], { set: pool.list(asMembers(test.values)) });
    case "domain":
    case "under":
      return on(PREDICATE_OPS[test.kind], { set: pool.keys(test.values) });
  }
}

/** The constant pool: identical sets are stored once. */
class SetPool {
  readonly sets: SetPlan[] = [];
  private readonly byContent = new Map<string, number>();

  /** A HASH set (a map: each key has a value); lowering has already made its keys distinct. */
  hash(members: Array<[string, number]>): number {
    return this.hashed(SETKIND_HASH, members);
  }

  /** A KEYS set: a set and nothing more, stored without values (half the bytes of a HASH set). */
  keys(keys: string[]): number {
    return this.hashed(SETKIND_KEYS, asMembers(keys));
  }

  private hashed(kind: number, members: Array<[string, number]>): number {
    const content = [...members].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (content.some(([key], i) => i > 0 && key === content[i - 1][0])) {
      throw new Error(`internal error: duplicate key in a hashed set`);
    }
    return this.add({ kind, members }, content);
  }

  list(members: Array<[string, number]>): number {
    return this.add({ kind: SETKIND_LIST, members }, members);
  }

  // Hashed sets are the same set whatever their member order; LIST sets are ordered.
  private add(set: SetPlan, content: Array<[string, number]>): number {
    const key = JSON.stringify([set.kind, content]);
    let index = this.byContent.get(key);
    if (index === undefined) {
      index = this.sets.length;
      this.sets.push(set);
      this.byContent.set(key, index);
    }
    return index;
  }
}
