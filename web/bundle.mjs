// Builds the playground: one static page and one script holding the compiler, the shipped
// policy and fence.wasm (build it first), with browser stand-ins for the Node modules the
// compiler imports.
//   node web/bundle.mjs [OUTDIR]     (default build/playground)
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const outdir = process.argv[2] ?? join(here, "..", "build", "playground");
mkdirSync(outdir, { recursive: true });

await build({
  entryPoints: [join(here, "playground.ts")],
  bundle: true,
  platform: "browser",
  format: "iife",
  target: "es2022",
  outfile: join(outdir, "playground.js"),
  loader: { ".wasm": "binary", ".yaml": "text" },
  alias: {
    "node:fs": join(here, "shims", "fs.ts"),
    "node:crypto": join(here, "shims", "crypto.ts"),
    "node:url": join(here, "shims", "url.ts"),
    "node:path": "path-browserify",
  },
  inject: [join(here, "shims", "process.ts")],
  logOverride: { "empty-import-meta": "silent" },
  logLevel: "warning",
});
copyFileSync(join(here, "index.html"), join(outdir, "index.html"));
