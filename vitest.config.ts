import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // PGlite opens in seconds; files share one instance each, so give hooks room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Three files at a time on the 2-core CI machine (vitest's default there is one): most files
    // wait on PostgreSQL, child processes, browsers and timers, so more files than cores keep both
    // busy (two left them idle 22 % of the run: 1,199 s of files in 766 s on two).
    maxWorkers: 3,
  },
});
