// The release fence.wasm for the tests: build/fence.wasm, rebuilt first when it is missing or
// older than a source under assembly/ or bytecode/ or the asc transforms (written beside and renamed, so
// parallel test files never read half a file).
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const root = path.resolve(__dirname, "../..");
const wasmPath = path.join(root, "build/fence.wasm");

// Every .ts under assembly/ (its folders, the as-pect specs with them: cheap to over-count) and
// bytecode/.
function sourcesIn(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts")).map((f) => path.join(dir, f));
}

function newestSource(): number {
  const sources = [...sourcesIn(path.join(root, "assembly")), ...sourcesIn(path.join(root, "bytecode"))];
  return Math.max(...[...sources, path.join(root, "scripts/text-transform.mjs"), path.join(root, "scripts/optimize-twice.mjs")].map((f) => fs.statSync(f).mtimeMs));
}

export function fenceWasm(): Uint8Array<ArrayBuffer> {
  const built = fs.existsSync(wasmPath) ? fs.statSync(wasmPath).mtimeMs : 0;
  if (built < newestSource()) {
    const tmp = path.join(root, `build/fence.${process.pid}.wasm`);
    execFileSync("npx", ["asc", "assembly/abi/index.ts", "--config", path.join(root, "asconfig.json"), "--target", "release", "-o", tmp], { cwd: root, stdio: "pipe" });
    fs.renameSync(tmp, wasmPath);
  }
  return new Uint8Array(fs.readFileSync(wasmPath));
}
