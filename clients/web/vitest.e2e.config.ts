// End-to-end tests: real headless Chromium (Debian's /usr/bin/chromium through playwright-core)
// against the real server behind Envoy, started once by e2e/setup.ts (scripts/web.py).
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["e2e/**/*.test.ts"],
    environment: "node",
    globalSetup: ["e2e/setup.ts"],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 180_000,
  },
});
