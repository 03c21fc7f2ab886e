#!/usr/bin/env node
// The `payrail` binary. In a checkout of the repository it runs the TypeScript sources through
// tsx (so `npx payrail` works before any build and never runs a stale one); an installed
// package has no sources and runs its build.
import { existsSync } from "node:fs";

const sources = new URL("../adapters/cli/main.ts", import.meta.url);
let tsx = null;
if (existsSync(sources)) tsx = await import("tsx/esm/api").catch(() => null);
if (tsx) {
  tsx.register();
  await import(sources.href);
} else {
  await import(new URL("../dist/cli.js", import.meta.url).href);
}
