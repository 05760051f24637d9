// A direct interpreter of the PolicyIR: the test oracle of the differential test
// (compiler/test/differential.test.ts), which decides the same calls with fence.wasm on the
// compiled bytecode. It reads the language as docs/policy.md and docs/bytecode.md §5-§7 state
// it, on its own terms (no code of the evaluator), for calls within its model: arguments whose
// values are already in normal form, and an intent given as the items it names. Nothing at
// run time uses it.
import {
  ROLE_AMOUNT, ROLE_AMOUNT_MINOR, ROLE_COMMAND, ROLE_DOMAIN, ROLE_EMAIL, ROLE_OBJECT, ROLE_PATH, ROLE_RECIPIENT, ROLE_URL,
  SUBJ_AMOUNT, SUBJ_ARG, SUBJ_DOMAIN, SUBJ_EMAIL, SUBJ_OBJECT, SUBJ_PATH, SUBJ_PROGRAM, SUBJ_RECIPIENT, SUBJ_TOOL, SUBJ_URL,
} from "../assembly/format";
import { globMatches } from "./glob";
import type { ConditionIR, PolicyIR, RuleIR, TestIR } from "./ir";
import type { Effect } from "./schema";

/** What the user's messages named and granted (the evaluator's intent summary, §8). */
export interface IntentFacts {
  emails: string[];
  urls: string[];
  domains: string[];
  paths: string[];
  recipients: string[];
  names: string[];
  /** Objects and sums the messages named (§7.3), in their normal forms. */
  objects: string[];
  amounts: string[];
  /** Capabilities a verb of the messages granted. */
  granted: string[];
}

export const NO_INTENT: IntentFacts = {
  emails: [], urls: [], domains: [], paths: [], recipients: [], names: [], objects: [], amounts: [], granted: [],
};

// Three outcomes of a test (§5.4).
type Tri = 0 | 1 | 2;
const NO: Tri = 0;
const YES: Tri = 1;
const MAYBE: Tri = 2;
const best = (a: Tri, b: Tri): Tri => (a === YES || b === YES ? YES : a === MAYBE || b === MAYBE ? MAYBE : NO);
const not = (r: Tri): Tri => (r === MAYBE ? MAYBE : r === YES ? NO : YES);
const tri = (b: boolean): Tri => (b ? YES : NO);

export interface InterpDecision {
  kind: Effect;
  reason: string;
  /** The deciding rule's id; "" for the class default. */
  rule: string;
  capability: string;
  risk: string;
}

/** A value the oracle cannot read the way the evaluator would (the caller's generator is wrong). */
export class OutsideModel extends Error {}

interface Call {
  cls: number;
  roles: Array<{ argPath: string; role: number }> | null; // null: the classify role_map applies
  tool: string;
  leaves: Array<{ path: string; value: string; number?: true }>;
  targets: Map<number, string[]>;
}

export function interpret(ir: PolicyIR, tool: string, args: Record<string, unknown>, intent: IntentFacts): InterpDecision {
  const call = classify(ir, tool, args);
  const cls = ir.classes[call.cls];
  const order: Effect[] = ["block", "ask", "allow"]; // warn rules decide nothing
  // §5.4: a block rule that held maybe is kept; whatever else decides (but a block) asks by it.
  let kept: RuleIR | undefined;
  const decide = (kind: Effect, rule: RuleIR): InterpDecision => {
    const by = kept !== undefined && kind !== "block" ? kept : rule;
    return { kind: by === rule ? kind : "ask", reason: by.reason, rule: by.id, capability: cls.capability, risk: cls.risk };
  };
  for (const effect of order) {
    for (const rule of ir.rules) {
      if (rule.effect !== effect || !rule.classes.includes(call.cls)) continue;
      const held = ruleHolds(ir, rule, call, intent);
      if (held === NO) continue;
      if (held === YES || effect === "ask") return decide(effect, rule);
      if (effect === "block" && kept === undefined) kept = rule;
    }
  }
  if (kept !== undefined) return { kind: "ask", reason: kept.reason, rule: kept.id, capability: cls.capability, risk: cls.risk };
  return { kind: cls.defaultEffect, reason: `default_${cls.defaultEffect}`, rule: "", capability: cls.capability, risk: cls.risk };
}

// ---- the call: class, roles, targets ----

function classify(ir: PolicyIR, tool: string, args: Record<string, unknown>): Call {
  const exact = ir.exactTools.find(([name]) => name === tool);
  const glob = exact ?? ir.globTools.find(([pattern]) => globMatches(pattern, tool));
  let cls = 0;
  let roles: Call["roles"] = null;
  if (glob) {
    cls = ir.tools[glob[1]].class;
    roles = ir.tools[glob[1]].roles;
  } else {
    // The first verb entry that has one of the name's lower-case words (split at '_').
    const words = new Set(tool.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean));
    const entries = ir.classify.words.filter(([word]) => words.has(word)).map(([, entry]) => entry);
    if (entries.length > 0) cls = ir.classify.entryClasses[Math.min(...entries)];
  }
  const leaves = leavesOf(args, "");
  const call: Call = { cls, roles, tool, leaves, targets: new Map() };
  const sums: Array<{ path: string; value: string; number?: true; role: number }> = [];
  for (const leaf of leaves) {
    const role = roleOf(ir, call, leaf.path);
    if (role === ROLE_AMOUNT || role === ROLE_AMOUNT_MINOR) sums.push({ ...leaf, role });
    else if (leaf.number && role === ROLE_OBJECT) addTarget(call, SUBJ_OBJECT, canonical(leaf.value));
    else if (!leaf.number) addTargets(call, role, leaf.value);
  }
  addSums(call, sums);
  return call;
}

function leavesOf(value: unknown, path: string): Array<{ path: string; value: string; number?: true }> {
  if (typeof value === "string") return [{ path, value }];
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return [{ path, value: String(value), number: true }];
  if (Array.isArray(value)) return value.flatMap((item) => leavesOf(item, path));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([key, item]) => leavesOf(item, path === "" ? key : `${path}.${key}`));
  }
  throw new OutsideModel(`only strings, arrays and objects: ${JSON.stringify(value)}`);
}

function roleOf(ir: PolicyIR, call: Call, path: string): number {
  const lower = path.toLowerCase();
  if (call.roles !== null) {
    const hit = call.roles.find(({ argPath }) => {
      const at = argPath.toLowerCase();
      return lower === at || lower.startsWith(`${at}.`);
    });
    return hit?.role ?? 0;
  }
  const top = lower.split(".")[0];
  return ir.classify.argRoles.find(([name]) => name === top)?.[1] ?? 0;
}

const EMAIL = /^[a-z0-9._-]+@[a-z0-9.-]+\.[a-z]+$/;
const HOST = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/;
const URL_SHAPE = /^https:\/\/([a-z0-9.-]+)(\/[a-z0-9._/-]*)?$/;
const PATH_SHAPE = /^(\/[a-z0-9._-]+)+$/;
const RECIPIENT = /^[#@][a-z0-9_-]+$/;
const PROGRAM = /^[a-z]+$/;
// Prose with no address, URL, host or path in it (words, a currency code, a decimal): no target.
const NO_SHAPE = /^([a-z ,()]+|[A-Za-z]{3}|\d+(\.\d+)?)$/;

function addTarget(call: Call, subject: number, text: string): void {
  const list = call.targets.get(subject) ?? [];
  if (!list.includes(text)) list.push(text);
  call.targets.set(subject, list);
}

// A decimal without leading zeros or trailing fraction zeros (§6.9).
function canonical(digits: string): string {
  let [whole, fraction = ""] = digits.split(".");
  whole = whole.replace(/^0+(?=\d)/, "");
  fraction = fraction.replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}

const SUM = /^\d+(\.\d+)?$/;
const CURRENCY = /^[A-Za-z]{3}$/;

// §5.2's sums, for the model's calls: numbers and plain decimals in the currency leaves of their
// own object (the nearest enclosing one that has any), minor units by cents (no other currency).
function addSums(call: Call, sums: Array<{ path: string; value: string; number?: true; role: number }>): void {
  const parent = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf(".")));
  const currencies = sums.filter((s) => !s.number && CURRENCY.test(s.value)).map((s) => ({ at: parent(s.path), code: s.value.toUpperCase() }));
  for (const sum of sums) {
    if (!sum.number && CURRENCY.test(sum.value)) continue;
    if (!SUM.test(sum.value)) throw new OutsideModel(`a sum outside the model: ${JSON.stringify(sum.value)}`);
    let at = parent(sum.path);
    let codes: string[] = [];
    for (;;) {
      codes = [...new Set(currencies.filter((c) => c.at === at).map((c) => c.code))];
      if (codes.length > 0 || at === "") break;
      at = parent(at);
    }
    for (const code of codes.length > 0 ? codes : [undefined]) {
      if (sum.role === ROLE_AMOUNT_MINOR && code !== undefined && code !== "USD" && code !== "EUR") {
        throw new OutsideModel(`minor units of ${code}`);
      }
      let value = canonical(sum.value);
      if (sum.role === ROLE_AMOUNT_MINOR && code !== undefined) {
        const cents = value.padStart(3, "0");
        value = canonical(`${cents.slice(0, -2)}.${cents.slice(-2)}`);
      }
      addTarget(call, SUBJ_AMOUNT, code === undefined ? value : `${value} ${code}`);
    }
  }
}

function addTargets(call: Call, role: number, value: string): void {
  const add = (subject: number, text: string) => addTarget(call, subject, text);
  const need = (shape: RegExp) => {
    if (!shape.test(value)) throw new OutsideModel(`role ${role} with ${JSON.stringify(value)}`);
  };
  switch (role) {
    case 0: // a string no role names is read by its shape (§5.2)
      if (EMAIL.test(value)) return add(SUBJ_EMAIL, value);
      if (URL_SHAPE.test(value)) {
        add(SUBJ_URL, value);
        return add(SUBJ_DOMAIN, URL_SHAPE.exec(value)![1]);
      }
      if (PATH_SHAPE.test(value)) return add(SUBJ_PATH, value);
      if (NO_SHAPE.test(value)) return; // a host's last label has letters (§7): "12.5" is none
      if (HOST.test(value)) return add(SUBJ_DOMAIN, value);
      if (RECIPIENT.test(value) || PROGRAM.test(value)) return;
      throw new OutsideModel(`an argument without a role: ${JSON.stringify(value)}`);
    case ROLE_EMAIL:
      need(EMAIL);
      return add(SUBJ_EMAIL, value);
    case ROLE_URL:
      need(URL_SHAPE);
      add(SUBJ_URL, value);
      return add(SUBJ_DOMAIN, URL_SHAPE.exec(value)![1]);
    case ROLE_DOMAIN:
      need(HOST);
      return add(SUBJ_DOMAIN, value);
    case ROLE_PATH:
      need(PATH_SHAPE);
      return add(SUBJ_PATH, value);
    case ROLE_RECIPIENT:
      need(RECIPIENT);
      return add(SUBJ_RECIPIENT, value);
    case ROLE_COMMAND: // one program, no arguments: the shell reader's simplest case
      need(PROGRAM);
      return add(SUBJ_PROGRAM, value);
    case ROLE_OBJECT: // §6.8, for the model's values: lower-case words and single spaces
      if (!/^[a-z0-9][a-z0-9 ,()-]*$/.test(value) || /  |[ ,(]$/.test(value)) throw new OutsideModel(`an object outside the model: ${value}`);
      return add(SUBJ_OBJECT, value);
    default:
      throw new OutsideModel(`role ${role} is outside the model`);
  }
}

// ---- rules and tests (§5) ----

// A rule holds when every test holds, maybe when none failed and one held maybe (§5.4).
function ruleHolds(ir: PolicyIR, rule: RuleIR, call: Call, intent: IntentFacts): Tri {
  const all = rule.effect === "allow"; // the safe reading: ALL in allow rules, ANY in block and ask
  if (rule.tools !== null && quantified(all, [call.tool], (name) => tri(rule.tools!.some((s) => globMatches(s, name)))) === NO) return NO;
  let held: Tri = YES;
  for (const condition of rule.conditions) {
    const r = conditionHolds(ir, condition, call, intent, all);
    if (r === NO) return NO;
    if (r === MAYBE) held = MAYBE;
  }
  return held;
}

function valuesOf(call: Call, condition: ConditionIR): string[] {
  if (condition.subject === SUBJ_TOOL) return [call.tool];
  if (condition.subject === SUBJ_ARG) return call.leaves.filter((leaf) => leaf.path === condition.arg).map((leaf) => leaf.value);
  return call.targets.get(condition.subject) ?? [];
}

// ANY: YES with a value that passes, else MAYBE with one that passes maybe; ALL: NO with a value
// that fails or none, else MAYBE with one that passes maybe (§5.4).
function quantified(all: boolean, values: string[], pass: (value: string) => Tri): Tri {
  const results = values.map(pass);
  if (all) return results.length === 0 || results.includes(NO) ? NO : results.includes(MAYBE) ? MAYBE : YES;
  return results.reduce(best, NO);
}

function conditionHolds(ir: PolicyIR, condition: ConditionIR, call: Call, intent: IntentFacts, all: boolean): Tri {
  const { test, negate, subject } = condition;
  const values = valuesOf(call, condition);
  if (test.kind === "present") return tri((values.length > 0) === test.present);
  if (test.kind === "truthy") return tri(values.some((v) => v !== "") === test.truthy); // the model's leaves are strings
  if (test.kind === "intent_any") return tri(namesKind(intent, subject) !== negate);
  if (test.kind === "granted") return tri(intent.granted.includes(ir.classes[call.cls].capability) !== negate);
  return quantified(all, values, (value) => {
    const r = valueHolds(test, subject, value, intent);
    return negate ? not(r) : r;
  });
}

function valueHolds(test: TestIR, subject: number, value: string, intent: IntentFacts): Tri {
  switch (test.kind) {
    case "equals":
      return tri(value === test.value);
    case "in":
      return tri(test.values.includes(value));
    case "glob":
      return tri(test.values.some((pattern) => globMatches(pattern, value)));
    case "prefix":
      return tri(test.values.some((prefix) => value.startsWith(prefix)));
    case "domain": {
      const host = hostOf(value);
      return tri(test.values.some((domain) => host === domain || host.endsWith(`.${domain}`)));
    }
    case "under":
      return tri(test.values.some((dir) => value === dir || value.startsWith(dir === "/" ? "/" : `${dir}/`)));
    case "at_most":
      return atMost(value, test.value);
    case "in_intent":
      if (subject === SUBJ_OBJECT) return objectInIntent(value, intent);
      if (subject === SUBJ_AMOUNT) return intent.amounts.map((named) => within(value, named)).reduce(best, NO);
      return tri(inIntent(subject, value, intent));
    default:
      throw new OutsideModel(`test ${test.kind} has no per-value reading`);
  }
}

// ---- sums and objects (§6.9, §7.3) ----

function splitSum(sum: string): [number, string | undefined] {
  const [number, code] = sum.split(" ");
  return [Number(number), code];
}

// AT_MOST: the number at most the constant's; the constant's currency, when it gives one, must be
// the sum's: another currency, or none given, holds maybe.
function atMost(value: string, cap: string): Tri {
  const [v, vc] = splitSum(value);
  const [c, cc] = splitSum(cap);
  if (cc === undefined || vc === cc) return tri(v <= c);
  return MAYBE;
}

// At most a sum the user named, in its currency: maybe when only one of the two gives one.
function within(value: string, named: string): Tri {
  const [v, vc] = splitSum(value);
  const [m, mc] = splitSum(named);
  if (v > m) return NO;
  if (vc === mc) return YES;
  return vc === undefined || mc === undefined ? MAYBE : NO;
}

function objectInIntent(value: string, intent: IntentFacts): Tri {
  const named = (v: string) => intent.objects.includes(v) ||
    [intent.emails, intent.urls, intent.domains, intent.paths, intent.recipients].some((items) => items.includes(v));
  const whole = (v: string): Tri => tri(named(v) || (v.startsWith("the ") && named(v.slice(4))));
  const w = whole(value);
  if (w === YES) return w;
  const parts = value.split(/[,;()]/).map((p) => p.trim()).filter((p) => p !== "");
  if (parts.length < 2) return w;
  const each = parts.map(whole);
  if (each.every((r) => r === YES)) return YES;
  return each[0] === YES ? MAYBE : NO;
}

// §8.1's DOMAIN reading of a value: a URL's host, an address's domain, else the value.
function hostOf(value: string): string {
  const url = URL_SHAPE.exec(value);
  if (url) return url[1];
  const at = value.lastIndexOf("@");
  return at > 0 ? value.slice(at + 1) : value;
}

function parentsOf(host: string): string[] {
  const labels = host.split(".");
  return labels.map((_, i) => labels.slice(i).join("."));
}

function ancestorsOf(path: string): string[] {
  const found = [path];
  for (let i = path.lastIndexOf("/"); i > 0; i = path.lastIndexOf("/", i - 1)) found.push(path.slice(0, i));
  found.push("/");
  return found;
}

// §7: what IN_INTENT holds for, by subject.
function inIntent(subject: number, value: string, intent: IntentFacts): boolean {
  switch (subject) {
    case SUBJ_EMAIL:
      return intent.emails.includes(value);
    case SUBJ_DOMAIN:
      return parentsOf(value).some((host) => intent.domains.includes(host));
    case SUBJ_URL:
      return intent.urls.includes(value) || intent.domains.includes(hostOf(value));
    case SUBJ_PATH:
      return ancestorsOf(value).some((path) => intent.paths.includes(path));
    case SUBJ_RECIPIENT:
      return intent.recipients.includes(value) || intent.emails.includes(value) ||
        (!/^[#@]/.test(value) && (intent.names.includes(value) || intent.recipients.includes(`#${value}`) || intent.recipients.includes(`@${value}`)));
    case SUBJ_ARG:
      return [intent.emails, intent.urls, intent.domains, intent.paths, intent.recipients].some((items) => items.includes(value));
    default:
      throw new OutsideModel(`in_intent on subject ${subject}`);
  }
}

function namesKind(intent: IntentFacts, subject: number): boolean {
  const kinds: Record<number, string[]> = {
    [SUBJ_EMAIL]: intent.emails, [SUBJ_URL]: intent.urls, [SUBJ_DOMAIN]: intent.domains,
    [SUBJ_PATH]: intent.paths, [SUBJ_RECIPIENT]: intent.recipients, [SUBJ_AMOUNT]: intent.amounts,
    [SUBJ_OBJECT]: [intent.objects, intent.emails, intent.urls, intent.domains, intent.paths, intent.recipients].flat(),
  };
  const items = kinds[subject];
  if (items === undefined) throw new OutsideModel(`intent_any on subject ${subject}`);
  return items.length > 0;
}
