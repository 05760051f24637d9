// Corrections in later turns under the shipped policy (docs/bytecode.md §7.3, "later turns"): a
// new recipient replaces the earlier ones unless the turn says it adds, a retraction rules out
// what it names (and the address that name was given by), "A, not B" rules B out, and what was
// replaced reads as taken back by its turn.
import { beforeAll, describe, expect, test } from "vitest";
import type { Fence } from "../../host-js/host";
import { shippedFence } from "./shipped";

let fence: Fence;

beforeAll(async () => {
  fence = await shippedFence();
  expect(fence.describe("mcp__mail__send_message", "Send an e-mail message.", {
    type: "object", properties: { to: { type: "array", items: { type: "string" } }, subject: { type: "string" }, body: { type: "string" } },
  }).ok).toBe(true);
  expect(fence.describe("cancel_pending_order", "Cancel a pending order.", {
    type: "object", properties: { order_id: { type: "string" }, reason: { type: "string" } },
  }).ok).toBe(true);
});

function session(turns: string[]): number {
  const h = fence.openSession();
  for (const t of turns) expect(fence.intent(h, t).ok).toBe(true);
  return h;
}
const mail = (h: number, to: string) => fence.decide(h, "mcp__mail__send_message", { to: [to], subject: "report", body: "here it is" }).kind;
const cancel = (h: number, id: string) => fence.decide(h, "cancel_pending_order", { order_id: id, reason: "no longer needed" }).kind;

describe("a later turn's new recipient", () => {
  test.each([
    ["Email the report to carol@x.example", "Scratch that, send it to bob@y.example"],
    ["Email the report to carol@x.example", "Actually, send it to bob@y.example"],
    ["Envoie le rapport à carol@x.example", "Non, plutôt à bob@y.example"],
    ["Schick den Bericht an carol@x.example", "Nein, lieber an bob@y.example"],
    ["Manda el informe a carol@x.example", "No, mejor a bob@y.example"],
    ["Manda o relatório para carol@x.example", "Não, manda para bob@y.example"],
    ["把报告发给carol@x.example", "不，发给bob@y.example"],
  ])("replaces the earlier one: %s / %s", (first, second) => {
    const h = session([first, second]);
    expect(mail(h, "bob@y.example")).toBe("allow");
    expect(mail(h, "carol@x.example")).not.toBe("allow");
    fence.closeSession(h);
  });

  test.each([
    ["Email the report to carol@x.example", "Also send it to bob@y.example"],
    ["Email the report to carol@x.example", "Send it to bob@y.example as well"],
    ["Email the report to carol@x.example", "And cc bob@y.example too"],
    ["Envoie le rapport à carol@x.example", "Envoie-le aussi à bob@y.example"],
    ["Schick den Bericht an carol@x.example", "Schick ihn auch an bob@y.example"],
    ["Manda el informe a carol@x.example", "Mándalo también a bob@y.example"],
  ])("is added where the turn says so: %s / %s", (first, second) => {
    const h = session([first, second]);
    expect(mail(h, "bob@y.example")).toBe("allow");
    expect(mail(h, "carol@x.example")).toBe("allow");
    fence.closeSession(h);
  });

  test("keeps an earlier recipient it names again by name", () => {
    const h = session(["Email the report to olga.ivanova@x.example and piet@x.example", "Only Olga please"]);
    expect(mail(h, "olga.ivanova@x.example")).toBe("allow");
    expect(mail(h, "piet@x.example")).not.toBe("allow");
    fence.closeSession(h);
  });

  test("shows which turn took the earlier one back", () => {
    const h = fence.openSession();
    fence.intent(h, "Email the report to carol@x.example");
    const text = fence.intent(h, "Scratch that, send it to bob@y.example").text;
    expect(text).toContain("email\tcarol@x.example\tdestination\trequest\t1\trevoked,ruled-out\t2\t");
    expect(text).toContain("email\tbob@y.example\tdestination\trequest\t2\tdestination,source,named\t0\t");
    fence.closeSession(h);
  });
});

describe("a retraction", () => {
  test.each([
    ["Email the report to Carol (carol@x.example) and dan@x.example", "Forget Carol"],
    ["Email the report to carol@x.example and dan@x.example", "Carol is out of the loop"],
    ["Envoie le rapport à carol@x.example et dan@x.example", "Oublie Carol"],
    ["Schick den Bericht an carol@x.example und dan@x.example", "Vergiss Carol"],
    ["Manda el informe a carol@x.example y dan@x.example", "Olvida a Carol"],
  ])("rules out the address the name was given by: %s / %s", (first, second) => {
    const h = session([first, second]);
    expect(mail(h, "carol@x.example")).not.toBe("allow");
    expect(mail(h, "dan@x.example")).toBe("allow");
    fence.closeSession(h);
  });

  test.each([
    ["Cancel order #W1001", "Don't cancel it after all"],
    ["Storniere die Bestellung #W1001", "Doch nicht stornieren"],
    ["Cancele o pedido #W1001", "Afinal, não cancele"],
    ["Annule la commande #W1001", "Finalement, ne l'annule pas"],
    ["Cancel order #W1001", "Never mind"],
  ])("of an action takes it back: %s / %s", (first, second) => {
    const h = session([first, second]);
    expect(cancel(h, "#W1001")).not.toBe("allow");
    fence.closeSession(h);
  });
});

describe("an object swapped", () => {
  test.each([
    ["Cancel order #W1001", "Actually cancel #W1002, not #W1001"],
    ["Cancel order #W1001", "Cancel #W1002 instead"],
    ["Annule la commande #W1001", "Annule #W1002 à la place, pas #W1001"],
  ])("rules the earlier one out: %s / %s", (first, second) => {
    const h = session([first, second]);
    expect(cancel(h, "#W1002")).toBe("allow");
    expect(cancel(h, "#W1001")).not.toBe("allow");
    fence.closeSession(h);
  });

  test("both stay the task's when the turn adds one", () => {
    const h = session(["Cancel order #W1001", "Also cancel #W1002"]);
    expect(cancel(h, "#W1001")).toBe("allow");
    expect(cancel(h, "#W1002")).toBe("allow");
    fence.closeSession(h);
  });
});

describe("a pause", () => {
  test.each([
    ["Email the report to carol@x.example", "Hold off on that until I check with legal"],
    ["Email the report to carol@x.example", "Wait until Monday before sending it"],
    ["Email the report to carol@x.example", "Not yet, please"],
    ["Envoie le rapport à carol@x.example", "Attends lundi avant de l'envoyer"],
    ["Envoie le rapport à carol@x.example", "Pas encore, merci"],
    ["Schick den Bericht an carol@x.example", "Warte noch damit, bis ich Bescheid gebe"],
    ["Manda el informe a carol@x.example", "Espera hasta el lunes"],
    ["Manda o relatório para carol@x.example", "Espere até segunda, por favor"],
    ["Manda il rapporto a carol@x.example", "Aspetta fino a lunedì"],
    ["把报告发给carol@x.example", "等一下"],
    ["把报告发给carol@x.example", "稍后再发"],
    ["議事録をcarol@x.exampleに送って", "ちょっと待って"],
  ])("asks the earlier send again: %s / %s", (first, second) => {
    const h = session([first, second]);
    expect(mail(h, "carol@x.example")).toBe("ask");
    fence.closeSession(h);
  });

  test.each([
    ["Email the report to carol@x.example", "Hold off on that until Monday", "Ok, send it to carol@x.example now"],
    ["Envoie le rapport à carol@x.example", "Pas encore", "Vas-y, envoie-le à carol@x.example"],
  ])("ends when a later turn names the destination again: %s / %s / %s", (first, second, third) => {
    const h = session([first, second, third]);
    expect(mail(h, "carol@x.example")).toBe("allow");
    fence.closeSession(h);
  });

  test.each([
    ["Email the report to carol@x.example", "Wait, send it to bob@y.example too"],
    ["Manda el informe a carol@x.example", "Espera, mándalo también a bob@y.example"],
  ])("is not an interjection: %s / %s", (first, second) => {
    const h = session([first, second]);
    expect(mail(h, "carol@x.example")).toBe("allow");
    expect(mail(h, "bob@y.example")).toBe("allow");
    fence.closeSession(h);
  });
});

describe("an instead word after the verb", () => {
  test.each([
    ["Envoie le rapport à carol@x.example", "Non, envoie-le plutôt à bob@y.example"],
    ["Schick den Bericht an carol@x.example", "Nein, schick es stattdessen an bob@y.example"],
    ["Manda el informe a carol@x.example", "No, mándalo a bob@y.example en su lugar"],
    ["Email the report to carol@x.example", "No, send it instead to bob@y.example"],
    ["Manda il rapporto a carol@x.example", "No, mandalo invece a bob@y.example"],
  ])("names the new recipient: %s / %s", (first, second) => {
    const h = session([first, second]);
    expect(mail(h, "bob@y.example")).toBe("allow");
    expect(mail(h, "carol@x.example")).not.toBe("allow");
    fence.closeSession(h);
  });

  test.each([
    ["Schick den Bericht an bob@y.example statt an carol@x.example"],
    ["Envoie le rapport à bob@y.example plutôt qu'à carol@x.example"],
    ["Send the report to bob@y.example instead of to carol@x.example"],
  ])("after a value of its clause stands against it: %s", (first) => {
    const h = session([first]);
    expect(mail(h, "bob@y.example")).toBe("allow");
    expect(mail(h, "carol@x.example")).not.toBe("allow");
    fence.closeSession(h);
  });
});

describe("a destination a later turn states", () => {
  test.each([
    ["Email the report to carol@x.example", "Sorry, wrong person — it should go to bob@y.example"],
    ["Email the report to carol@x.example", "It goes to bob@y.example"],
    ["Schick den Bericht an carol@x.example", "Falsche Person, es soll an bob@y.example gehen"],
    ["Envoie le rapport à carol@x.example", "Pardon, ça doit aller à bob@y.example"],
    ["Manda o relatório para carol@x.example", "Desculpe, deve ir para bob@y.example"],
  ])("replaces the earlier recipient and grants no more than it says: %s / %s", (first, second) => {
    const h = session([first, second]);
    expect(mail(h, "carol@x.example")).not.toBe("allow");
    expect(mail(h, "bob@y.example")).not.toBe("block");
    fence.closeSession(h);
  });

  test("beside an added one keeps the earlier recipient", () => {
    const h = session(["Email the report to carol@x.example", "A copy should go to bob@y.example too"]);
    expect(mail(h, "carol@x.example")).toBe("allow");
    fence.closeSession(h);
  });
});

describe("an address picked out by its host", () => {
  test.each([
    ["Email the report to lena@a.example and tom@b.example", "Oops, not the a.example one"],
    ["Envoie le rapport à lena@a.example et tom@b.example", "Pardon, pas celle de a.example"],
    ["Schick den Bericht an lena@a.example und tom@b.example", "Sorry, nicht die von a.example"],
    ["Manda el informe a lena@a.example y tom@b.example", "Perdón, no la de a.example"],
  ])("is ruled out, the other kept: %s / %s", (first, second) => {
    const h = session([first, second]);
    expect(mail(h, "lena@a.example")).not.toBe("allow");
    expect(mail(h, "tom@b.example")).toBe("allow");
    fence.closeSession(h);
  });
});

// A turn that names an address and asks for nothing ("Sorry, I meant carol@…", "Recipient:
// carol@…") may correct the recipient or only speak of someone: both wait, asked, never allowed;
// a bare "Don't." waits too. A turn that adds ("a copy to bob too") or pastes addresses does not.
describe("a turn that names an address and asks for nothing", () => {
  test.each([
    "Sorry, I meant carol@x.example",
    "Correction: the recipient is carol@x.example",
    "Nope — carol@x.example",
    "Pardon, je voulais dire carol@x.example",
    "Sorry, ich meinte carol@x.example",
    "抱歉，我是说carol@x.example",
  ])("asks about the earlier recipient and the new one: %s", (second) => {
    const h = session(["Email the report to alice@x.example", second]);
    expect(mail(h, "alice@x.example")).not.toBe("allow");
    expect(mail(h, "carol@x.example")).toBe("ask");
  });
  test.each(["Don't.", "Wait, don't.", "On second thought, no.", "Belay that.", "Hold that thought."])(
    "a take-back alone waits: %s", (second) => {
      const h = session(["Email the report to alice@x.example", second]);
      expect(mail(h, "alice@x.example")).toBe("ask");
    });
  test("a pasted address in a later turn changes nothing", () => {
    const h = session(["Email the report to alice@x.example", "For context, their footer said:\n> billing@y.example"]);
    expect(mail(h, "alice@x.example")).toBe("allow");
  });
  test("a later turn that asks again runs", () => {
    const h = session(["Email the report to alice@x.example", "Don't.", "OK, send it to alice@x.example now"]);
    expect(mail(h, "alice@x.example")).toBe("allow");
  });
});
