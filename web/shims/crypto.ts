// node:crypto's createHash("sha256") for the compiler in the browser (emit.ts hashes the
// bytecode synchronously; the browser's own digest is asynchronous).
import { sha256 } from "@noble/hashes/sha2.js";

class Digest extends Uint8Array {
  override toString(encoding?: string): string {
    if (encoding !== "hex") return super.toString();
    return Array.from(this, (b) => b.toString(16).padStart(2, "0")).join("");
  }
}

export function createHash(algorithm: string) {
  if (algorithm !== "sha256") throw new Error(`the playground hashes only sha256, not ${algorithm}`);
  let input = new Uint8Array(0);
  const hash = {
    update(bytes: Uint8Array) {
      const joined = new Uint8Array(input.length + bytes.length);
      joined.set(input);
      joined.set(bytes, input.length);
      input = joined;
      return hash;
    },
    digest: () => new Digest(sha256(input)),
  };
  return hash;
}
