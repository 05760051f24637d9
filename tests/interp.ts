// A direct interpreter of the PolicyIR: the test oracle of the differential test
// (compiler/test/differential.test.ts), which decides the same calls with fence.wasm on the
// compiled bytecode. It reads the language as docs/policy.md and docs/bytecode.md §5-§7 state
// it, on its own terms (no code of the evaluator), for calls within its model: arguments whose
// values are already in normal form, and an intent given as the items it names. Nothing at
// run time uses it.
import {
  CLASSIFY_READ, CLASSIFY_CHOICES, CLASSIFY_CHOICE_HEADINGS, CLASSIFY_OBJECTS_CONTENT, CLASSIFY_CHOICE_CODES, ROLE_CODE, ROLE_HEADING, ROLE_TEXT, ROLE_AMOUNT, ROLE_AMOUNT_MINOR, ROLE_COMMAND, ROLE_DOMAIN, ROLE_EMAIL, ROLE_OBJECT, ROLE_PATH, ROLE_RECIPIENT,
  ROLE_URL, SUBJ_AMOUNT, SUBJ_ARG, SUBJ_DOMAIN, SUBJ_EMAIL, SUBJ_OBJECT, SUBJ_PATH, SUBJ_PROGRAM, SUBJ_RECIPIENT, SUBJ_TOOL, SUBJ_URL,
  INTENT_NAMED, INTENT_SOURCE, INTENT_EXACT,
} from "../bytecode/format";
import { globMatches } from "../compiler/glob";
import type { ConditionIR, PolicyIR, RuleIR, TestIR } from "../compiler/ir";
import type { Effect } from "../compiler/schema";

/** One value the user's messages named, with what it grants (the summary's grants column, §8). */
export interface IntentItem {
  kind: "email" | "url" | "domain" | "path" | "recipient" | "name" | "object" | "amount";
  value: string;
  /** destination, destination-maybe, source, source-maybe, named, named-maybe, revoked, whole-host, ruled-out */
  grants: string[];
}

/** What the user's messages named and granted (the evaluator's intent summary, §8). */
export interface IntentFacts {
  items: IntentItem[];
  /** Capabilities a verb of the messages granted, and those it granted under a condition. */
  granted: string[];
  grantedMaybe: string[];
}

export const NO_INTENT: IntentFacts = { items: [], granted: [], grantedMaybe: [] };

// Three-valued results (§5.4): a test holds, fails, or holds maybe.
type Tri = "no" | "yes" | "maybe";
const best = (a: Tri, b: Tri): Tri => (a === "yes" || b === "yes" ? "yes" : a === "maybe" || b === "maybe" ? "maybe" : "no");
const worst = (a: Tri, b: Tri): Tri => (a === "no" || b === "no" ? "no" : a === "maybe" || b === "maybe" ? "maybe" : "yes");
const not = (a: Tri): Tri => (a === "yes" ? "no" : a === "no" ? "yes" : "maybe");
const tri = (b: boolean): Tri => (b ? "yes" : "no");

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

/** The working directory the differential test configures: an `under` constant `.`/`./x` is it and below (§6.5). */
export const WORKING_DIRECTORY = "/w";

function underConstant(dir: string): string {
  if (dir === ".") return WORKING_DIRECTORY;
  return dir.startsWith("./") ? WORKING_DIRECTORY + dir.slice(1) : dir;
}

export function interpret(ir: PolicyIR, tool: string, args: Record<string, unknown>, intent: IntentFacts): InterpDecision {
  const call = classify(ir, tool, args);
  const cls = ir.classes[call.cls];
  const decided = (kind: Effect, rule: RuleIR | null): InterpDecision => ({
    kind, reason: rule === null ? `default_${kind}` : rule.reason, rule: rule?.id ?? "", capability: cls.capability, risk: cls.risk,
  });
  // §5.4: a block that holds decides; one that holds maybe is kept and becomes the ask of the
  // first later rule that would decide (or of the default); an ask that holds maybe asks; an
  // allow that holds maybe does not allow.
  let maybeBlock: RuleIR | null = null;
  const asked = (rule: RuleIR): InterpDecision => decided("ask", maybeBlock ?? rule);
  const order: Effect[] = ["block", "ask", "allow"]; // warn rules decide nothing
  for (const effect of order) {
    for (const rule of ir.rules) {
      if (rule.effect !== effect || !rule.classes.includes(call.cls)) continue;
      const r = ruleHolds(ir, rule, call, intent);
      if (r === "no") continue;
      if (effect === "block") {
        if (r === "yes") return decided("block", rule);
        maybeBlock ??= rule;
      } else if (effect === "ask") {
        return asked(rule);
      } else if (r === "yes") {
        return maybeBlock !== null ? asked(maybeBlock) : decided("allow", rule);
      }
    }
  }
  if (maybeBlock !== null) return asked(maybeBlock);
  return decided(cls.defaultEffect, null);
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
  const sums: Array<{ path: string; value: string; number?: true; role: number }> = [];
  // A tool of its entry's flags, or one nobody mapped of a class that makes choices (§3.3, §5.2): an argument no role reads,
  // nor a word of its name, is an object; a heading is one only where the class chooses headings;
  // an object is content (read by its shape) where the class says so.
  const choices = glob ? ir.tools[glob[1]].flags : cls <= 0 ? 0 : ir.classify.entryClasses.reduce(
    (flags, c, e) => (c === cls ? flags | ir.classify.entryFlags[e] : flags), 0) & (CLASSIFY_CHOICES | CLASSIFY_CHOICE_HEADINGS | CLASSIFY_OBJECTS_CONTENT | CLASSIFY_CHOICE_CODES);
  for (const leaf of leaves) {
    let role = roleOf(ir, call, leaf.path);
    if (role === 0 && (choices & CLASSIFY_CHOICES) !== 0) {
      const keys = leaf.path.split(".");
      role = wordRole(ir, keys[0]) || (keys.length > 1 ? wordRole(ir, keys[keys.length - 1]) : 0) || CHOICE;
    }
    if (role === ROLE_HEADING) role = (choices & CLASSIFY_CHOICE_HEADINGS) !== 0 ? ROLE_OBJECT : ROLE_TEXT;
    if (role === ROLE_CODE && (choices & CLASSIFY_CHOICE_CODES) !== 0) role = ROLE_OBJECT;
    if (role === ROLE_OBJECT && (choices & CLASSIFY_OBJECTS_CONTENT) !== 0) role = 0; // content, read by its shape
    if (role === ROLE_AMOUNT || role === ROLE_AMOUNT_MINOR) sums.push({ ...leaf, role });
    else if (leaf.number && (role === ROLE_OBJECT || role === CHOICE)) addTarget(call, SUBJ_OBJECT, canonical(leaf.value));
    else if (leaf.number) continue; // a number of no other role is nothing
    else if (role === CHOICE) {
      // An object in its normal form (§6.8, without IBANs: the model has none), and its shape's targets.
      const normal = leaf.value.trim().replace(/\s+/g, " ").toLowerCase();
      if (normal !== "") addTarget(call, SUBJ_OBJECT, normal);
      addTargets(call, 0, leaf.value);
    } else addTargets(call, role, leaf.value);
  }
  addSums(call, sums);
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

/** Words that join one action to another, and adverbs that may stand after one (§3). */
const JOINERS = new Set(["and", "or", "then"]);
const ADVERBS = new Set("also optionally finally immediately automatically afterwards later subsequently additionally just simply directly".split(" "));

/** An unknown word that is no bare verb: a plural (not -ss, -us, -is, -as) or one with a digit. */
function noVerb(w: string): boolean {
  return /[0-9]/.test(w) || (utf8Length(w) >= 3 && /[^suia]s$/.test(w));
}

/** The riskiest verb's entry; a read verb holds against object words and folded words. In a
 * compound name the word after a joining word, and the first known word, are verbs when
 * written bare; an unknown word after a joining word leaves the name nothing certain (-1). */
function nameEntry(ir: PolicyIR, own: string): number {
  let verb = -1, object = -1, readVerb = -1, readObject = -1;
  const lower = (a: number, b: number) => (a < 0 || b < a ? b : a);
  let joined = false, head = false, first = -1;
  for (const w of nameWords(own)) {
    if (JOINERS.has(w)) {
      joined = head = true;
      continue;
    }
    const hit = wordValue(ir, w);
    if (hit === undefined && head && ADVERBS.has(w)) continue;
    const heads = head;
    head = false;
    if (hit === undefined) {
      if (heads && !noVerb(w)) return -1;
      continue;
    }
    const entry = hit.value >> 1;
    const weak = !(heads && !hit.folded) && ((hit.value & 1) !== 0 || hit.folded);
    if (first === -1) first = weak && !hit.folded ? entry : -2;
    const read = (ir.classify.entryFlags[entry] & CLASSIFY_READ) !== 0;
    if (read) {
      if (weak) readObject = lower(readObject, entry);
      else readVerb = lower(readVerb, entry);
    } else if (weak) object = lower(object, entry);
    else verb = lower(verb, entry);
  }
  if (joined && first >= 0) {
    if ((ir.classify.entryFlags[first] & CLASSIFY_READ) !== 0) readVerb = lower(readVerb, first);
    else verb = lower(verb, first);
  }
  if (verb >= 0) return object >= 0 ? Math.min(verb, object) : verb;
  if (readVerb >= 0) return readVerb;
  return object >= 0 ? object : readObject;
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

const CHOICE = -1;
const NAME_STOPS = new Set("of for to in on at by with from that which who whose when if is are as or and used this the a an".split(" "));

/** role_map's role for a word of the name, the last word first, linking words skipped: the last
 * word may give any role, an earlier one only an object's or a sum's (at most 16 words). */
function wordRole(ir: PolicyIR, name: string): number {
  const map = new Map(ir.classify.argRoles);
  const words = nameWords(name).slice(0, 16);
  let last = true;
  for (let k = words.length - 1; k >= 0; k--) {
    if (NAME_STOPS.has(words[k])) continue;
    const role = map.get(words[k]);
    if (role !== undefined && (last || role === ROLE_OBJECT || role === ROLE_AMOUNT || role === ROLE_AMOUNT_MINOR)) return role;
    last = false;
  }
  return 0;
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

// A decimal without leading zeros or trailing fraction zeros (§6.10).
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
      if (sum.role === ROLE_AMOUNT_MINOR && (code === undefined || (code !== "USD" && code !== "EUR"))) {
        throw new OutsideModel(`minor units of ${code ?? "no currency"}`);
      }
      let value = canonical(sum.value);
      if (sum.role === ROLE_AMOUNT_MINOR) {
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
    case ROLE_OBJECT: // §6.8, for the model's values: lower-case words and single spaces; no other shape
      if (!/^[a-z0-9][a-z0-9 ,()-]*$/.test(value) || /  |[ ,(]$/.test(value)) throw new OutsideModel(`an object outside the model: ${value}`);
      return add(SUBJ_OBJECT, value);
    default:
      throw new OutsideModel(`role ${role} is outside the model`);
  }
}

// ---- rules and tests (§5) ----

function ruleHolds(ir: PolicyIR, rule: RuleIR, call: Call, intent: IntentFacts): Tri {
  const all = rule.effect === "allow"; // the safe reading: ALL in allow rules, ANY in block and ask
  if (rule.tools !== null && quantified(all, [call.tool], (name) => tri(rule.tools!.some((s) => globMatches(s, name)))) === "no") return "no";
  return rule.conditions.reduce<Tri>((r, condition) => (r === "no" ? r : worst(r, conditionHolds(ir, condition, call, intent, all))), "yes");
}

function valuesOf(call: Call, condition: ConditionIR): string[] {
  if (condition.subject === SUBJ_TOOL) return [call.tool];
  if (condition.subject === SUBJ_ARG) return call.leaves.filter((leaf) => leaf.path === condition.arg).map((leaf) => leaf.value);
  return call.targets.get(condition.subject) ?? [];
}

// ALL: every value passes (none: fails), the worst result counts; ANY: the best one counts.
function quantified(all: boolean, values: string[], pass: (value: string) => Tri): Tri {
  if (all) return values.length === 0 ? "no" : values.map(pass).reduce(worst, "yes");
  return values.map(pass).reduce(best, "no");
}

function conditionHolds(ir: PolicyIR, condition: ConditionIR, call: Call, intent: IntentFacts, all: boolean): Tri {
  const { test, negate, subject } = condition;
  const values = valuesOf(call, condition);
  if (test.kind === "present") return tri((values.length > 0) === test.present);
  if (test.kind === "truthy") return tri(values.some((v) => v !== "") === test.truthy); // the model's leaves are strings
  if (test.kind === "intent_any") return tri(namesKind(intent, subject, test.reading) !== negate);
  if (test.kind === "granted") {
    const capability = ir.classes[call.cls].capability;
    const r: Tri = intent.granted.includes(capability) ? "yes" : intent.grantedMaybe.includes(capability) ? "maybe" : "no";
    return negate ? not(r) : r;
  }
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
      return tri(test.values.map(underConstant).some((dir) => value === dir || value.startsWith(dir === "/" ? "/" : `${dir}/`)));
    case "at_most":
      return atMost(value, test.value);
    case "in_intent":
      if (subject === SUBJ_OBJECT) return objectInIntent(value, intent, test.reading);
      if (subject === SUBJ_AMOUNT) {
        return intent.items.filter((item) => item.kind === "amount")
          .map((item) => { const r = reading(item, test.reading); const w = within(value, item.value); return r === "no" ? r : w === "yes" ? r : w; })
          .reduce(best, "no");
      }
      return inIntent(subject, value, intent, test.reading);
    default:
      throw new OutsideModel(`test ${test.kind} has no per-value reading`);
  }
}

// ---- sums and objects (§6.10, §7.4) ----

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
  return "maybe";
}

// At most a sum the user named, in its currency: maybe when only one of the two gives one.
function within(value: string, named: string): Tri {
  const [v, vc] = splitSum(value);
  const [m, mc] = splitSum(named);
  if (v > m) return "no";
  if (vc === mc) return "yes";
  return vc === undefined || mc === undefined ? "maybe" : "no";
}

// OBJECT: an item of any kind but a name equal to it (or to it without "the "); a value of parts by its parts.
function objectInIntent(value: string, intent: IntentFacts, flavor: number): Tri {
  const kinds = ["object", "email", "url", "domain", "path", "recipient"];
  const equal = (v: string) => look2(intent, flavor, (item) => kinds.includes(item.kind) && item.value === v);
  const whole = (v: string): Tri => best(equal(v), v.startsWith("the ") ? equal(v.slice(4)) : "no");
  const w = whole(value);
  if (w === "yes") return w;
  const parts = value.split(/[,;()]/).map((p) => p.trim()).filter((p) => p !== "");
  if (parts.length < 2) return w;
  const each = parts.map(whole);
  if (each.every((r) => r === "yes")) return "yes";
  return best(w, each[0] === "no" ? "no" : "maybe");
}

function look2(intent: IntentFacts, flavor: number, test: (item: IntentItem) => boolean): Tri {
  return intent.items.filter(test).map((item) => reading(item, flavor)).reduce(best, "no");
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

// §7: what a reading makes of an item's grants. The destination reading (0) grants a
// destination, the named reading (1) anything the user's words named, the source reading (2) a
// destination or a source; each maybe for the maybe forms.
function reading(item: IntentItem, flavor: number): Tri {
  const g = new Set(item.grants);
  const yes = flavor === INTENT_NAMED || flavor === INTENT_EXACT ? ["destination", "source", "named"] : flavor === INTENT_SOURCE ? ["destination", "source"] : ["destination"];
  if (yes.some((w) => g.has(w))) return "yes";
  return yes.some((w) => g.has(`${w}-maybe`)) ? "maybe" : "no";
}

// An item the user ruled out, granted by no clause: it takes back what lies below it (§7.3).
const GRANT_WORDS = ["destination", "destination-maybe", "source", "source-maybe", "named", "named-maybe"];
function vetoes(item: IntentItem): boolean {
  return item.grants.includes("ruled-out") && !item.grants.some((g) => GRANT_WORDS.includes(g));
}

// Of a value's enclosing items, shallowest first, the reading of those below the deepest one that
// rules it out.
function belowVeto(intent: IntentFacts, flavor: number, kind: IntentItem["kind"], shallowFirst: string[]): Tri {
  let r: Tri = "no";
  for (const v of shallowFirst) {
    const items = intent.items.filter((item) => item.kind === kind && item.value === v);
    if (items.some(vetoes)) r = "no";
    else r = items.map((item) => reading(item, flavor)).reduce(best, r);
  }
  return r;
}

function look(intent: IntentFacts, flavor: number, kind: IntentItem["kind"], test: (item: IntentItem) => boolean): Tri {
  return intent.items.filter((item) => item.kind === kind && test(item)).map((item) => reading(item, flavor)).reduce(best, "no");
}

// §7: what IN_INTENT holds for, by subject; of several items that could grant the value, the best.
function inIntent(subject: number, value: string, intent: IntentFacts, flavor: number): Tri {
  const is = (kind: IntentItem["kind"], v: string) => look(intent, flavor, kind, (item) => item.value === v);
  switch (subject) {
    case SUBJ_EMAIL:
      return is("email", value);
    case SUBJ_DOMAIN:
      if (flavor === INTENT_EXACT) return is("domain", value);
      return belowVeto(intent, flavor, "domain", parentsOf(value).reverse());
    case SUBJ_URL: {
      // The URL itself or one above it ("…/a" opens "…/a/b" and "…/a#x"), or its host named as itself;
      // a URL ruled out takes itself and what lies below it back from the shorter ones and the host.
      if (flavor === INTENT_EXACT) return is("url", value);
      const above = (item: IntentItem) => item.kind === "url" && (item.value === value ||
        (value.length > item.value.length && value.startsWith(item.value) &&
          (item.value.endsWith("/") || value[item.value.length] === "/" || value[item.value.length] === "#")));
      const vetoing = intent.items.filter((item) => above(item) && vetoes(item)).map((item) => item.value.length);
      if (vetoing.includes(value.length)) return "no";
      const longest = Math.max(-1, ...vetoing);
      const below = look(intent, flavor, "url", (item) => above(item) && item.value.length > longest);
      if (longest >= 0) return below;
      return best(below, look(intent, flavor, "domain", (item) => item.value === hostOf(value) && item.grants.includes("whole-host")));
    }
    case SUBJ_PATH:
      if (flavor === INTENT_EXACT) return is("path", value);
      return belowVeto(intent, flavor, "path", ancestorsOf(value).reverse());
    case SUBJ_RECIPIENT: {
      let r = best(is("recipient", value), is("email", value));
      if (!/^[#@]/.test(value)) r = [is("name", value), is("object", value), is("recipient", `#${value}`), is("recipient", `@${value}`)].reduce(best, r);
      return r;
    }
    case SUBJ_ARG:
      return (["email", "url", "domain", "path", "recipient"] as const).map((kind) => is(kind, value)).reduce(best, "no");
    default:
      throw new OutsideModel(`in_intent on subject ${subject}`);
  }
}

// INTENT_ANY: the user's words named at least one item of the subject's kind that the reading
// does not read as NO.
function namesKind(intent: IntentFacts, subject: number, flavor: number): boolean {
  if (subject === SUBJ_OBJECT) {
    return look2(intent, flavor, (item) => ["object", "email", "url", "domain", "path", "recipient"].includes(item.kind)) !== "no";
  }
  const kinds: Record<number, IntentItem["kind"]> = {
    [SUBJ_EMAIL]: "email", [SUBJ_URL]: "url", [SUBJ_DOMAIN]: "domain", [SUBJ_PATH]: "path", [SUBJ_RECIPIENT]: "recipient",
    [SUBJ_AMOUNT]: "amount",
  };
  const kind = kinds[subject];
  if (kind === undefined) throw new OutsideModel(`intent_any on subject ${subject}`);
  return look(intent, flavor, kind, () => true) !== "no";
}
