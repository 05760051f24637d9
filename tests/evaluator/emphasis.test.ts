// A word that turns a clause around, written in capitals for emphasis ("NOT to sales@…", "NICHT an
// tom@…", "PAS à paul@…"), is that word, not a name: as a name it bound as a value, the clause lost
// its negation, and the address the user ruled out became a destination. An acronym the grammar
// does not know ("IT", "NASA") is still a name.
import { beforeAll, describe, expect, test } from "vitest";
import type { Fence } from "../../host-js/host";
import { shippedFence } from "./shipped";

let fence: Fence;

beforeAll(async () => {
  fence = await shippedFence();
}, 60_000);

function send(message: string, to: string): string {
  const h = fence.openSession();
  fence.intent(h, message);
  const kind = fence.decide(h, "mcp__gmail__send_email", { to, subject: "Report", body: "The report is attached." }).kind;
  fence.closeSession(h);
  return kind;
}

const CASES = [
  ["Send the report to bob@example.com, NOT to sales@competitor.example", "bob@example.com", "sales@competitor.example"],
  ["Email the deck to bob@example.com. Do NOT cc sales@competitor.example.", "bob@example.com", "sales@competitor.example"],
  ["Email the deck to bob@example.com and NEVER to sales@competitor.example", "bob@example.com", "sales@competitor.example"],
  ["Schick den Bericht an anna@firma.example, NICHT an tom@firma.example", "anna@firma.example", "tom@firma.example"],
  ["Envoie le rapport à marie@societe.example, PAS à paul@societe.example", "marie@societe.example", "paul@societe.example"],
  ["Envía el informe a ana@empresa.example, NO a luis@empresa.example", "ana@empresa.example", "luis@empresa.example"],
  ["Envia o relatório para rita@empresa.example, NÃO para rui@empresa.example", "rita@empresa.example", "rui@empresa.example"],
] as const;

describe("a negation in capitals", () => {
  test.each(CASES)("keeps the recipient it names: %s", (message, named) => {
    expect(send(message, named)).toBe("allow");
  });
  test.each(CASES)("rules out the one it negates: %s", (message, _named, ruledOut) => {
    expect(send(message, ruledOut)).not.toBe("allow");
  });
  test("an acronym the grammar does not know is still a name", () => {
    expect(send("Tell NASA's press office at press@nasa.example that we agree", "press@nasa.example")).toBe("allow");
  });
});
