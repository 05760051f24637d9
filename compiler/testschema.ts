// The policy test file format (docs/policy-tests.md), defined once: `agentsfence test` validates
// with it and `z.toJSONSchema(PolicyTestFile)` exports it for editors.
import * as z from "zod";

const KINDS = ["allow", "block", "ask", "confine"] as const;
/** What happened to a call the fence let through: the host commits its budget units for the first two, releases them otherwise. */
export const OUTCOMES = ["ran", "failed", "blocked", "cancelled"] as const;
const nonEmpty = z.string().min(1);
const absolute = z.string().regex(/^\//, { error: "an absolute path like /home/user" });

/** What `env` means when a file leaves it out: tests must not depend on who runs them. */
export const DEFAULT_ENV = { home: "/home/user", cwd: "/home/user/project" } as const;

export const Expectation = z
  .strictObject({
    kind: z.enum(KINDS).describe("allow | block | ask"),
    reason: nonEmpty.optional().describe("the decision's reason code, e.g. recipient_not_named or default_ask"),
    rule: z.string().optional().describe('the id of the rule (or budget) that decided; "" when none did (a default), "intent" for a prohibition'),
    capability: nonEmpty.optional().describe("the call's capability, e.g. message.send"),
    risk: nonEmpty.optional().describe("the call's risk class, e.g. send"),
    message_contains: nonEmpty.optional().describe("text the decision's message must contain"),
    witness: z
      .array(z.string())
      .optional()
      .describe("every value that made the deciding rule hold, in any order; [] when none did (a default, a whole-subject test)"),
    warned: z
      .array(z.string())
      .optional()
      .describe("the ids of the warn rules that held, in any order; [] when none did"),
  })
  .describe("the decision the call expects; keys left out are not checked");

// One step of a session: the user's message (which binds or amends the intent), a call, or the
// message and then the call. A case without `steps` is one such step in a fresh session.
const stepShape = {
  intent: z
    .union([z.string(), z.array(z.string()).min(1)])
    .optional()
    .describe("the user's message, or their messages in order; each amends what the session's earlier ones named"),
  tool: nonEmpty.optional().describe("the tool's name, e.g. write_file or mcp__gmail__send_email"),
  args: z.record(z.string(), z.unknown()).optional().describe("the call's arguments, a mapping"),
  expect: Expectation.optional(),
  outcome: z
    .enum(OUTCOMES)
    .optional()
    .describe("what happened to the call once let through (default ran): ran and failed spend its budget units, blocked and cancelled give them back"),
};
type StepFields = z.infer<z.ZodObject<typeof stepShape>>;
const CALL_KEYS = ["tool", "args", "expect"] as const;

function checkStep(step: StepFields, ctx: z.core.$RefinementCtx, whole: boolean): void {
  const given = CALL_KEYS.filter((key) => step[key] !== undefined);
  const missing = CALL_KEYS.filter((key) => step[key] === undefined);
  if ((given.length > 0 || whole) && missing.length > 0) {
    ctx.addIssue({ code: "custom", path: [], message: `a call needs tool, args and expect (missing ${missing.join(", ")})` });
  } else if (given.length === 0 && step.intent === undefined) {
    ctx.addIssue({ code: "custom", path: [], message: "a step needs intent (a user message), a call (tool, args, expect), or both" });
  }
  if (step.outcome !== undefined && step.expect === undefined) {
    ctx.addIssue({ code: "custom", path: ["outcome"], message: "only a call has one" });
  } else if (step.outcome !== undefined && step.expect?.kind === "block") {
    ctx.addIssue({ code: "custom", path: ["outcome"], message: "only a call the fence lets through has one, and this one expects block" });
  }
}

export const Step = z.strictObject(stepShape).superRefine((step, ctx) => checkStep(step, ctx, false));

export const TestCase = z
  .strictObject({
    name: nonEmpty.describe("what the case shows, printed when it fails"),
    ...stepShape,
    steps: z
      .array(Step)
      .min(1)
      .optional()
      .describe("messages and calls in order, in one session: budgets and amendments carry from step to step"),
  })
  .superRefine((testCase, ctx) => {
    if (testCase.steps === undefined) return checkStep(testCase, ctx, true);
    for (const key of Object.keys(stepShape) as Array<keyof typeof stepShape>) {
      if (testCase[key] !== undefined) ctx.addIssue({ code: "custom", path: [key], message: "a case holds steps or one call, not both: move it into a step" });
    }
    if (!testCase.steps.some((step) => step.expect !== undefined)) {
      ctx.addIssue({ code: "custom", path: ["steps"], message: "none is a call, so the case tests nothing" });
    }
  });

export const PolicyTestFile = z.strictObject({
  policy: nonEmpty.describe("the policy under test: a .yaml (or compiled .afb) path relative to this file"),
  env: z
    .strictObject({
      home: absolute.describe("what ~ means"),
      cwd: absolute.describe("the working directory relative paths resolve against"),
    })
    .optional()
    .describe(`the evaluator's home and working directory (default ${DEFAULT_ENV.home} and ${DEFAULT_ENV.cwd})`),
  cases: z.array(TestCase).min(1),
});

export type PolicyTestFile = z.infer<typeof PolicyTestFile>;
export type TestCase = z.infer<typeof TestCase>;
export type Step = z.infer<typeof Step>;
export type Outcome = (typeof OUTCOMES)[number];
