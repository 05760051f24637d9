// Bundles the compiler's command line into one dependency-free file, and the writer of the
// JSON Schemas beside it:
//   node compiler/bundle.mjs [OUTFILE]     (default dist/agentsfence-compile.cjs)
//   node dist/write-schemas.cjs DIR        (`npm run schemas`, scripts/build.sh)
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const outfile = process.argv[2] ?? join(here, "..", "dist", "agentsfence-compile.cjs");

await build({
  // The entry runs the CLI; cli.ts itself only exports it, so tests can import it.
  stdin: {
    contents: 'import { runCli } from "./cli";\nprocess.exitCode = runCli(process.argv.slice(2));\n',
    resolveDir: here,
    sourcefile: "agentsfence-compile.ts",
    loader: "ts",
  },
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  outfile,
  banner: { js: "#!/usr/bin/env node" },
  // load.ts reads import.meta.url only when __dirname is missing, which a CJS bundle never is.
  logOverride: { "empty-import-meta": "silent" },
  logLevel: "warning",
});

await build({
  stdin: {
    contents: [
      'import * as fs from "node:fs";',
      'import * as path from "node:path";',
      'import { schemaFiles } from "./schemas";',
      "const dir = process.argv[2];",
      "fs.mkdirSync(dir, { recursive: true });",
      "for (const [name, text] of Object.entries(schemaFiles())) fs.writeFileSync(path.join(dir, name), text);",
    ].join("\n"),
    resolveDir: here,
    sourcefile: "write-schemas.ts",
    loader: "ts",
  },
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  outfile: join(dirname(outfile), "write-schemas.cjs"),
  logLevel: "warning",
});
