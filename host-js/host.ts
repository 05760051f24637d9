// A JavaScript host for fence.wasm that follows the ABI of docs/bytecode.md §8: the input
// buffer, records with the memory-grew flag in bit 0, and the decision record of §8.1. The
// evaluator's tests, the cross-language vector runner, `agentsfence test` and the playground
// page drive the engine through it.

import { DECISION_HEAD_SIZE, DECISION_MOVES, DECISION_OPAQUE, DECISION_POSSIBLE, TARGET_PATTERN, TARGET_TREE } from "../bytecode/format";

export type Kind = "allow" | "block" | "ask" | "confine";

/** [subject, value], and third the entry's TARGET_PATTERN / TARGET_TREE bits when it has any (§8.1). */
export type Entry = [number, string] | [number, string, number];

export interface Decision {
  kind: Kind;
  reason: string;
  rule: string;
  capability: string;
  risk: string;
  message: string;
  /** The deciding rule's passing values (§8.1). */
  witness: Entry[];
  /** The call's targets as the evaluator made them (§8.1). */
  targets: Entry[];
  /** 0: nothing reserved. */
  reservation: number;
  /** An ask because a block rule held maybe (§5.4). */
  possible: boolean;
  /** An ask because a reader could not read all of the call (§8.1). */
  opaque: boolean;
  /** The ids of the warn rules that held. */
  warned: string[];
  /** If it runs, the call may leave the terminal in another working directory (§8.1). */
  moves: boolean;
}

export interface Budget {
  id: string;
  /** Calls, or for a budget of sums (`sums`) the cap's number, in `currency` when it names one. */
  limit: number;
  spent: number;
  reserved: number;
  sums?: true;
  currency?: string;
}

export interface Status {
  ok: boolean;
  text: string;
}

export interface Fence {
  readonly memory: WebAssembly.Memory;
  load(bytecode: Uint8Array): Status;
  /** `hermesHomes`: HERMES_HOME first, then the root whose profiles are homes too (§6.5); none: ~/.hermes. */
  configure(home: string, cwd: string, hermesHomes?: string[], flags?: number): Status;
  openSession(): number;
  closeSession(handle: number): boolean;
  intent(handle: number, message: string): Status;
  /** `tool` as bytes lets a test pass a name that is not UTF-8; `args` as a string or bytes is sent as is. */
  decide(handle: number, tool: string | Uint8Array, args: unknown): Decision;
  /** `schema`: the JSON schema of the tool's parameters, sent as JSON; none when omitted. */
  describe(tool: string, description: string, schema?: unknown, server?: string, annotations?: number): Status;
  derive(handle: number, tool: string, args: unknown, output: string): Status;
  narrow(handle: number, lines: string): Status;
  explain(handle: number, tool: string, args: unknown): Status;
  commit(handle: number, reservation: number): Status;
  release(handle: number, reservation: number): Status;
  budgets(handle: number): Budget[] | Status;
  restoreBudgets(handle: number, lines: string): Status;
  disasm(): string;
}

interface Exports {
  memory: WebAssembly.Memory;
  input(size: number): number;
  load(len: number): number;
  configure(homeLen: number, cwdLen: number, hermesLen: number, flags: number): number;
  session_open(): number;
  session_close(handle: number): number;
  intent(handle: number, len: number): number;
  decide(handle: number, nameLen: number, argsLen: number): number;
  describe(nameLen: number, textLen: number, schemaLen: number, serverLen: number, annotations: number): number;
  derive(handle: number, nameLen: number, argsLen: number, outputLen: number): number;
  narrow(handle: number, len: number): number;
  explain(handle: number, nameLen: number, argsLen: number): number;
  commit(handle: number, reservation: number): number;
  release(handle: number, reservation: number): number;
  budgets(handle: number): number;
  budget_restore(handle: number, len: number): number;
  disasm(): number;
}

const KINDS: Kind[] = ["allow", "block", "ask", "confine"];
const utf8 = new TextEncoder();
const text = new TextDecoder("utf-8", { fatal: true });

export function parseDecision(record: Uint8Array): Decision {
  const view = new DataView(record.buffer, record.byteOffset, record.byteLength);
  const kind = KINDS[record[0]];
  if (kind === undefined) throw new Error(`decision record has kind ${record[0]}`);
  const lengths = [record[1], view.getUint16(2, true), view.getUint16(4, true), record[6], view.getUint32(8, true)];
  const flags = record[7];
  if ((flags & ~(DECISION_POSSIBLE | DECISION_OPAQUE | DECISION_MOVES)) !== 0) throw new Error(`decision record: unknown flags ${flags}`);
  const fields: string[] = [];
  let at = DECISION_HEAD_SIZE;
  for (const n of lengths) {
    fields.push(text.decode(record.subarray(at, at + n)));
    at += n;
  }
  const witnessEnd = at + view.getUint32(12, true);
  const witness = subjectValues(record, view, at, witnessEnd);
  const warnedEnd = witnessEnd + view.getUint32(20, true);
  const warned: string[] = [];
  for (let w = witnessEnd; w < warnedEnd;) {
    const n = view.getUint16(w, true);
    warned.push(text.decode(record.subarray(w + 2, w + 2 + n)));
    w += 2 + n;
  }
  const targets = subjectValues(record, view, warnedEnd, record.length); // the targets run to the record's end
  const [reason, rule, capability, risk, message] = fields;
  return {
    kind, reason, rule, capability, risk, message, witness, targets, reservation: view.getUint32(16, true),
    possible: (flags & DECISION_POSSIBLE) !== 0, opaque: (flags & DECISION_OPAQUE) !== 0, warned,
    moves: (flags & DECISION_MOVES) !== 0,
  };
}

// Entries `u8 subject, u32 length, bytes` from `at` to exactly `end` (§8.1: witness, targets).
function subjectValues(record: Uint8Array, view: DataView, at: number, end: number): Entry[] {
  const values: Entry[] = [];
  while (at < end) {
    const n = view.getUint32(at + 1, true);
    const value = text.decode(record.subarray(at + 5, at + 5 + n));
    const flags = record[at] & (TARGET_PATTERN | TARGET_TREE);
    const subject = record[at] & ~flags;
    values.push(flags !== 0 ? [subject, value, flags] : [subject, value]);
    at += 5 + n;
  }
  if (at !== end) throw new Error(`decision record is ${record.length} bytes, its entries end at ${at}`);
  return values;
}

function parseBudgets(record: Uint8Array): Budget[] | Status {
  if (record[0] !== 0) return status(record);
  return text.decode(record.subarray(1)).split("\n").filter((l) => l).map((line) => {
    const [id, limit, spent, reserved, kind] = line.split("\t");
    if (kind !== "sum") return { id, limit: Number(limit), spent: Number(spent), reserved: Number(reserved) };
    const [cap, currency] = limit.split(" ");
    return { id, limit: Number(cap), spent: Number(spent), reserved: Number(reserved), sums: true, ...(currency ? { currency } : {}) };
  });
}

function status(record: Uint8Array): Status {
  return { ok: record[0] === 0, text: text.decode(record.subarray(1)) };
}

/** Instantiates fence.wasm (it must have no imports) and wraps its exports. A browser passes
 * the compiled module: its main thread may not compile a module this size synchronously. */
export function loadFence(wasm: BufferSource | WebAssembly.Module): Fence {
  const module = wasm instanceof WebAssembly.Module ? wasm : new WebAssembly.Module(wasm);
  const instance = new WebAssembly.Instance(module, {});
  const x = instance.exports as unknown as Exports;
  let bytes = new Uint8Array(x.memory.buffer);

  // Bit 0 of an answer says memory grew: only then may the cached view be replaced. A view
  // that went stale without the flag is an engine fault, and the host says so.
  const refresh = (answer: number): number => {
    if (answer & 1) bytes = new Uint8Array(x.memory.buffer);
    else if (bytes.byteLength === 0) throw new Error("memory grew but the answer did not say so");
    return answer & ~1;
  };

  const put = (...parts: Uint8Array[]): number[] => {
    const total = parts.reduce((n, p) => n + p.length, 0);
    const answer = x.input(total);
    if (answer === 0) throw new Error(`input(${total}) refused`);
    let at = refresh(answer);
    for (const p of parts) {
      bytes.set(p, at);
      at += p.length;
    }
    return parts.map((p) => p.length);
  };

  const record = (answer: number): Uint8Array => {
    const at = refresh(answer >>> 0);
    const len = new DataView(bytes.buffer).getUint32(at, true);
    return bytes.slice(at + 4, at + 4 + len);
  };

  return {
    memory: x.memory,
    load(bytecode) {
      const [n] = put(bytecode);
      return status(record(x.load(n)));
    },
    configure(home, cwd, hermesHomes = [], flags = 0) {
      const [h, c, hh] = put(utf8.encode(home), utf8.encode(cwd), utf8.encode(hermesHomes.join("\n")));
      return status(record(x.configure(h, c, hh, flags)));
    },
    openSession: () => x.session_open(),
    closeSession: (handle) => x.session_close(handle) === 1,
    intent(handle, message) {
      const [n] = put(utf8.encode(message));
      return status(record(x.intent(handle, n)));
    },
    decide(handle, tool, args) {
      const json = typeof args === "string" ? utf8.encode(args) : args instanceof Uint8Array ? args : utf8.encode(JSON.stringify(args));
      const name = typeof tool === "string" ? utf8.encode(tool) : tool;
      const [n, a] = put(name, json);
      return parseDecision(record(x.decide(handle, n, a)));
    },
    describe(tool, description, schema, server = "", annotations = 0) {
      const json = schema === undefined ? new Uint8Array() : utf8.encode(JSON.stringify(schema));
      const [n, d, s, v] = put(utf8.encode(tool), utf8.encode(description), json, utf8.encode(server));
      return status(record(x.describe(n, d, s, v, annotations)));
    },
    narrow(handle, lines) {
      const [n] = put(utf8.encode(lines));
      return status(record(x.narrow(handle, n)));
    },
    derive(handle, tool, args, output) {
      const [n, a, o] = put(utf8.encode(tool), utf8.encode(JSON.stringify(args)), utf8.encode(output));
      return status(record(x.derive(handle, n, a, o)));
    },
    explain(handle, tool, args) {
      const [n, a] = put(utf8.encode(tool), utf8.encode(JSON.stringify(args)));
      return status(record(x.explain(handle, n, a)));
    },
    commit: (handle, reservation) => status(record(x.commit(handle, reservation))),
    release: (handle, reservation) => status(record(x.release(handle, reservation))),
    budgets: (handle) => parseBudgets(record(x.budgets(handle))),
    restoreBudgets(handle, lines) {
      const [n] = put(utf8.encode(lines));
      return status(record(x.budget_restore(handle, n)));
    },
    disasm: () => text.decode(record(x.disasm())),
  };
}
