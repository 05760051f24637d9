import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["compiler/test/**/*.test.ts", "tests/**/*.test.ts"],
    testTimeout: 60000,
  },
});
