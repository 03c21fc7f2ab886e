import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // PGlite opens in seconds; files share one instance each, so give hooks room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
