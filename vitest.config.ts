import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // PGlite opens in seconds; files share one instance each, so give hooks room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two files at a time on the 2-core CI machine (vitest's default there is one): most files
    // wait on PostgreSQL, child processes and timers, so a second one fills the idle core.
    maxWorkers: 2,
  },
});
