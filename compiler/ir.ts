// The intermediate representation between the merged policy and the bytecode: names are
// resolved to classes, constants are in normal form, and every item knows its source.
import type { SourcePos } from "./diagnostic";
import type { DefaultEffect, Effect } from "./schema";
import type { TestName } from "./predicates";

export interface PolicyIR {
  name: string;
  /** Index 0 is always unknown/unknown. */
  classes: ClassIR[];
  tools: ToolIR[];
  /** Exact tool name -> tool index; the first entry that names a tool wins. */
  exactTools: Array<[name: string, tool: number]>;
  /** Tool-name glob -> tool index, in lookup order. */
  globTools: Array<[pattern: string, tool: number]>;
  classify: ClassifyIR;
  rules: RuleIR[];
  budgets: BudgetIR[];
  intent: IntentIR;
  shell: ShellIR;
  sandbox: SandboxIR;
  limits: LimitsIR;
  /** Risk classes that fail open (a later file's list replaces an earlier one's). */
  failOpen: string[];
}

export interface ClassIR {
  capability: string;
  risk: string;
  defaultEffect: DefaultEffect;
}

export interface ToolIR {
  class: number;
  roles: ArgRoleIR[];
  /** TOOL_FLAGS of bytecode/format.ts: how the arguments no role of the entry reads are read. */
  flags: number;
}

export interface ArgRoleIR {
  argPath: string;
  /** ROLE_* of bytecode/format.ts. */
  role: number;
}

export interface ClassifyIR {
  /** Class of each verb entry, in lookup order (riskiest first). */
  entryClasses: number[];
  /** Each entry's CLASSIFY_* flags (read, hints) and its roles as a bit set (bit r: role r). */
  entryFlags: number[];
  entryRoles: number[];
  /** Lower-case word -> entry·2 + 1 when the word is one of the entry's objects; the first entry that has a word wins. */
  words: Array<[word: string, value: number]>;
  /** MCP server names whose read_only annotation may lower a class, in Hermes' spelling. */
  trustedServers: string[];
  /** Top-level argument name -> ROLE_*, for tools nobody mapped. */
  argRoles: Array<[name: string, role: number]>;
  /** `arg=value` (ASCII lower-case) -> setting·16 + level (0: the narrowest), for exposure settings. */
  exposureArgs: Array<[key: string, value: number]>;
  /** A request's word or phrase (lower-case) -> per setting s, bits 4s..4s+3: the level it chooses + 1. */
  exposureWords: Array<[phrase: string, nibbles: number]>;
}

export interface RuleIR {
  id: string;
  effect: Effect;
  reason: string;
  message: string | null;
  /** Where the rule starts: its bytecode `source`. */
  at: SourcePos;
  idAt: SourcePos;
  /** The classes whose calls this rule can apply to, ascending. */
  classes: number[];
  /** Tool-name selectors (exact names and globs), or null when the rule gives none. */
  tools: string[] | null;
  conditions: ConditionIR[];
}

export interface BudgetIR {
  id: string;
  /** Calls per session; 0 for a budget of sums. */
  limit: number;
  /** The cap of a budget of sums (an AMOUNT in normal form, §6.10), else null. */
  amount: string | null;
  /** Whose calls count and when the count restarts (§3.2): BUDGET_PER_* | BUDGET_PERIOD_* << 8. */
  scope: number;
  at: SourcePos;
  idAt: SourcePos;
  /** The classes whose calls this budget counts, ascending. */
  classes: number[];
}

/** One test on one subject; a `when` entry with several predicates yields several. */
export interface ConditionIR {
  /** SUBJ_* of bytecode/format.ts. */
  subject: number;
  /** Argument path for SUBJ_ARG, else null. */
  arg: string | null;
  test: TestIR;
  negate: boolean;
}

export type TestIR =
  | { kind: "present"; present: boolean }
  | { kind: "truthy"; truthy: boolean }
  | { kind: "in_intent"; reading: IntentReading }
  | { kind: "in_derived" }
  | { kind: "granted" }
  | { kind: "intent_any"; reading: IntentReading }
  | { kind: "equals"; value: string }
  | { kind: "at_most"; value: string }
  | { kind: Exclude<TestName, "present" | "truthy" | "in_intent" | "in_derived" | "granted" | "intent_any" | "equals" | "at_most">; values: string[] };

/** IN_INTENT's readings (docs/bytecode.md §7): INTENT_DESTINATION, INTENT_NAMED, INTENT_SOURCE or INTENT_EXACT. */
export type IntentReading = 0 | 1 | 2 | 3 | 4; // INTENT_* of bytecode/format.ts; 4 (ruled_out) for IN_INTENT on paths only

export interface IntentIR {
  negations: string[];
  nothingWords: string[];
  /** Words that, between a negation and a verb, cancel the negation ("do not forget to invite"). */
  negationCancels: string[];
  /** Classes whose output, for a call whose every target the user named, yields derived items. */
  deriveFrom: number[];
  /** Classes whose calls read records: asked for by the task's own values, their fields are the task's objects and sums. */
  recordsFrom: number[];
  /** Classes whose calls read the user's own account or profile: records whatever their arguments, whose people may receive. */
  ownRecordsFrom: number[];
  fileExtensions: string[];
  verbs: IntentVerbIR[];
  /** Lower-case word -> verb; the first verb that has a word wins. */
  words: Array<[word: string, verb: number]>;
  /** Lower-case word or phrase (words joined) -> the OR of its G_* categories and object bits. */
  grammar: Array<[word: string, value: number]>;
  /** A tool name's lower-case word -> the actions it says (a bit each, §7.5). */
  actionTools: Array<[word: string, actions: number]>;
  /** A request's verb word -> the actions it asks for. */
  actionVerbs: Array<[word: string, actions: number]>;
}

export interface IntentVerbIR {
  capabilities: Array<{ pattern: string; at: SourcePos }>;
  /** Classes whose capability one of the globs matches, ascending. */
  classes: number[];
}

export interface ShellIR {
  wrappers: string[];
  networkPrograms: string[];
  shells: string[];
  maxDepth: number;
  /** Program name (or "program subcommand") -> its option set: option, "@" or "%token" -> flags. */
  programs: Array<[name: string, options: Array<[key: string, flags: number]>]>;
}

/** The task's sandbox (docs/policy.md "sandbox"): constants in the forms of bytecode.md §6. */
export interface SandboxIR {
  /** The capabilities of the policy's classes that the host can run confined. */
  capabilities: string[];
  /** Paths (a path stands for itself and all below it) and globs hidden from a confined call. */
  hide: string[];
  /** Globs of paths inside the writable set that stay read-only. */
  readOnly: string[];
  /** Globs of environment variable names removed. */
  env: string[];
  /** Program name -> the hosts a confined command running it may reach. */
  hosts: Array<[program: string, hosts: string[]]>;
  /** Ids of the rules the sandbox enforces. */
  enforces: string[];
}

export interface LimitsIR {
  maxArgsBytes: number;
  maxJsonDepth: number;
  maxLeaves: number;
  maxTargets: number;
  maxIntentBytes: number;
  maxSessions: number;
}
