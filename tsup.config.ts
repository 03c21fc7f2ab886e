import { defineConfig } from "tsup";

// One build, shared chunks: the subpath entries import the same core module instances, so
// `instanceof ApiError` and the asset registry are never duplicated between entries.
export default defineConfig([
  {
    entry: {
      index: "src/index.ts",
      ports: "src/ports/public.ts",
      conformance: "src/conformance/index.ts",
      http: "adapters/http/index.ts",
      dev: "adapters/dev/index.ts",
      "adapters/clock": "adapters/clock/index.ts",
      "adapters/delivery": "adapters/delivery/index.ts",
      "adapters/memory": "adapters/memory/index.ts",
      "adapters/postgres": "adapters/postgres/index.ts",
      "adapters/evm": "adapters/chains/evm/index.ts",
      "adapters/uniswap-v2": "adapters/venues/uniswap-v2/index.ts",
      "adapters/blobs": "adapters/blobs/index.ts",
      "adapters/s3": "adapters/s3/index.ts",
      "adapters/prometheus": "adapters/prometheus/index.ts",
      "adapters/logging": "adapters/logging/index.ts",
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
