// Differential testing: random policies and calls, compiled and decided by fence.wasm, against
// the compiler's IR interpreted directly (tests/interp.ts). Zero disagreements. FUZZ_RUNS
// sets the policies tried (`make fuzz` runs many); each decides several calls in several intents.
import fc from "fast-check";
import { stringify } from "yaml";
import { beforeAll, describe, expect, test } from "vitest";
import { loadFence, type Fence } from "../host-js/host";
import { fenceWasm } from "./evaluator/wasm";
import { compilePolicy } from "../compiler/index";
import { type IntentFacts, interpret, WORKING_DIRECTORY } from "./interp";

const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 300);
// Long runs (`make fuzz`) take minutes: the test's timeout grows with them.
const TIMEOUT = 60_000 + 20 * FUZZ_RUNS;
const HOME = "/h";
const CWD = WORKING_DIRECTORY;

let fence: Fence;
beforeAll(() => {
  fence = loadFence(fenceWasm());
});

// ---- the pools every policy and call draws from (all in normal form, §6) ----
const CAPABILITIES = ["mail.send", "file.read", "file.write", "net.fetch", "shell.exec", "chat.post"];
const CAPABILITY_GLOBS = [...CAPABILITIES, "mail.*", "file.*", "*", "*.post"];
const RISKS = ["read", "write", "send", "exec", "egress"];
const EFFECTS = ["allow", "block", "ask"] as const;
const TOOL_NAMES = ["t_mail", "t_read", "t_write", "t_fetch", "t_run", "t_post"];
const TOOL_GLOBS = ["g_*", "t_*", "*_mail"];
const CALL_TOOLS = [...TOOL_NAMES, "g_mail", "g_x", "mcp__s__do_it", "mcp_s_do_it", "mcp__s__other", "zz_zap", "zip_it", "qq_other", "x_mail",
  // Compound names (§3): the word after a joining word is a verb; an unknown one leaves the name nothing certain.
  "zip_and_zap", "mcp__s__other_or_zaps", "zapThenQq", "qq_zip_and_also_other", "other-and-qqs"];
const CLASSIFY_WORDS = ["zap", "zip", "other"];
const ROLE_ARGS: Record<string, string> = { to: "email", url: "url", host: "domain", path: "path", cmd: "command", chan: "recipient", "msg.to": "email" };

const VALUES: Record<string, string[]> = {
  email: ["a@x.com", "b@y.org", "c@sub.x.com", "eve@evil.net"],
  domain: ["x.com", "sub.x.com", "y.org", "evil.net"],
  url: ["https://x.com/a", "https://x.com/a/b", "https://sub.x.com/b", "https://evil.net/c", "https://y.org"],
  path: ["/w/a", "/w/a/b.txt", "/w/c.txt", "/etc/x", "/w/b.txt"],
  recipient: ["#gen", "@bob", "#ops"],
  program: ["ls", "rm", "cat"],
  tool: [...TOOL_NAMES, "g_mail", "mcp__s__do_it"],
  object: ["hotel lumen", "harbor inn", "hotel lumen, paris", "the hotel lumen", "lumen scam inn", "12"],
  amount: ["200 EUR", "50 EUR", "200 USD", "200", "12.5 EUR", "150"],
};
const GLOBS: Record<string, string[]> = {
  email: ["*@x.com", "a@*", "*@*.x.com", "?@y.org"],
  domain: ["*.x.com", "*", "x.*"],
  url: ["https://x.com/*", "https://*.x.com/**", "https://**"],
  path: ["/w/**/b.txt", "/w/*.txt", "**/x", "/w/a/**", "/w/**", "/**/a"],
  recipient: ["#*", "@b*"],
  program: ["c*", "?s", "*"],
  tool: ["t_*", "g_*", "mcp_*", "*_it"],
  object: ["hotel*", "*inn", "*, paris"],
};
const PREFIXES: Record<string, string[]> = {
  email: ["a@", "b", "eve"], domain: ["sub.", "e", "x"], url: ["https://x.com", "https://e", "https://sub"],
  path: ["/w/", "/etc", "/w/a"], recipient: ["#", "@"], program: ["r", "ca"], tool: ["t_", "mcp", "g"],
  object: ["hotel", "the ", "1"],
};
const DOMAINS = ["x.com", "y.org", "evil.net", "sub.x.com", "com"];
const UNDER = ["/w", "/w/a", "/etc", "/", ".", "./a"];
// §5.1: the predicates each subject takes.
const PREDICATES: Record<string, string[]> = {
  tool: ["present", "equals", "in", "glob", "prefix", "granted"],
  email: ["present", "equals", "in", "glob", "prefix", "domain", "in_intent", "intent_any"],
  domain: ["present", "equals", "in", "glob", "prefix", "domain", "in_intent", "intent_any"],
  url: ["present", "equals", "in", "glob", "prefix", "domain", "in_intent", "intent_any"],
  path: ["present", "equals", "in", "glob", "prefix", "under", "in_intent", "intent_any"],
  recipient: ["present", "equals", "in", "glob", "prefix", "in_intent", "intent_any"],
  program: ["present", "equals", "in", "glob", "prefix"],
  object: ["present", "equals", "in", "glob", "prefix", "in_intent", "intent_any"],
  amount: ["present", "equals", "in", "at_most", "in_intent", "intent_any"],
  "args.path": ["present", "equals", "in", "glob", "prefix", "in_intent"],
  "args.to": ["present", "equals", "in", "glob", "prefix", "in_intent"],
};
const valueKind = (subject: string) => (subject === "args.path" ? "path" : subject === "args.to" ? "email" : subject);

const pick = <T>(items: readonly T[]) => fc.constantFrom(...items);
const some = <T>(items: readonly T[], max = 3) => fc.uniqueArray(pick(items), { minLength: 1, maxLength: max });

function predicate(subject: string, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const kind = valueKind(subject);
  const one = pick(PREDICATES[subject]).chain((name): fc.Arbitrary<Record<string, unknown>> => {
    switch (name) {
      case "present": case "granted":
        return fc.boolean().map((b) => ({ [name]: b }));
      case "in_intent": case "intent_any":
        return fc.constantFrom<boolean | string>(true, false, "named", "source", "exact").map((b) => ({ [name]: b }));
      case "equals": return pick(VALUES[kind]).map((v) => ({ equals: v }));
      case "in": return some(VALUES[kind]).map((v) => ({ in: v }));
      case "glob": return some(GLOBS[kind]).map((v) => ({ glob: v }));
      case "prefix": return some(PREFIXES[kind]).map((v) => ({ prefix: v }));
      case "domain": return some(DOMAINS).map((v) => ({ domain: v }));
      case "at_most": return pick(["100", "200 EUR", "50 USD", "12.5", "200"]).map((v) => ({ at_most: v }));
      default: return some(UNDER).map((v) => ({ under: v }));
    }
  });
  if (depth > 0) return one;
  return fc.oneof(
    { weight: 3, arbitrary: one },
    { weight: 1, arbitrary: predicate(subject, 1).map((p) => ({ not: p })) },
    { weight: 1, arbitrary: fc.tuple(one, predicate(subject, 1)).map(([a, b]) => ({ ...b, ...a })) },
  );
}

const rule = (i: number) =>
  fc.record({
    effect: pick(EFFECTS),
    capability: fc.option(some(CAPABILITY_GLOBS, 2), { nil: undefined }),
    risk: fc.option(some(RISKS, 2), { nil: undefined }),
    tool: fc.option(some([...TOOL_NAMES, ...TOOL_GLOBS, "mcp__s__*"], 2), { nil: undefined }),
    when: fc.option(
      fc.uniqueArray(pick(Object.keys(PREDICATES)), { minLength: 1, maxLength: 2 })
        .chain((subjects) => fc.tuple(...subjects.map((s) => predicate(s).map((p) => [s, p] as const))))
        .map((pairs) => Object.fromEntries(pairs)),
      { nil: undefined },
    ),
    reason: fc.option(fc.constantFrom("r_one", "r_two"), { nil: undefined }),
  }).map((r) => ({ id: `rule-${i}`, ...Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) }));

const toolEntry = fc.record({
  name: fc.oneof(pick([...TOOL_NAMES, ...TOOL_GLOBS]), some([...TOOL_NAMES, ...TOOL_GLOBS], 2)),
  capability: pick(CAPABILITIES),
  risk: pick(RISKS),
  args: fc.option(fc.uniqueArray(pick(Object.keys(ROLE_ARGS)), { maxLength: 4 }).map((keys) =>
    Object.fromEntries(keys.map((k) => [k, ROLE_ARGS[k]]))), { nil: undefined }),
  choices: fc.option(some(["unread", "heading", "code"], 2), { nil: undefined }),
  content: fc.option(fc.constant(["object"]), { nil: undefined }),
}).map((t) => Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined)));

const policy = fc.record({
  version: fc.constant(1),
  name: fc.constant("differential"),
  defaults: fc.dictionary(pick([...RISKS, "unknown", "*"]), pick(EFFECTS), { maxKeys: 4 }),
  tools: fc.array(toolEntry, { maxLength: 5 }).chain((tools) =>
    fc.option(fc.record({ capability: pick(CAPABILITIES), risk: pick(RISKS) }), { nil: undefined })
      .map((mcp) => (mcp ? [...tools, { mcp: { server: "s", tool: "do_*" }, ...mcp, args: { to: "email", path: "path" } }] : tools))),
  classify: fc.record({
    verbs: fc.array(fc.record({
      words: some(CLASSIFY_WORDS, 2), capability: pick(CAPABILITIES), risk: pick(RISKS),
      objects: fc.option(some(CLASSIFY_WORDS, 1), { nil: undefined }),
      read: fc.option(fc.constant(true), { nil: undefined }),
      choices: fc.option(some(["unread", "heading", "code"], 2), { nil: undefined }),
      content: fc.option(fc.constant(["object"]), { nil: undefined }),
    }).map((v) => Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined))), { maxLength: 2 }),
    arg_roles: fc.constant({ to: "email", link: "url", path: "path", hotel: "object", num: "object", amount: "amount", currency: "amount", bill: "amount_minor" }),
  }),
  intent: fc.record({
    verbs: fc.array(fc.record({
      words: some(["send", "write", "fetch"], 2), capabilities: some(CAPABILITY_GLOBS, 2),
      object: fc.constantFrom("destination", "source", "written", "included", "none"),
    }).map(({ object, ...verb }) => (object === "none" ? verb : { ...verb, object })), { maxLength: 2 }),
    grammar: fc.constant({ destination: ["to"], source: ["from"], condition: ["if"], question: ["what"], exclude: ["except"] }),
  }),
  rules: fc.integer({ min: 0, max: 7 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => rule(i)))),
});

const argValue = (kind: string) => fc.oneof({ weight: 3, arbitrary: pick(VALUES[kind]) }, { weight: 1, arbitrary: some(VALUES[kind]) });
const callArgs = fc.record({
  to: argValue("email"), url: argValue("url"), host: argValue("domain"), path: argValue("path"),
  cmd: pick(VALUES.program), chan: argValue("recipient"), msg: argValue("email").map((to) => ({ to })),
  link: pick(VALUES.url), To: pick(VALUES.email), other: pick(["plain", "words"]),
  hotel: pick(VALUES.object.filter((v) => v !== "12")), num: pick([12, 7]),
  amount: pick([200, 50, "12.5", 150]), currency: pick(["EUR", "usd"]),
  bill: fc.record({ fee: pick([1250, 20000]), currency: pick(["EUR", "USD"]) }),
}, { requiredKeys: [] });
const call = fc.tuple(pick(CALL_TOOLS), callArgs);

// The user's messages: named items, verb words and the grammar's words (a destination, a source,
// a condition, a question, an exclusion that rules a value out), no negation (so nothing is prohibited).
const message = fc.uniqueArray(
  pick([...VALUES.email, ...VALUES.url, "x.com", "sub.x.com", "evil.net", "/w", "/w/a", "/w/c.txt", "#gen", "@bob", "send", "write", "fetch", "please", "and",
    "to", "from", "if", "what", ",", "?", "except", "except", "except", "the Hotel Lumen", "Harbor Inn", "Paris", "€200", "50 USD", "issue 12", "$150", "12.5 EUR"]),
  { maxLength: 7 },
).map((words) => words.join(" "));

function facts(summary: string): IntentFacts {
  const found: IntentFacts = { items: [], granted: [], grantedMaybe: [] };
  for (const line of summary.split("\n")) {
    const [kind, value, , , , grants] = line.split("\t");
    if (kind === "grant") found.granted.push(value);
    else if (kind === "grant-maybe") found.grantedMaybe.push(value);
    else if (kind === "prohibit") throw new Error(`the generator made a prohibition: ${summary}`);
    else if (["email", "url", "domain", "path", "recipient", "name", "object", "amount"].includes(kind)) {
      found.items.push({ kind: kind as IntentFacts["items"][number]["kind"], value, grants: grants.split(",") });
    }
  }
  return found;
}

describe("differential: fence.wasm against the IR interpreter", () => {
  test("random policies and calls decide alike", () => {
    let decided = 0;
    const byKind = { allow: 0, block: 0, ask: 0 };
    fc.assert(
      fc.property(policy, fc.array(message, { minLength: 1, maxLength: 2 }), fc.array(call, { minLength: 1, maxLength: 6 }), (p, messages, calls) => {
        const yaml = stringify(p);
        const compiled = compilePolicy([{ path: "differential.yaml", text: yaml }]);
        if (!compiled.ok) throw new Error(`the generator made a policy that does not compile:\n${yaml}\n${JSON.stringify(compiled.errors)}`);
        expect(fence.load(compiled.bytes).ok).toBe(true);
        expect(fence.configure(HOME, CWD).ok).toBe(true);
        const session = fence.openSession();
        let summary = "";
        for (const text of messages) {
          const bound = fence.intent(session, text);
          expect(bound.ok).toBe(true);
          summary = bound.text;
        }
        const intent = facts(summary);
        for (const [tool, args] of calls) {
          const got = fence.decide(session, tool, args);
          const want = interpret(compiled.ir, tool, args, intent);
          const { kind, reason, rule: id, capability, risk } = got;
          expect({ kind, reason, rule: id, capability, risk }, `${yaml}\nintent: ${JSON.stringify(messages)}\ncall: ${tool} ${JSON.stringify(args)}`).toEqual(want);
          decided++;
          byKind[kind]++;
        }
        fence.closeSession(session);
      }),
      { numRuns: FUZZ_RUNS },
    );
    console.log(`differential: ${FUZZ_RUNS} policies, ${decided} calls decided alike (${JSON.stringify(byKind)})`);
    if (FUZZ_RUNS >= 100) for (const kind of EFFECTS) expect(byKind[kind], kind).toBeGreaterThan(0);
  }, TIMEOUT);
});
