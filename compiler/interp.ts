// A direct interpreter of the PolicyIR: the test oracle of the differential test
// (compiler/test/differential.test.ts), which decides the same calls with fence.wasm on the
// compiled bytecode. It reads the language as docs/policy.md and docs/bytecode.md §5-§7 state
// it, on its own terms (no code of the evaluator), for calls within its model: arguments whose
// values are already in normal form, and an intent given as the items it names. Nothing at
// run time uses it.
import {
  CLASSIFY_READ, ROLE_COMMAND, ROLE_DOMAIN, ROLE_EMAIL, ROLE_PATH, ROLE_RECIPIENT, ROLE_URL, SUBJ_ARG, SUBJ_DOMAIN, SUBJ_EMAIL,
  SUBJ_PATH, SUBJ_PROGRAM, SUBJ_RECIPIENT, SUBJ_TOOL, SUBJ_URL,
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
  /** Capabilities a verb of the messages granted. */
  granted: string[];
}

export const NO_INTENT: IntentFacts = { emails: [], urls: [], domains: [], paths: [], recipients: [], names: [], granted: [] };

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
  leaves: Array<{ path: string; value: string }>;
  targets: Map<number, string[]>;
}

export function interpret(ir: PolicyIR, tool: string, args: Record<string, unknown>, intent: IntentFacts): InterpDecision {
  const call = classify(ir, tool, args);
  const cls = ir.classes[call.cls];
  const order: Effect[] = ["block", "ask", "allow"]; // warn rules decide nothing
  for (const effect of order) {
    for (const rule of ir.rules) {
      if (rule.effect !== effect || !rule.classes.includes(call.cls)) continue;
      if (ruleHolds(ir, rule, call, intent)) {
        return { kind: effect, reason: rule.reason, rule: rule.id, capability: cls.capability, risk: cls.risk };
      }
    }
  }
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
    const entry = nameEntry(ir, ownName(tool));
    if (entry >= 0) cls = ir.classify.entryClasses[entry];
  }
  const leaves = leavesOf(args, "");
  const call: Call = { cls, roles, tool, leaves, targets: new Map() };
  for (const leaf of leaves) addTargets(call, roleOf(ir, call, leaf.path), leaf.value);
  return call;
}

// ---- classification by the tool's own name (docs/bytecode.md §3 CLASSIFY) ----

/** The name after `mcp__<server>__` (`mcp_<server>_`), else the whole name. */
function ownName(tool: string): string {
  const m = /^mcp__.+?__(.+)$/s.exec(tool) ?? /^mcp_[^_]+_(.+)$/s.exec(tool);
  return m ? m[1] : tool;
}

/** Words: runs of letters, digits and non-ASCII characters, split at camelCase (an upper-case
 * run's plural, "URLs", stays one word), ASCII lower-cased. */
function nameWords(name: string): string[] {
  const runs = name.match(/[A-Za-z0-9\u0080-\uffff]+/g) ?? [];
  return runs.flatMap((run) => run.match(/[A-Z]+s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9\u0080-\uffff]+|[A-Z]+|[0-9]+/g) ?? [run])
    .map((w) => w.replace(/[A-Z]/g, (c) => c.toLowerCase()));
}

const ENDINGS: Array<[string, string]> = [
  ["ies", "y"], ["ied", "y"], ["es", ""], ["s", ""], ["ing", ""], ["ing", "e"], ["ed", ""], ["ed", "e"], ["d", ""], ["er", ""], ["r", ""],
];

/** The word_map value of a word, else of its first folded form (then folded). */
function wordValue(ir: PolicyIR, w: string): { value: number; folded: boolean } | undefined {
  const map = new Map(ir.classify.words);
  const direct = map.get(w);
  if (direct !== undefined) return { value: direct, folded: false };
  if (utf8Length(w) < 4) return undefined;
  for (const [suffix, added] of ENDINGS) {
    if (utf8Length(w) < suffix.length + 2 || !w.endsWith(suffix)) continue;
    const base = w.slice(0, w.length - suffix.length);
    let found = map.get(base + added);
    if (found === undefined && added === "" && suffix.length >= 2 && base.length >= 3 && base.at(-1) === base.at(-2)) {
      found = map.get(base.slice(0, -1));
    }
    if (found !== undefined) return { value: found, folded: true };
  }
  return undefined;
}

function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** The riskiest verb's entry; a read verb holds against object words and folded words. */
function nameEntry(ir: PolicyIR, own: string): number {
  let verb = -1, object = -1, readVerb = -1, readObject = -1;
  const lower = (a: number, b: number) => (a < 0 || b < a ? b : a);
  for (const w of nameWords(own)) {
    const hit = wordValue(ir, w);
    if (hit === undefined) continue;
    const entry = hit.value >> 1;
    const weak = (hit.value & 1) !== 0 || hit.folded;
    const read = (ir.classify.entryFlags[entry] & CLASSIFY_READ) !== 0;
    if (read) {
      if (weak) readObject = lower(readObject, entry);
      else readVerb = lower(readVerb, entry);
    } else if (weak) object = lower(object, entry);
    else verb = lower(verb, entry);
  }
  if (verb >= 0) return object >= 0 ? Math.min(verb, object) : verb;
  if (readVerb >= 0) return readVerb;
  return object >= 0 ? object : readObject;
}

function leavesOf(value: unknown, path: string): Array<{ path: string; value: string }> {
  if (typeof value === "string") return [{ path, value }];
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

function addTargets(call: Call, role: number, value: string): void {
  const add = (subject: number, text: string) => {
    const list = call.targets.get(subject) ?? [];
    if (!list.includes(text)) list.push(text);
    call.targets.set(subject, list);
  };
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
    default:
      throw new OutsideModel(`role ${role} is outside the model`);
  }
}

// ---- rules and tests (§5) ----

function ruleHolds(ir: PolicyIR, rule: RuleIR, call: Call, intent: IntentFacts): boolean {
  const all = rule.effect === "allow"; // the safe reading: ALL in allow rules, ANY in block and ask
  if (rule.tools !== null && !quantified(all, [call.tool], (name) => rule.tools!.some((s) => globMatches(s, name)))) return false;
  return rule.conditions.every((condition) => conditionHolds(ir, condition, call, intent, all));
}

function valuesOf(call: Call, condition: ConditionIR): string[] {
  if (condition.subject === SUBJ_TOOL) return [call.tool];
  if (condition.subject === SUBJ_ARG) return call.leaves.filter((leaf) => leaf.path === condition.arg).map((leaf) => leaf.value);
  return call.targets.get(condition.subject) ?? [];
}

function quantified(all: boolean, values: string[], pass: (value: string) => boolean): boolean {
  return all ? values.length > 0 && values.every(pass) : values.some(pass);
}

function conditionHolds(ir: PolicyIR, condition: ConditionIR, call: Call, intent: IntentFacts, all: boolean): boolean {
  const { test, negate, subject } = condition;
  const values = valuesOf(call, condition);
  if (test.kind === "present") return (values.length > 0) === test.present;
  if (test.kind === "truthy") return values.some((v) => v !== "") === test.truthy; // the model's leaves are strings
  if (test.kind === "intent_any") return namesKind(intent, subject) !== negate;
  if (test.kind === "granted") return intent.granted.includes(ir.classes[call.cls].capability) !== negate;
  return quantified(all, values, (value) => valueHolds(test, subject, value, intent) !== negate);
}

function valueHolds(test: TestIR, subject: number, value: string, intent: IntentFacts): boolean {
  switch (test.kind) {
    case "equals":
      return value === test.value;
    case "in":
      return test.values.includes(value);
    case "glob":
      return test.values.some((pattern) => globMatches(pattern, value));
    case "prefix":
      return test.values.some((prefix) => value.startsWith(prefix));
    case "domain": {
      const host = hostOf(value);
      return test.values.some((domain) => host === domain || host.endsWith(`.${domain}`));
    }
    case "under":
      return test.values.some((dir) => value === dir || value.startsWith(dir === "/" ? "/" : `${dir}/`));
    case "in_intent":
      return inIntent(subject, value, intent);
    default:
      throw new OutsideModel(`test ${test.kind} has no per-value reading`);
  }
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
    [SUBJ_PATH]: intent.paths, [SUBJ_RECIPIENT]: intent.recipients,
  };
  const items = kinds[subject];
  if (items === undefined) throw new OutsideModel(`intent_any on subject ${subject}`);
  return items.length > 0;
}
