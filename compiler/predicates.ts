// How the language's subjects and predicates map onto the bytecode's subjects and tests,
// and which tests each subject admits (docs/bytecode.md §5.1).
import {
  OP_TEST_DOMAIN, OP_TEST_EQUALS, OP_TEST_GLOB, OP_TEST_GRANTED, OP_TEST_IN, OP_TEST_IN_INTENT, OP_TEST_IN_DERIVED, OP_TEST_INTENT_ANY, OP_TEST_PREFIX,
  OP_TEST_PRESENT, OP_TEST_TRUTHY, OP_TEST_UNDER, OP_TEST_AT_MOST, SUBJ_AMOUNT, SUBJ_ARG, SUBJ_DOMAIN, SUBJ_EMAIL, SUBJ_OBJECT, SUBJ_OPAQUE, SUBJ_PATH, SUBJ_PROGRAM,
  SUBJ_RECIPIENT, SUBJ_TOOL, SUBJ_URL, SUBJ_WRITE,
} from "../bytecode/format";

/** Predicate keys that are tests; `not` wraps one of them. */
export const PREDICATE_OPS = {
  equals: OP_TEST_EQUALS,
  in: OP_TEST_IN,
  glob: OP_TEST_GLOB,
  prefix: OP_TEST_PREFIX,
  domain: OP_TEST_DOMAIN,
  under: OP_TEST_UNDER,
  in_intent: OP_TEST_IN_INTENT,
  in_derived: OP_TEST_IN_DERIVED,
  granted: OP_TEST_GRANTED,
  intent_any: OP_TEST_INTENT_ANY,
  present: OP_TEST_PRESENT,
  truthy: OP_TEST_TRUTHY,
  at_most: OP_TEST_AT_MOST,
} as const;

export type TestName = keyof typeof PREDICATE_OPS;

export const SUBJECT_CODES = {
  tool: SUBJ_TOOL,
  email: SUBJ_EMAIL,
  domain: SUBJ_DOMAIN,
  url: SUBJ_URL,
  path: SUBJ_PATH,
  program: SUBJ_PROGRAM,
  recipient: SUBJ_RECIPIENT,
  write: SUBJ_WRITE,
  opaque: SUBJ_OPAQUE,
  object: SUBJ_OBJECT,
  amount: SUBJ_AMOUNT,
} as const;

/** `args.NAME` -> { subject: ARG, arg: NAME }; the other subjects name themselves. */
export function subjectOf(key: string): { subject: number; arg: string | null } {
  if (key.startsWith("args.")) return { subject: SUBJ_ARG, arg: key.slice("args.".length) };
  return { subject: SUBJECT_CODES[key as keyof typeof SUBJECT_CODES], arg: null };
}

// `granted` asks about the call's capability, not a value: only the tool subject takes it.
// `intent_any` asks whether the user named any value of a target subject at all. `truthy` reads
// an argument as Python's bool() does: only arguments take it.
// `at_most` compares sums: only amounts take it.
const ALL_TESTS = (Object.keys(PREDICATE_OPS) as TestName[]).filter((t) => t !== "granted" && t !== "truthy" && t !== "at_most");
const NAME_TESTS: TestName[] = ["equals", "in", "glob", "prefix", "present"];

export const VALID_TESTS: Record<number, readonly TestName[]> = {
  [SUBJ_TOOL]: [...NAME_TESTS, "granted"],
  [SUBJ_ARG]: [...ALL_TESTS.filter((t) => NAME_TESTS.includes(t) || t === "in_intent" || t === "in_derived"), "truthy"],
  [SUBJ_EMAIL]: ALL_TESTS.filter((t) => t !== "under"),
  [SUBJ_DOMAIN]: ALL_TESTS.filter((t) => t !== "under"),
  [SUBJ_URL]: ALL_TESTS.filter((t) => t !== "under"),
  [SUBJ_PATH]: ALL_TESTS.filter((t) => t !== "domain"),
  [SUBJ_PROGRAM]: NAME_TESTS,
  [SUBJ_RECIPIENT]: ALL_TESTS.filter((t) => t !== "under"),
  [SUBJ_WRITE]: ALL_TESTS.filter((t) => t !== "domain"),
  [SUBJ_OPAQUE]: NAME_TESTS,
  [SUBJ_OBJECT]: ALL_TESTS.filter((t) => t !== "under" && t !== "domain"),
  [SUBJ_AMOUNT]: ["present", "equals", "in", "in_intent", "intent_any", "at_most"],
};
