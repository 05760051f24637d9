// The reach of a request's words through fence.wasm under the shipped policy: an exposure word
// chooses its setting only where the request asks for it, the narrowest stated choice wins, a
// protection turned off or set to null is a choice, and a negation reaches its own clause.
import { beforeAll, describe, expect, test } from "vitest";
import { compilePolicy } from "../../compiler/index";
import { type Fence, loadFence } from "../../host-js/host";
import { fenceWasm } from "./wasm";

let fence: Fence;

beforeAll(() => {
  const compiled = compilePolicy([{ path: "policies/defaults.yaml" }]);
  if (!compiled.ok) throw new Error("the shipped policy does not compile");
  fence = loadFence(fenceWasm());
  expect(fence.load(compiled.bytes).ok).toBe(true);
  expect(fence.configure("/home/u", "/home/u/work").ok).toBe(true);
});

function kind(messages: string | string[], tool: string, args: Record<string, unknown>): string {
  const h = fence.openSession();
  for (const m of typeof messages === "string" ? [messages] : messages) expect(fence.intent(h, m).ok).toBe(true);
  const d = fence.decide(h, tool, args);
  fence.closeSession(h);
  return d.kind;
}
const repo = (m: string | string[], args: Record<string, unknown>) =>
  kind(m, "mcp__gitea__update_repo", { owner: "team", repo: "web", description: "New text", ...args });
const share = (m: string, role: string) =>
  kind(m, "mcp__onedrive__share_item", { itemId: "plan7", type: "user", role, email: "ines@corp.example" });
const send = (m: string, to: string) => kind(m, "mcp__mail__send_email", { to, subject: "Report", body: "Attached" });

describe("exposure words choose where the request asks for the setting", () => {
  test("a request for the setting chooses it, in several languages", () => {
    expect(repo("Make team/web public", { private: false })).toBe("allow");
    expect(repo("Rends le dépôt team/web public", { private: false })).toBe("allow");
    expect(repo("Mach das Repo team/web öffentlich", { private: false })).toBe("allow");
    expect(repo("把team/web设为公开", { private: false })).toBe("allow");
    expect(share("Share plan7 with ines@corp.example with edit access", "writer")).toBe("allow");
  });

  test("a question chooses nothing", () => {
    expect(repo("Is team/web public? Update its description to 'New text'", { private: false })).not.toBe("allow");
    expect(repo("¿Es público team/web? Cambia su descripción a 'New text'", { private: false })).not.toBe("allow");
    expect(repo("È pubblico team/web? Aggiorna la descrizione", { private: false })).not.toBe("allow");
  });

  test("a word that modifies another noun, or describes a person, chooses nothing", () => {
    expect(repo("Update the description of team/web to cite the public transport map", { private: false })).not.toBe("allow");
    expect(repo("Create the repository team/web to track the public API docs", { private: false })).not.toBe("allow");
    expect(share("Share plan7 with ines@corp.example, our website editor", "writer")).not.toBe("allow");
    expect(share("Share plan7 with ines@corp.example, the owner of the billing project", "owner")).not.toBe("allow");
    // What the setting is about is a phrase of its own.
    expect(kind("Create a public repository team/web", "mcp__gitea__create_repo", { name: "web", org: "team", private: false })).toBe("allow");
  });

  test("the narrowest stated choice wins; a level between it and the widest is asked", () => {
    expect(share("Share plan7 with ines@corp.example so she can comment; she is the owner of the plan", "commenter")).toBe("allow");
    expect(share("Share plan7 with ines@corp.example so she can comment; she is the owner of the plan", "owner")).not.toBe("allow");
    expect(share("Give ines@corp.example view access to plan7 and the edit access she asked for", "writer")).toBe("ask");
  });
});

describe("booleans and nulls by what the setting means", () => {
  const protect = (args: Record<string, unknown>) =>
    kind("Add the 'lint' status check to the branch protection of main in team/web", "mcp__gitea__update_branch_protection",
      { owner: "team", repo: "web", branch: "main", required_status_checks: { contexts: ["lint"] }, ...args });

  test("a protection kept runs; one turned off or set to null is asked", () => {
    expect(protect({ enforce_admins: true })).toBe("allow");
    expect(protect({ enforce_admins: false })).toBe("ask");
    expect(protect({ required_pull_request_reviews: null })).toBe("ask");
    expect(protect({ allow_deletions: true })).toBe("ask");
  });

  test("null for a setting no level lists is left out", () => {
    expect(repo("Update the description of team/web to 'New text'", { private: null })).toBe("allow");
    expect(repo("Update the description of team/web to 'New text'", { private: false })).not.toBe("allow");
  });
});

describe("a negation reaches its own clause", () => {
  test("the clause after a full-width stop is its own", () => {
    expect(send("資料をmori@corp.exampleに送って。ito@other.exampleには送らないで。", "mori@corp.example")).toBe("allow");
    expect(send("資料をmori@corp.exampleに送って。ito@other.exampleには送らないで。", "ito@other.example")).toBe("block");
  });

  test("the clause after a dash between spaces is its own", () => {
    expect(send("I won't be at standup – tell ravi@corp.example by email", "ravi@corp.example")).toBe("allow");
  });

  test("a negated verb reaches its own action, not the class another verb asks for", () => {
    expect(send("Don't share the drive folder, just email the slides to ravi@corp.example", "ravi@corp.example")).toBe("allow");
    expect(kind("Don't share the drive folder, just email the slides to ravi@corp.example", "mcp__onedrive__share_item",
      { itemId: "folder", type: "user", role: "reader", email: "ravi@corp.example" })).toBe("block");
    expect(send("Save the reply to ravi@corp.example as a draft, don't send the email", "ravi@corp.example")).toBe("block");
  });

  test("don't forget asks, in several languages", () => {
    expect(send("N'oubliez pas d'envoyer le devis à achat@corp.example", "achat@corp.example")).toBe("allow");
    expect(send("No olvides mandar el presupuesto a compras@corp.example", "compras@corp.example")).toBe("allow");
    expect(send("Don't forget to email the quote to buyer@corp.example", "buyer@corp.example")).toBe("allow");
    expect(send("不要忘记把报价发给caigou@corp.example", "caigou@corp.example")).toBe("allow");
    expect(send("不要把报价发给eve@other.example", "eve@other.example")).toBe("block");
  });
});
