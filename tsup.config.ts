import { defineConfig } from "tsup";

// One ESM build with shared chunks: every subpath entry and the CLI import the same core module
// instances, so `instanceof ApiError` and the asset registry are never duplicated between entries.
// No CommonJS copy: on Node >= 20.19 `require("payrail")` loads this same ESM build
// (require(esm)), so a host mixing `require` and `import` still gets one engine
// (docs/decisions.md, "ESM only").
const library = {
  index: "src/index.ts",
  ports: "src/ports/public.ts",
  conformance: "src/conformance/index.ts",
  http: "adapters/http/index.ts",
  console: "adapters/console/index.ts",
  dev: "adapters/dev/index.ts",
  "adapters/clock": "adapters/clock/index.ts",
  "adapters/delivery": "adapters/delivery/index.ts",
  "adapters/memory": "adapters/memory/index.ts",
  "adapters/postgres": "adapters/postgres/index.ts",
  "adapters/evm": "adapters/chains/evm/index.ts",
  "adapters/solana": "adapters/chains/solana/index.ts",
  "adapters/uniswap-v2": "adapters/venues/uniswap-v2/index.ts",
  "adapters/blobs": "adapters/blobs/index.ts",
  "adapters/s3": "adapters/s3/index.ts",
  "adapters/prometheus": "adapters/prometheus/index.ts",
  "adapters/logging": "adapters/logging/index.ts",
  "adapters/otel": "adapters/otel/index.ts",
};

export default defineConfig({
  // the CLI (bin/payrail.mjs imports dist/cli.js) shares the library's chunks; it has no types;
  // the PGlite thread's script (openPGlite with `thread`) is found by its path beside the chunks
  entry: { ...library, cli: "adapters/cli/main.ts", "pglite-worker": "adapters/postgres/pglite-worker.mjs" },
  format: ["esm"],
  dts: { entry: library },
  splitting: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  outDir: "dist",
});
