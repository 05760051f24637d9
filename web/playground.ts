// The policy playground: the compiler and fence.wasm, both in the page. Edit a policy, type
// the user's message, try a tool call: the page compiles the policy, binds the message in a
// fresh session and shows the decision with fence.wasm's trace (its `explain` export).
import { loadFence, type Decision, type Fence } from "../host-js/host";
import wasmBytes from "../build/fence.wasm";
import { compilePolicy, formatDiagnostic } from "../compiler/index";
import defaultsText from "../policies/defaults.yaml";
import { addFile } from "./shims/fs";

const DEFAULTS_PATH = "/policies/defaults.yaml";
const POLICY_PATH = "policy.yaml";
const ENV = { home: "/home/user", cwd: "/home/user/project" };

addFile(DEFAULTS_PATH, defaultsText);

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`the page has no #${id}`);
  return found as T;
}

const ui = {
  policy: element<HTMLTextAreaElement>("policy"),
  message: element<HTMLTextAreaElement>("message"),
  tool: element<HTMLInputElement>("tool"),
  args: element<HTMLTextAreaElement>("args"),
  decide: element<HTMLButtonElement>("decide"),
  diagnostics: element<HTMLUListElement>("diagnostics"),
  status: element<HTMLParagraphElement>("policy-status"),
  decision: element<HTMLDivElement>("decision"),
  intent: element<HTMLUListElement>("intent"),
  trace: element<HTMLTableSectionElement>("trace"),
  history: element<HTMLOListElement>("history"),
};

let fence: Fence | undefined;
let compiledText: string | undefined; // the policy text `fence` (or the last error list) is of

function listItems(list: HTMLElement, lines: string[], className = ""): void {
  list.replaceChildren(
    ...lines.map((line) => {
      const item = document.createElement("li");
      item.textContent = line;
      if (className) item.className = className;
      return item;
    }),
  );
}

/** Compiles the policy in the editor and installs it in a new evaluator; false on errors. */
function compile(module: WebAssembly.Module): boolean {
  if (ui.policy.value === compiledText) return fence !== undefined;
  compiledText = ui.policy.value;
  const result = compilePolicy([{ path: POLICY_PATH, text: ui.policy.value }], { defaultsPath: DEFAULTS_PATH });
  const lines = [
    ...(result.ok ? [] : result.errors.map((d) => `error: ${formatDiagnostic(d)}`)),
    ...result.warnings.map((d) => `warning: ${formatDiagnostic(d)}`),
  ];
  listItems(ui.diagnostics, lines);
  if (!result.ok) {
    fence = undefined;
    ui.status.textContent = `The policy has ${result.errors.length} error${result.errors.length === 1 ? "" : "s"}.`;
    ui.status.dataset.state = "error";
    return false;
  }
  const next = loadFence(module);
  const loaded = next.load(result.bytes);
  const configured = next.configure(ENV.home, ENV.cwd);
  if (!loaded.ok || !configured.ok) {
    fence = undefined;
    ui.status.textContent = `fence.wasm refused the policy: ${loaded.ok ? configured.text : loaded.text}`;
    ui.status.dataset.state = "error";
    return false;
  }
  fence = next;
  ui.status.textContent = `Policy ${result.ir.name}: ${result.bytes.length} bytes, sha256 ${result.hash.slice(0, 12)}…`;
  ui.status.dataset.state = "ok";
  return true;
}

function showDecision(decision: Decision, tool: string): void {
  ui.decision.dataset.kind = decision.kind;
  const head = document.createElement("strong");
  head.textContent = decision.kind.toUpperCase();
  const detail = document.createElement("span");
  detail.textContent = ` ${decision.reason}${decision.rule ? ` by rule ${decision.rule}` : ""} (${decision.capability || "?"}, ${decision.risk || "?"})`;
  const message = document.createElement("p");
  message.textContent = decision.message;
  ui.decision.replaceChildren(head, detail, message);
  const item = document.createElement("li");
  item.textContent = `${decision.kind} ${tool} [${decision.reason}]`;
  item.dataset.kind = decision.kind;
  ui.history.prepend(item);
}

// The explain record's lines (docs/bytecode.md §8): class, test and decide rows.
function showTrace(text: string): void {
  ui.trace.replaceChildren(
    ...text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => {
        const row = document.createElement("tr");
        for (const cell of line.split("\t")) {
          const td = document.createElement("td");
          td.textContent = cell;
          row.append(td);
        }
        return row;
      }),
  );
}

function decide(): void {
  if (fence === undefined) {
    ui.decision.dataset.kind = "error";
    ui.decision.textContent = "Fix the policy's errors first.";
    return;
  }
  let args: unknown;
  try {
    args = JSON.parse(ui.args.value);
  } catch (e) {
    ui.decision.dataset.kind = "error";
    ui.decision.textContent = `The arguments are not JSON: ${(e as Error).message}`;
    return;
  }
  const tool = ui.tool.value.trim();
  const session = fence.openSession();
  try {
    const message = ui.message.value.trim();
    const bound = message ? fence.intent(session, message) : { ok: true, text: "" };
    listItems(ui.intent, bound.ok ? bound.text.split("\n").filter((l) => l !== "").map((l) => l.replace(/\t/g, "  ")) : [`error: ${bound.text}`]);
    if (ui.intent.childElementCount === 0) listItems(ui.intent, ["nothing named, no verb read"]);
    showTrace(fence.explain(session, tool, args).text);
    showDecision(fence.decide(session, tool, JSON.stringify(args)), tool);
  } finally {
    fence.closeSession(session);
  }
}

async function start(): Promise<void> {
  // The main thread may not compile a module this size synchronously.
  const module = await WebAssembly.compile(wasmBytes as BufferSource);
  let timer: number | undefined;
  ui.policy.addEventListener("input", () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => compile(module), 300);
  });
  ui.decide.addEventListener("click", () => {
    compile(module);
    decide();
  });
  compile(module);
  document.body.dataset.ready = "true";
}

start().catch((e: Error) => {
  ui.status.textContent = `The playground could not start: ${e.message}`;
  ui.status.dataset.state = "error";
});
