// Bundles the compiler's command line into one dependency-free file:
//   node compiler/bundle.mjs [OUTFILE]     (default dist/agentsfence-compile.cjs)
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

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
  outfile: process.argv[2] ?? join(here, "..", "dist", "agentsfence-compile.cjs"),
  banner: { js: "#!/usr/bin/env node" },
  // load.ts reads import.meta.url only when __dirname is missing, which a CJS bundle never is.
  logOverride: { "empty-import-meta": "silent" },
  logLevel: "warning",
});

// The model's answer schema as JSON Schema, for the Python host (scripts/build.sh writes it).
await build({
  stdin: {
    contents: 'import { intentNarrowingJsonSchema } from "./intent-schema";\n' +
      'process.stdout.write(JSON.stringify(intentNarrowingJsonSchema(), null, 2) + "\\n");\n',
    resolveDir: here,
    sourcefile: "agentsfence-intent-schema.ts",
    loader: "ts",
  },
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  outfile: join(here, "..", "dist", "agentsfence-intent-schema.cjs"),
  logLevel: "warning",
});
