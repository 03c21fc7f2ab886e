/**
 * The house rules of the import graph (docs/architecture.md), checked by
 * test/house-rules.test.ts with dependency-cruiser's API (its CLI wants Node 22; the API runs on 20).
 */
module.exports = {
  forbidden: [
    {
      name: "core-not-to-adapters",
      comment: "src/ is the core: it never imports an adapter (adapters import the core's public entries)",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^adapters/" },
    },
    {
      name: "engine-not-to-resources",
      comment: "src/engine/ is the kernel: it knows modules only through the ResourceModule seam, never a resource",
      severity: "error",
      from: { path: "^src/engine/" },
      to: { path: "^src/resources/" },
    },
    {
      name: "adapters-through-public-entries",
      comment:
        "an adapter is one an outside author could write: it reaches the core only through payrail/ports (src/ports/public.ts) " +
        "and payrail (src/index.ts); the host (adapters/http, adapters/cli) composes the engine and may reach further",
      severity: "error",
      from: { path: "^adapters/", pathNot: "^adapters/(http|cli|console)/" },
      to: { path: "^src/", pathNot: "^src/(ports/public|index)\\.ts$" },
    },
    {
      name: "no-runtime-cycles",
      comment: "no import loop that exists at run time (a loop through a type-only import is erased by the compiler)",
      severity: "error",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|dist|test/openapi)" },
  },
};
