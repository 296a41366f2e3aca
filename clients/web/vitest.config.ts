// Unit tests: components rendered from recorded views (test/fixtures) in happy-dom.
import { defineConfig } from "vitest/config";

export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  test: { include: ["test/**/*.test.{ts,tsx}"], environment: "happy-dom" },
});
