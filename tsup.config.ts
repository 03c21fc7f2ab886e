import { defineConfig } from "tsup";

// One build, shared chunks: the subpath entries import the same core module instances, so
// `instanceof ApiError` and the asset registry are never duplicated between entries.
export default defineConfig([
  {
    entry: {
      index: "src/index.ts",
      conformance: "src/conformance/index.ts",
      http: "adapters/http/index.ts",
      "adapters/memory": "adapters/memory/index.ts",
      "adapters/postgres": "adapters/postgres/index.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    splitting: true,
    sourcemap: true,
    clean: true,
    target: "node20",
    outDir: "dist",
  },
  {
    entry: { cli: "adapters/cli/main.ts" },
    format: ["esm"],
    sourcemap: true,
    target: "node20",
    outDir: "dist",
    banner: { js: "#!/usr/bin/env node" },
  },
]);
