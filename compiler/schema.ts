// The policy language (docs/policy.md), defined once. check.ts validates with it and
// `z.toJSONSchema(PolicyFile)` exports it for editors, so it holds structure only: rules
// that need the whole file or the merged policy live in check.ts.
import * as z from "zod";

const EFFECTS = ["allow", "block", "ask", "confine", "warn"] as const;
const ROLES = [
  "email", "url", "domain", "path", "command", "code", "recipient", "patch", "workdir", "text", "written", "object", "data",
  "tree", "amount", "amount_minor", "members", "heading",
] as const;
/** Subjects of a `when` condition besides `args.NAME`. */
export const SUBJECTS = ["tool", "email", "domain", "url", "path", "program", "recipient", "write", "opaque", "object", "amount"] as const;
export const PLACEHOLDERS = ["tool", "capability", "risk", "value", "rule"] as const;

export type Effect = (typeof EFFECTS)[number];
/** What a class default can be: a warn decides nothing, so it is no default. */
export type DefaultEffect = Exclude<Effect, "warn">;
export type RoleName = (typeof ROLES)[number];

const CAPABILITY_RE = /^[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)*$/;
const CAPABILITY_GLOB_RE = /^[a-z0-9_*?-]+(\.[a-z0-9_*?-]+)*$/;
const RISK_RE = /^[a-z][a-z0-9_]*$/;
const RULE_ID_RE = /^[a-z0-9_.-]+$/;
const REASON_RE = /^[a-z0-9_]+$/;
const ARG_PATH_RE = /^[^.\s]+(\.[^.\s]+)*$/;
const ARG_NAME_RE = /^[^.\s]+$/;
const WORD_RE = /^\S+$/;
const EXTENSION_RE = /^\.?[A-Za-z0-9_-]+$/;
const SUBJECT_RE = new RegExp(`^(${SUBJECTS.join("|")}|args\\.[^.\\s]+(\\.[^.\\s]+)*)$`);

// Lengths the decision record can carry (docs/bytecode.md §8.1).
const MAX_U8_TEXT = 255;
const MAX_U16_TEXT = 65535;
const MAX_U32 = 0xffffffff;

const capability = z
  .string()
  .max(MAX_U16_TEXT)
  .regex(CAPABILITY_RE, { error: "a dotted lower-case name like email.send" });
export const capabilityGlob = z
  .string()
  .regex(CAPABILITY_GLOB_RE, { error: 'a dotted lower-case capability or glob like "email.*"' });
const risk = z
  .string()
  .max(MAX_U8_TEXT)
  .regex(RISK_RE, { error: "a lower-case word like read, write or send" });
const word = z.string().regex(WORD_RE, { error: "a single word (no spaces)" });
const words = z.array(word).min(1);
const nonEmpty = z.string().min(1);
const effect = z.enum(EFFECTS).describe("allow | block | ask | confine (allow, inside the task's sandbox) | warn (held: recorded, decides nothing)");
const defaultEffect = z.enum(["allow", "block", "ask", "confine"]).describe("allow | block | ask | confine");
const role = z.enum(ROLES);
const argPath = z.string().regex(ARG_PATH_RE, { error: "a dotted argument path like message.to" });

// Values are compared as text, so a YAML scalar that is not a string (`true`, `8080`)
// stands for its text.
const scalar = z.union([nonEmpty, z.number(), z.boolean()]);
const constants = z.array(scalar).min(1);
type Scalar = string | number | boolean;

export interface Predicate {
  equals?: Scalar;
  in?: Scalar[];
  glob?: Scalar[];
  prefix?: Scalar[];
  domain?: Scalar[];
  under?: Scalar[];
  in_intent?: boolean | "named" | "source" | "exact" | "ruled_out";
  in_derived?: boolean;
  granted?: boolean;
  intent_any?: boolean | "named" | "source" | "exact";
  present?: boolean;
  truthy?: boolean;
  at_most?: string | number;
  not?: Predicate;
}

export const Predicate: z.ZodType<Predicate> = z
  .strictObject({
    equals: scalar.optional().describe("the value is exactly this"),
    in: constants.optional().describe("the value is one of these"),
    glob: constants.optional().describe('the value matches a pattern: * (not across /), ** (across), ?'),
    prefix: constants.optional().describe("the value starts with one of these"),
    domain: constants.optional().describe("the value's host is one of these or below one"),
    under: constants.optional().describe("the path is one of these or below one"),
    in_intent: z
      .union([z.boolean(), z.literal("named"), z.literal("source"), z.literal("exact"), z.literal("ruled_out")])
      .optional()
      .describe("true: the user asked for the value as the destination of a plain request; source: as a source or a destination (to read it); named: the user's own words name it; exact: they name this very value (a path itself, not a folder above it); ruled_out: (paths) the user's own words rule it out, or a folder above it"),
    in_derived: z
      .boolean()
      .optional()
      .describe("the value was found in the output of a call the user pointed at (intent.derive_from)"),
    granted: z.boolean().optional().describe("a verb of the user's own request granted the call's capability (tool only)"),
    intent_any: z
      .union([z.boolean(), z.literal("named"), z.literal("source"), z.literal("exact")])
      .optional()
      .describe("the user's own request asked for (true) or named (named) at least one value of this kind"),
    present: z.boolean().optional().describe("the subject has a value (true) or none (false)"),
    truthy: z
      .boolean()
      .optional()
      .describe("(args.NAME only) the argument is true (true) or false (false) to Python's bool(), as Hermes reads it"),
    at_most: z
      .union([z.number().nonnegative(), nonEmpty])
      .optional()
      .describe('(amount only) the sum is at most this: 500 (any currency) or "500 EUR"'),
    get not() {
      return Predicate.optional().describe("the value satisfies none of this predicate's keys");
    },
  })
  .describe("a predicate; several keys must all hold");

const subject = z.string().regex(SUBJECT_RE, {
  error: `a subject: ${SUBJECTS.join(", ")} or args.NAME`,
});

/** What a tool (a tools entry's, or one nobody mapped of a classify entry's class) takes for a choice it makes, an object the user
 * must name (docs/policy.md "objects and sums"): an argument no role reads, a heading, a code. */
export const CHOICES = ["unread", "heading", "code"] as const;

export const ToolEntry = z.strictObject({
  name: z
    .union([nonEmpty, z.array(nonEmpty).min(1)])
    .optional()
    .describe('exact tool names or globs like "browser_*": one, or a list'),
  mcp: z
    .strictObject({ server: nonEmpty, tool: nonEmpty })
    .optional()
    .describe("an MCP tool: mcp__<server>__<tool> and mcp_<server>_<tool>"),
  capability,
  risk,
  args: z.record(argPath, role).optional().describe("argument path -> role"),
  choices: z
    .array(z.enum(CHOICES))
    .min(1)
    .optional()
    .describe("what, of the arguments `args` does not list, is an object the user must name: one no role reads (unread), a heading, a code"),
  content: z
    .array(z.enum(["object"]))
    .min(1)
    .optional()
    .describe("with choices: roles whose arguments are content the tool carries, read by their shape only"),
});

/** MCP tool annotations a classify entry can take as evidence (docs/policy.md "classify"). */
export const HINTS = ["destructive", "not_read_only", "open_world", "read_only"] as const;

export const ClassifyVerb = z.strictObject({
  words: words.describe("verbs: in the tool's own name, and as the first word of its description"),
  objects: words
    .optional()
    .describe("words that may name the object rather than the action (get_order): they classify only a name with no read verb"),
  capability,
  risk,
  read: z
    .boolean()
    .optional()
    .describe("a read: only the tool's own name gives it, never its description, schema or annotations alone"),
  hints: z
    .array(z.enum(HINTS))
    .min(1)
    .optional()
    .describe("MCP annotations that are evidence for this entry (read_only: from trusted servers only)"),
  roles: z.array(role).min(1).optional().describe("a parameter of one of these roles (from the schema) is evidence for this entry"),
  choices: z
    .array(z.enum(CHOICES))
    .min(1)
    .optional()
    .describe("for a tool nobody mapped of this class, what is an object the user must name: an argument no role reads (unread), a heading, a code"),
  content: z
    .array(z.enum(["object"]))
    .min(1)
    .optional()
    .describe("for a tool nobody mapped of this class, roles whose arguments are content it carries, read by their shape only (a message's ids)"),
});

/** An exposure setting (docs/policy.md "classify", exposure): its levels, narrow first. */
export const EXPOSURE_SETTINGS_MAX = 8;
export const EXPOSURE_LEVELS_MAX = 15;
const ExposureLevel = z.strictObject({
  args: z
    .record(
      z.string().regex(/^[A-Za-z0-9_-]+$/, { error: "an argument's name (its last key), letters, digits, _ and -" }),
      z.array(z.union([z.string().min(1), z.boolean(), z.number(), z.null()])).min(1),
    )
    .optional()
    .describe("argument name -> the values that set this level (private: [false]; null: a protection removed)"),
  words: z
    .array(nonEmpty)
    .min(1)
    .optional()
    .describe("the request's words or phrases that choose this level (public, anyone with the link, read-only)"),
});
export const ExposureSetting = z.strictObject({
  setting: z.string().regex(/^[a-z0-9_-]+$/, { error: "lower-case letters, digits, _ and -" }),
  levels: z
    .array(ExposureLevel)
    .min(2)
    .max(EXPOSURE_LEVELS_MAX)
    .describe("narrow first: the first level runs unstated, a wider one needs the request's words for it"),
});

const Classify = z.strictObject({
  verbs: z.array(ClassifyVerb).optional().describe("riskiest first: where evidence conflicts, the earlier entry wins"),
  trusted_servers: z
    .array(nonEmpty)
    .optional()
    .describe("MCP servers whose read_only annotation may lower a tool's class"),
  arg_roles: z
    .record(z.string().regex(ARG_NAME_RE, { error: "a top-level argument name (no dots)" }), role)
    .optional(),
  exposure: z
    .array(ExposureSetting)
    .max(EXPOSURE_SETTINGS_MAX)
    .optional()
    .describe("settings that widen who sees or may change what a call acts on: a wider level than the request chose is asked or blocked"),
});

export const Rule = z.strictObject({
  id: z.string().max(MAX_U16_TEXT).regex(RULE_ID_RE, { error: "lower-case letters, digits, _ . - (like no-credentials)" }),
  effect,
  capability: z.array(capabilityGlob).min(1).optional(),
  risk: z.array(risk).min(1).optional(),
  tool: z.array(nonEmpty).min(1).optional(),
  when: z.record(subject, Predicate).optional().describe("conditions that must all hold"),
  reason: z
    .string()
    .max(MAX_U8_TEXT)
    .regex(REASON_RE, { error: "a stable code of lower-case letters, digits and _" })
    .optional(),
  message: nonEmpty.optional().describe("{tool} {capability} {risk} {value} {rule} are filled in"),
});

export const Budget = z.strictObject({
  id: z.string().max(MAX_U16_TEXT).regex(RULE_ID_RE, { error: "lower-case letters, digits, _ . - (like one-email)" }),
  capability: z.array(capabilityGlob).min(1).optional(),
  risk: z.array(risk).min(1).optional(),
  limit: z.int().min(1).max(MAX_U32).optional().describe("calls of the covered classes allowed per session"),
  amount: z
    .union([z.number().positive(), nonEmpty])
    .optional()
    .describe('instead of limit: the most the covered calls\' sums may add up to per session, 1000 or "1000 EUR"'),
  per: z
    .enum(["session", "user", "team"])
    .optional()
    .describe("whose calls count: one session's (the default), every session of one user (the platform's user id), or every session sharing the state store"),
  period: z
    .enum(["day", "week"])
    .optional()
    .describe("the count restarts each UTC day or ISO week; none: it never does"),
});

const OBJECTS = ["destination", "written", "source", "included", "converted", "delegated"] as const;
export const IntentVerb = z.strictObject({
  words,
  capabilities: z.array(capabilityGlob).min(1),
  object: z
    .enum(OBJECTS)
    .optional()
    .describe("what the verb's object is: destination (send, tell: it receives), written (write, save), source (read, summarize), included (add, invite: it joins the destination, unless a file receives), converted (convert, translate: the object is read; a later file after in, into or to receives), delegated (do, perform: the request is what the object says, so the verb grants its capabilities only maybe)"),
});

// A grammar word or a phrase of a few words ("in case", "never mind"), matched ASCII and
// Latin-1 case aside.
const PHRASE_RE = /^\S+( \S+){0,3}$/;
const phrases = z.array(z.string().regex(PHRASE_RE, { error: "a word or a phrase of at most four words" })).min(1);
/** The categories of the intent grammar (docs/policy.md, intent; docs/bytecode.md §7.3). */
export const GRAMMAR_CATEGORIES = [
  "destination", "source", "mention", "relative", "destination_after", "source_after", "destination_before",
  "question", "auxiliary", "polite", "explain", "addressee", "condition", "condition_after", "subject", "determiner", "barrier", "lead", "conjunction",
  "only", "instead", "revoke", "exclude", "restore", "quote_markers", "headers", "additive", "retract", "after_all", "pause",
] as const;
const Grammar = z
  .strictObject(Object.fromEntries(GRAMMAR_CATEGORIES.map((c) => [c, phrases.optional()])) as Record<(typeof GRAMMAR_CATEGORIES)[number], z.ZodOptional<typeof phrases>>)
  .describe("the words by which the binder reads a request's roles, moods and follow-ups, in every language it knows");

// An action a tool's name says it does ("cancel_pending_order" cancels), and the request's verbs
// that ask for it: a verb's grant holds for such a tool only when it asked for that action.
export const IntentAction = z.strictObject({
  action: z.string().min(1).describe("the action's name"),
  tools: words.describe("words of a tool's own name that say it does this action"),
  verbs: words.describe("the request's verb words (intent verbs) that ask for this action"),
});

const Intent = z.strictObject({
  negations: words.optional(),
  nothing_words: words.optional(),
  negation_cancels: words
    .optional()
    .describe("words that, between a negation and a verb, make it an instruction: do not forget to invite"),
  derive_from: z
    .array(capabilityGlob)
    .optional()
    .describe("capabilities whose output, for a call the user pointed at, names derived targets (in_derived)"),
  records_from: z
    .array(capabilityGlob)
    .optional()
    .describe("capabilities whose calls read records: the output of one asked for by the task's own values holds the task's own objects and sums"),
  own_records_from: z
    .array(capabilityGlob)
    .optional()
    .describe("capabilities whose calls read the user's own account or profile: read with no argument, or listing entries, they are still the task's records, and their addresses and recipients may receive"),
  verbs: z.array(IntentVerb).optional(),
  actions: z
    .array(IntentAction)
    .max(31)
    .optional()
    .describe("verbs to the actions they ask for: a tool whose name says an action is granted only by a verb that asked for it"),
  grammar: Grammar.optional(),
  file_extensions: z
    .array(z.string().regex(EXTENSION_RE, { error: "a file extension like md or .md" }))
    .optional(),
});

/** What an option of a program does (docs/policy.md "shell programs"; bytecode.md §3.4). */
export const SHELL_OPTION_KINDS = [
  "flag", "value", "two_values", "attached_value", "opaque", "output", "recursive", "in_place", "command",
  "command_until", "supplies", "script", "directory", "output_dir", "extract", "list", "archive", "archive_out",
  "replace", "members",
] as const;
/** What a program's operands are (bytecode.md §3.5). */
export const SHELL_OPERAND_KINDS = [
  "trees", "written", "last_written", "second_written", "first_script", "first_data", "no_files", "subcommand",
  "extracts", "old_style", "keys", "long_single", "operands_opaque", "opaque", "remote", "rev_paths", "runs",
  "runs_after_one", "runs_after_file", "appends",
] as const;

// -x, --long, -long (find's), + (less +cmd), key= (dd's operands).
const OPTION_RE = /^(-[^\s=]+|\+|[A-Za-z_][A-Za-z0-9_]*=)$/;
const PROGRAM_NAME_RE = /^[^\s/]+( [^\s/]+)?$/;
const option = z.string().regex(OPTION_RE, { error: 'an option like -r, --output, -name, + or of=' });
const options = z.array(option).min(1);

const shellOptionFields = Object.fromEntries(
  SHELL_OPTION_KINDS.map((kind) => [kind, options.optional()]),
) as Record<(typeof SHELL_OPTION_KINDS)[number], z.ZodOptional<typeof options>>;

export const ShellProgram = z.strictObject({
  names: z
    .array(z.string().regex(PROGRAM_NAME_RE, { error: 'a program name, or a program and its subcommand ("git log")' }))
    .min(1)
    .describe("the programs this entry describes; \"git log\" is git's subcommand log"),
  operands: z.array(z.enum(SHELL_OPERAND_KINDS)).min(1).optional().describe("what the operands are"),
  opaque_tokens: z.array(nonEmpty).min(1).optional().describe("a script (first_script, script) holding one of these is opaque"),
  writes: z
    .array(z.string().regex(/^\S+$/, { error: "a path (absolute, ~/…, $HERMES_HOME/…, or relative to the working directory) or a glob" }))
    .min(1)
    .optional()
    .describe("paths the program writes (with everything below them) whenever it runs; globs allowed"),
  ...shellOptionFields,
});

const Shell = z.strictObject({
  wrappers: z.array(word).optional(),
  network_programs: z.array(word).optional(),
  shells: z.array(word).optional(),
  max_depth: z.int().min(1).max(16).optional(),
  programs: z.array(ShellProgram).optional().describe("what programs' options and operands do"),
});

// A list a YAML anchor may bring in whole: `[*credentials, ~/.kube]` is flattened.
const pathList = z
  .array(z.union([nonEmpty, z.array(nonEmpty)]));

const Sandbox = z.strictObject({
  capabilities: z.array(capabilityGlob).optional().describe("capabilities whose calls the host can run confined; [] turns confinement off"),
  hide: pathList.optional().describe("paths (with everything below them) and globs a confined call cannot see"),
  read_only: pathList.optional().describe("globs of paths inside the writable set that stay read-only unless the request named them"),
  env: z.array(z.string().regex(/^[A-Za-z0-9_*?]+(=\S+)?$/, { error: "a variable name or glob like *_TOKEN, or NAME=VALUE globs like *=ghp_*" })).optional()
    .describe("environment variables removed inside the sandbox: names or globs, or NAME=VALUE globs for a value's shape"),
  hosts: z
    .array(z.strictObject({ programs: words, hosts: z.array(z.string().regex(/^(\*\.)?[A-Za-z0-9.-]+$/, { error: "a host name, or *.domain" })).min(1) }))
    .optional()
    .describe("hosts a confined command running one of the programs may reach through the sandbox's proxy"),
  enforces: z.array(z.string().regex(RULE_ID_RE, { error: "a rule id" })).optional()
    .describe("rules the sandbox enforces (its hide and read_only lists hold what they protect): where one holds only maybe, the call is confined"),
});

const Limits = z.strictObject({
  max_args_bytes: z.int().min(2).max(MAX_U32).optional(),
  max_json_depth: z.int().min(1).max(256).optional(),
  max_leaves: z.int().min(1).max(MAX_U32).optional(),
  max_targets: z.int().min(1).max(MAX_U32).optional(),
  max_intent_bytes: z.int().min(1).max(MAX_U32).optional(),
  max_sessions: z.int().min(1).max(1048575).optional(),
});

export const PolicyFile = z.strictObject({
  version: z.literal(1).describe("language version"),
  name: z.string().min(1).max(MAX_U16_TEXT).optional(),
  extends: z.array(nonEmpty).optional().describe('"defaults" or paths relative to this file'),
  defaults: z
    .record(z.string().regex(/^(\*|[a-z][a-z0-9_]*)$/, { error: 'a risk class or "*"' }), defaultEffect)
    .optional()
    .describe("decision when no rule matches, by risk class"),
  tools: z.array(ToolEntry).optional(),
  classify: Classify.optional(),
  rules: z.array(Rule).optional(),
  budgets: z.array(Budget).optional().describe("per-session call counts by capability and risk"),
  intent: Intent.optional(),
  shell: Shell.optional(),
  sandbox: Sandbox.optional().describe("the sandbox a confine decision runs in"),
  limits: Limits.optional(),
  fail_open: z
    .array(z.string().regex(/^[a-z][a-z0-9_]*$/, { error: "a risk class" }))
    .optional()
    .describe("risk classes whose calls run when deciding them failed; every other class fails closed"),
});

export type PolicyFile = z.infer<typeof PolicyFile>;
export type ToolEntry = z.infer<typeof ToolEntry>;
export type ClassifyVerb = z.infer<typeof ClassifyVerb>;
export type ExposureSetting = z.infer<typeof ExposureSetting>;
export type Rule = z.infer<typeof Rule>;
export type IntentVerb = z.infer<typeof IntentVerb>;
export type Grammar = z.infer<typeof Grammar>;
export type Budget = z.infer<typeof Budget>;
export type Limits = z.infer<typeof Limits>;
export type ShellProgram = z.infer<typeof ShellProgram>;
export type Sandbox = z.infer<typeof Sandbox>;
