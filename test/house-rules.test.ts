import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { cruise } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

/**
 * The house rules of the import graph (`.dependency-cruiser.cjs`, docs/architecture.md), checked
 * with dependency-cruiser over src/ and adapters/: the core never imports an adapter, the
 * kernel never imports a resource, an adapter outside the host reaches the core only through its
 * public entries, and no import loop exists at run time. (Its CLI wants Node 22; its API runs here.)
 */
const ROOT = resolve(__dirname, "..");
const config = createRequire(__filename)(resolve(ROOT, ".dependency-cruiser.cjs"));

describe("the import graph", () => {
  it("keeps the house rules", async () => {
    const previous = process.cwd();
    process.chdir(ROOT);
    try {
      const result = await cruise(["src", "adapters"], { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } }, undefined, {
        tsConfig: { fileName: "tsconfig.json" },
      });
      if (typeof result.output === "string") throw new Error(result.output);
      const { summary } = result.output;
      const violations = summary.violations.map(
        (v) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle?.length ? ` (${v.cycle.map((c) => (typeof c === "string" ? c : c.name)).join(" > ")})` : ""}`,
      );
      expect(violations).toEqual([]);
      expect(summary.totalCruised).toBeGreaterThan(200);
    } finally {
      process.chdir(previous);
    }
  }, 120_000);
});

describe("the core storage port", () => {
  it("names no chain family: what a chain adapter keeps goes through the adapter-state seam", () => {
    const files = [
      ...readdirSync(resolve(ROOT, "src/ports/storage")).map((f) => `src/ports/storage/${f}`),
      "src/ports/adapter-state.ts",
      "src/ports/state-keys.ts",
    ];
    const words = /\b(evm|ethereum|solana|bitcoin|utxo|nonces?|sweeps?|erc-?20|spl|blockhash)\b/i;
    const found = files.flatMap((file) =>
      readFileSync(resolve(ROOT, file), "utf8")
        .split("\n")
        .flatMap((line, i) => (words.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});

describe("optional peers", () => {
  it("only payrail/adapters/otel imports @opentelemetry: a host without it installs and runs unchanged", () => {
    const files = (dir: string): string[] =>
      readdirSync(resolve(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(`${dir}/${e.name}`) : e.name.endsWith(".ts") ? [`${dir}/${e.name}`] : [],
      );
    const importing = [...files("src"), ...files("adapters")].filter((file) =>
      /from\s+["']@opentelemetry\/|import\s*\(?\s*["']@opentelemetry\//.test(readFileSync(resolve(ROOT, file), "utf8")),
    );
    expect(importing.length).toBeGreaterThan(0);
    expect(importing.filter((file) => !file.startsWith("adapters/otel/"))).toEqual([]);
  });
});

describe("citations", () => {
  /** The repository's own text files (what `git ls-files` would list, less dependencies and builds). */
  const texts = (dir: string): string[] =>
    readdirSync(resolve(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
      if (e.name.startsWith(".") && e.name !== ".ci") return [];
      if (["node_modules", "dist", "coverage"].includes(e.name)) return [];
      const path = dir === "." ? e.name : `${dir}/${e.name}`;
      return e.isDirectory() ? texts(path) : /\.(ts|md|cjs|mjs|js|json|yaml|sh)$|^run$/.test(e.name) ? [path] : [];
    });

  it("cite the repository's own pages: docs/decisions.md, never a file outside it that a user never sees", () => {
    const outside = texts(".").filter((file) => /DECISIONS\.md|\.\.\/shared\b/.test(readFileSync(resolve(ROOT, file), "utf8")));
    expect(outside).toEqual([]);
  });

  it("every section of the contract cited (docs/decisions.md §N) is one the page has", () => {
    const page = readFileSync(resolve(ROOT, "docs/decisions.md"), "utf8");
    const sections = new Set([...page.matchAll(/^## (\d+)\. /gm)].map((m) => m[1]));
    expect([...sections].sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 12 }, (_, i) => String(i + 1)));
    const cited = new Set<string>();
    for (const file of texts(".")) {
      for (const m of readFileSync(resolve(ROOT, file), "utf8").matchAll(/decisions\.md §(\d+)|decisions\.md#(\d+)-/g)) cited.add(m[1] ?? m[2]!);
    }
    expect(cited.size).toBeGreaterThan(10);
    expect([...cited].filter((n) => !sections.has(n))).toEqual([]);
  });
});
