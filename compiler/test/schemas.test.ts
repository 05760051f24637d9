// The JSON Schemas editors read are generated from the zod schemas (`npm run schemas`) and
// committed under policies/schema/, where the shipped policies name them: they must match what
// the zod schemas export now. (scripts/build.sh writes the package's copies to build/schema.)
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { schemaFiles } from "../schemas";

const root = path.resolve(__dirname, "../..");

describe("policies/schema", () => {
  it.each(Object.entries(schemaFiles()))("%s is up to date", (name, text) => {
    const committed = fs.readFileSync(path.join(root, "policies/schema", name), "utf8");
    expect(committed === text, `policies/schema/${name} is stale: run \`npm run schemas\``).toBe(true);
  });

  it("is named on the first line of every shipped policy and test file", () => {
    const files = [
      ...fs.readdirSync(path.join(root, "policies")).filter((f) => f.endsWith(".yaml")).map((f) => `policies/${f}`),
      ...fs.readdirSync(path.join(root, "policies/tests")).map((f) => `policies/tests/${f}`),
    ];
    expect(files.length).toBeGreaterThan(2);
    for (const file of files) {
      const schema = file.includes("/tests/") ? "../schema/policy-test.schema.json" : "schema/policy.schema.json";
      const first = fs.readFileSync(path.join(root, file), "utf8").split("\n")[0];
      expect(first, file).toBe(`# yaml-language-server: $schema=${schema}`);
      expect(fs.existsSync(path.join(root, path.dirname(file), schema)), file).toBe(true);
    }
  });
});
