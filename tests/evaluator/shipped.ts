// The release fence.wasm with the shipped policy loaded (build/policies/defaults.afb, which the
// build writes from policies/defaults.yaml): what the tests of how the shipped policy reads a
// request decide with.
import * as fs from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";
import { type Fence, loadFence } from "../../host-js/host";
import { fenceWasm } from "./wasm";

const defaults = path.resolve(__dirname, "../../build/policies/defaults.afb");

export async function shippedFence(): Promise<Fence> {
  const fence = await loadFence(fenceWasm());
  expect(fence.load(new Uint8Array(fs.readFileSync(defaults))).ok).toBe(true);
  return fence;
}

// The kind of one call's decision in a fresh session bound to the request's turns.
export function decidedKind(fence: Fence, turns: string | readonly string[], tool: string, args: object): string {
  const h = fence.openSession();
  for (const turn of typeof turns === "string" ? [turns] : turns) fence.intent(h, turn);
  const kind = fence.decide(h, tool, args).kind;
  fence.closeSession(h);
  return kind;
}
