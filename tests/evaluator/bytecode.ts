// Bytecode for the tests: policies compiled from YAML by the compiler's API, and the few
// reads and writes of docs/bytecode.md §2 that mutation tests need.
import { createHash } from "node:crypto";
import { compilePolicy } from "../../compiler/index";
import { DIR_ENTRY_SIZE, HASH_OFFSET, HEADER_SIZE, SECTION_COUNT } from "../../bytecode/format";

export function compileYaml(yaml: string, file = "test.yaml"): Uint8Array {
  const result = compilePolicy([{ path: file, text: yaml }]);
  if (!result.ok) throw new Error(result.errors.map((e) => JSON.stringify(e)).join("\n"));
  return result.bytes;
}

export function u32(bytes: Uint8Array, at: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(at, true);
}

export function setU32(bytes: Uint8Array, at: number, v: number): void {
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(at, v >>> 0, true);
}

/** File offset of section `kind`'s first byte. */
export function sectionAt(bytes: Uint8Array, kind: number): number {
  return u32(bytes, HEADER_SIZE + (kind - 1) * DIR_ENTRY_SIZE + 4);
}

export function sectionLength(bytes: Uint8Array, kind: number): number {
  return u32(bytes, HEADER_SIZE + (kind - 1) * DIR_ENTRY_SIZE + 8);
}

/** Stores the SHA-256 of the file (hash field zeroed) in its header, as the compiler does. */
export function rehash(bytes: Uint8Array): Uint8Array {
  bytes.fill(0, HASH_OFFSET, HASH_OFFSET + 32);
  bytes.set(createHash("sha256").update(bytes).digest(), HASH_OFFSET);
  return bytes;
}

export { SECTION_COUNT };
