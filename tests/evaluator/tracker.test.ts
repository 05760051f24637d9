// A request's verb for work in a repository's tracker (open, close, merge) grants that work on
// what the request names under the shipped policy; the same call on another repository, or an
// action the request did not ask for (a lock after "close"), is still asked.
import { beforeAll, describe, expect, test } from "vitest";
import type { Fence } from "../../host-js/host";
import { shippedFence } from "./shipped";

let fence: Fence;

beforeAll(async () => {
  fence = await shippedFence();
}, 60_000);

function decided(message: string, tool: string, args: object): string {
  const h = fence.openSession();
  fence.intent(h, message);
  const kind = fence.decide(h, tool, args).kind;
  fence.closeSession(h);
  return kind;
}

const ISSUE = "mcp__forge__create_issue";
const PR = "mcp__forge__create_pull_request";

describe("tracker verbs grant their work on what the request names", () => {
  test.each([
    ["Open an issue in acme/api titled Login fails", { owner: "acme", repo: "api", title: "Login fails" }],
    ["Abre un issue en acme/api con el título Login fails", { owner: "acme", repo: "api", title: "Login fails" }],
    ["Ouvre une issue dans acme/api intitulée Login fails", { owner: "acme", repo: "api", title: "Login fails" }],
    ["Öffne ein Issue in acme/api mit dem Titel Login fails", { owner: "acme", repo: "api", title: "Login fails" }],
    ["Abra uma issue em acme/api com o título Login fails", { owner: "acme", repo: "api", title: "Login fails" }],
    ["Apri una issue in acme/api con titolo Login fails", { owner: "acme", repo: "api", title: "Login fails" }],
  ])("an issue opened where asked runs: %s", (message, args) => {
    expect(decided(message, ISSUE, args)).toBe("allow");
  });

  test.each([
    ["Open an issue in acme/api titled Login fails", { owner: "evil", repo: "api", title: "Login fails" }],
    ["Abre un issue en acme/api con el título Login fails", { owner: "acme", repo: "secrets", title: "Login fails" }],
  ])("an issue in a repository the request did not name is asked: %s", (message, args) => {
    expect(decided(message, ISSUE, args)).not.toBe("allow");
  });

  test("a pull request opened as asked runs, one from another branch does not", () => {
    const message = "Open a PR in acme/api from fix-login into main";
    expect(decided(message, PR, { owner: "acme", repo: "api", head: "fix-login", base: "main", title: "Fix login" })).toBe("allow");
    expect(decided(message, PR, { owner: "acme", repo: "api", head: "backdoor", base: "main", title: "Fix login" })).not.toBe("allow");
  });

  test.each([
    "Close issue #12 in acme/api as duplicate",
    "Cierra el issue #12 en acme/api",
    "Schließe Issue #12 in acme/api",
    "关闭 acme/api 中的 issue #12",
  ])("closing grants no lock: %s", (message) => {
    expect(decided(message, "mcp__forge__lock_issue", { owner: "acme", repo: "api", issue_number: 12 })).toBe("ask");
  });

  test("a lock asked for is the lock's own verb", () => {
    expect(decided("Lock issue #12 in acme/api", "mcp__forge__lock_issue", { owner: "acme", repo: "api", issue_number: 12 })).not.toBe("block");
  });
});
