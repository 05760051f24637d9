// The policy test file format (docs/policy-tests.md), defined once: `agentsfence test` validates
// with it and `z.toJSONSchema(PolicyTestFile)` exports it for editors.
import * as z from "zod";

const KINDS = ["allow", "block", "ask"] as const;
const nonEmpty = z.string().min(1);
const absolute = z.string().regex(/^\//, { error: "an absolute path like /home/user" });

/** What `env` means when a file leaves it out: tests must not depend on who runs them. */
export const DEFAULT_ENV = { home: "/home/user", cwd: "/home/user/project" } as const;

export const Expectation = z
  .strictObject({
    kind: z.enum(KINDS).describe("allow | block | ask"),
    reason: nonEmpty.optional().describe("the decision's reason code, e.g. recipient_not_named or default_ask"),
    rule: z.string().optional().describe('the id of the rule that decided; "" when none did (a default, a prohibition)'),
    capability: nonEmpty.optional().describe("the call's capability, e.g. message.send"),
    risk: nonEmpty.optional().describe("the call's risk class, e.g. send"),
    message_contains: nonEmpty.optional().describe("text the decision's message must contain"),
  })
  .describe("the decision the case expects; keys left out are not checked");

export const TestCase = z.strictObject({
  name: nonEmpty.describe("what the case shows, printed when it fails"),
  intent: z
    .union([z.string(), z.array(z.string()).min(1)])
    .optional()
    .describe("the user's own message, or their messages in order; none: an empty intent"),
  tool: nonEmpty.describe("the tool's name, e.g. write_file or mcp__gmail__send_email"),
  args: z.record(z.string(), z.unknown()).describe("the call's arguments, a mapping"),
  expect: Expectation,
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
