// Vite builds the page into dist/ (make web serves it behind Envoy). Preact's JSX runtime is
// selected in tsconfig.json (jsxImportSource), which esbuild reads; no plugin is needed.
import { defineConfig } from "vite";

export default defineConfig({
  base: "./",
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1000 },
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
});
