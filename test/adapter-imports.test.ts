import { readdir, readFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(__dirname, "..");

/** The host (the HTTP binding and the CLI) composes the engine itself; every other adapter is one an outside author could write. */
const HOST = ["adapters/http/", "adapters/cli/"];

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sources(path)));
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

describe("adapters reach the core only through its public entries", () => {
  it("imports nothing of src/ but src/ports/public.ts (payrail/ports) and src/index.ts (payrail), outside the host", async () => {
    const offending: string[] = [];
    for (const file of await sources(join(root, "adapters"))) {
      const path = relative(root, file);
      if (HOST.some((h) => path.startsWith(h))) continue;
      const text = await readFile(file, "utf8");
      for (const [, target] of text.matchAll(/from "((?:\.\.\/)+src\/[^"]*)"/g)) {
        const resolved = relative(root, resolve(file, "..", target!));
        if (resolved !== "src/ports/public" && resolved !== "src/index") offending.push(`${path}: ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
