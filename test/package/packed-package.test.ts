import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readmeInstallCommands } from "./readme-install";

const root = resolve(__dirname, "../..");
const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string; exports: Record<string, unknown> };
const SUBPATHS = Object.keys(pkg.exports)
  .filter((k) => k !== "./package.json")
  .map((k) => (k === "." ? "payrail" : `payrail/${k.slice(2)}`));

async function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  return promisify(execFile)(file, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
}

/** The environment of a user's shell: none of this repository's test settings. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { DATABASE_URL: _db, NODE_OPTIONS: _opts, VITEST: _v, VITEST_POOL_ID: _p, VITEST_WORKER_ID: _w, NODE_ENV: _n, ...rest } = process.env;
  return { ...rest, ...extra };
}

/**
 * A host embedding payrail as a package user would: it imports the installed package (through its
 * exports) and nothing else of this repository, under `tsc --strict`.
 */
const HOST = `
import { createEngine, type CreatePayoutInput, type PayoutObject } from "payrail";
import { devPorts, ManualClock } from "payrail/dev";
import { createMemoryStorage } from "payrail/adapters/memory";
import { createHttpApp } from "payrail/http";

export async function main(): Promise<{ listed: PayoutObject[]; status: number }> {
  const engine = await createEngine({ storage: createMemoryStorage(), ...devPorts({ clock: new ManualClock() }) });
  try {
    const account = await engine.accounts.create({ name: "Acme" });
    const ctx = await engine.accounts.context(account.id);
    await engine.testHelpers.fund(ctx, { asset: "USDC", chain: "base", amount: "100" });
    const recipient = await engine.recipients.create(ctx, {
      name: "Ada",
      chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" },
    });
    if (recipient.isErr()) throw recipient.error;
    const input: CreatePayoutInput = { PAYOUT_FIELDS, recipient: recipient.value.id };
    const payout = await engine.payouts.create(ctx, input);
    if (payout.isErr()) throw payout.error;
    const listed: PayoutObject[] = [];
    for await (const p of engine.payouts.list(ctx, { limit: 1 })) listed.push(p);
    const key = await engine.accounts.createApiKey(account.id, { scopes: ["payouts:read"] });
    if (key.isErr()) throw key.error;
    const app = createHttpApp(engine);
    const res = await app.request("/v1/payouts/" + payout.value.id, { headers: { authorization: "Bearer " + key.value.key } });
    return { listed, status: res.status };
  } finally {
    await engine.close();
  }
}
`;

/**
 * An adapter written outside this package: it imports the ports and their helpers from
 * `payrail/ports` only, and keeps its state through the adapter-state seam of whatever storage it
 * is given (here the memory storage of `payrail/adapters/memory`).
 */
const OUTSIDE_ADAPTER = `
import { decodeCounter, encodeSortableUint, type AdapterStateStore, type StorageAdapter } from "payrail/ports";
import { createMemoryStorage } from "payrail/adapters/memory";

/** Transfers by id, once each, numbered, and listed by height through an index key. */
class TransferBook {
  private readonly state: AdapterStateStore;
  constructor(storage: StorageAdapter) {
    this.state = storage.adapterState("toy-chain");
  }
  record(id: string, height: number, amount: bigint): Promise<unknown> {
    return this.state.transaction(async (tx) => {
      const key = "transfer/" + id;
      const answer = (await tx.insert([[key, { height, amount: amount.toString() }]])).get(key)!;
      if (answer.inserted) {
        await tx.increment([["count", 1n]]);
        await tx.put([["by-height/" + encodeSortableUint(height) + "/" + id, id]]);
      }
      return answer.value;
    });
  }
  since(height: number): Promise<{ ids: string[]; count: bigint }> {
    return this.state.transaction(async (tx) => ({
      ids: (await tx.list({ prefix: "by-height/", from: "by-height/" + encodeSortableUint(height) })).map((e) => e.value as string),
      count: decodeCounter((await tx.get(["count"])).get("count")),
    }));
  }
}

export async function main(): Promise<{ ids: string[]; count: bigint; first: unknown }> {
  const storage = createMemoryStorage();
  await storage.init();
  const book = new TransferBook(storage);
  const first = await book.record("b", 10, 5n);
  await book.record("a", 9, 1n);
  await book.record("c", 100, 2n);
  await book.record("b", 11, 7n); // the same transfer again: the first record stands
  return { ...(await book.since(10)), first };
}
`;

/** What the root entry exports, and nothing more. */
const ROOT_EXPORTS = [
  "AdapterError",
  "ApiError",
  "DEFAULT_MODULES",
  "ERROR_CATALOGUE",
  "Engine",
  "FULL_ACCESS",
  "SIGNATURE_TOLERANCE_SECONDS",
  "StorageUnavailableError",
  "accountsModule",
  "apiKeysModule",
  "auditLogModule",
  "balancesModule",
  "createEngine",
  "defineEvent",
  "defineModule",
  "eventsModule",
  "ledgerEntriesModule",
  "limitOrdersModule",
  "operations",
  "paymentIntentsModule",
  "payoutsModule",
  "quotesModule",
  "recipientsModule",
  "reportsModule",
  "signatureHeader",
  "swapsModule",
  "testHelpersModule",
  "verifyWebhookSignature",
  "webhooksModule",
  "work",
];

function compile(dir: string, file: string, resolution: "bundler" | "node16"): ts.Diagnostic[] {
  const node16 = resolution === "node16";
  const program = ts.createProgram([join(dir, file)], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: node16 ? ts.ModuleKind.Node16 : ts.ModuleKind.ESNext,
    moduleResolution: node16 ? ts.ModuleResolutionKind.Node16 : ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    types: [],
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
  });
  return [...ts.getPreEmitDiagnostics(program)];
}

const messages = (diagnostics: ts.Diagnostic[]) => diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));

/**
 * The package as a host gets it: `npm pack` (its `prepack` builds), then the README's install
 * section run as written in an empty project outside the repository, with the tarball in place
 * of `payrail`. Everything below uses that project's `node_modules` only.
 */
describe("the packed package, installed as the README says", () => {
  let dir: string;
  let project: string;
  let tarball: string;
  let commands: string[];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "payrail-pack-"));
    await run("npm", ["pack", "--pack-destination", dir, "--loglevel=error"], root, userEnv());
    tarball = join(dir, (await readdir(dir)).find((f) => f.endsWith(".tgz"))!);
    project = join(dir, "host");
    await run("mkdir", ["-p", project], dir);
    await writeFile(join(project, "package.json"), JSON.stringify({ name: "host", private: true, type: "module" }));
    commands = readmeInstallCommands(await readFile(join(root, "README.md"), "utf8"));
    for (const line of commands.filter((c) => c.startsWith("npm install "))) {
      const args = line
        .split(/\s+/)
        .slice(1)
        .map((a) => (a === "payrail" ? tarball : a));
      await run("npm", [...args, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], project, userEnv());
    }
    await writeFile(join(project, "host.ts"), HOST.replace("PAYOUT_FIELDS", 'amount: "10", asset: "USDC"'));
    await writeFile(join(project, "misspelt.ts"), HOST.replace("PAYOUT_FIELDS", 'ammount: "10", asset: "USDC"'));
    await writeFile(join(project, "outside-adapter.ts"), OUTSIDE_ADAPTER);
  }, 600_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("the README's install section installs the package and what its subpaths and `payrail serve` use", () => {
    expect(commands.filter((c) => c.startsWith("npm install "))).toHaveLength(3);
    expect(commands).toContain("npx payrail --version");
    expect(commands).toContain("npx payrail serve");
  });

  it("publint and attw (ESM only) find nothing in the tarball", async () => {
    const lint = await run("npx", ["publint", "run", tarball, "--level", "suggestion"], root, userEnv());
    expect(lint.stdout).toMatch(/All good!/);
    // exit 0 is no problem under the esm-only profile; a problem exits 1 and throws here
    await run("npx", ["attw", tarball, "--profile", "esm-only", "--quiet"], root, userEnv());
  });

  it("ships only what a user can use: the build, the binary, the licence and the README, maps with their sources", async () => {
    const { stdout } = await run("tar", ["tzf", tarball], dir);
    const files = stdout
      .trim()
      .split("\n")
      .map((f) => f.replace(/^package\//, ""));
    for (const f of files) expect(f).toMatch(/^(dist\/.+\.(js|js\.map|d\.ts)|bin\/payrail\.mjs|LICENSE|README\.md|package\.json)$/);
    const installed = join(project, "node_modules", "payrail", "dist");
    const map = JSON.parse(await readFile(join(installed, "index.js.map"), "utf8")) as { sources: string[]; sourcesContent?: string[] };
    expect(map.sourcesContent?.length).toBe(map.sources.length);
  });

  it("loads @opentelemetry/api from payrail/adapters/otel only: a host without that peer runs unchanged", async () => {
    const installed = join(project, "node_modules", "payrail", "dist");
    const files = (await readdir(installed, { recursive: true })).filter((f) => f.endsWith(".js"));
    const importing: string[] = [];
    for (const f of files) if ((await readFile(join(installed, f), "utf8")).includes("@opentelemetry/")) importing.push(f.replaceAll("\\", "/"));
    expect(importing).toEqual(["adapters/otel.js"]);
  });

  it("every documented subpath loads through import and through require, as one instance", async () => {
    const script = `
      import { createRequire } from "node:module";
      const require = createRequire(import.meta.url);
      const subpaths = ${JSON.stringify(SUBPATHS)};
      const out = {};
      for (const s of subpaths) {
        const esm = await import(s);
        const cjs = require(s);
        out[s] = { esm: Object.keys(esm).length, same: Object.keys(esm).every((k) => esm[k] === cjs[k]) };
      }
      console.log(JSON.stringify(out));`;
    await writeFile(join(project, "load.mjs"), script);
    const { stdout } = await run(process.execPath, ["load.mjs"], project, userEnv());
    const loaded = JSON.parse(stdout) as Record<string, { esm: number; same: boolean }>;
    expect(Object.keys(loaded).sort()).toEqual([...SUBPATHS].sort());
    for (const [s, r] of Object.entries(loaded)) expect({ s, ...r, esm: r.esm > 0 }).toEqual({ s, esm: true, same: true });
    // a CommonJS host: require alone, and the error class is the one the ESM entry exports
    await writeFile(
      join(project, "host.cjs"),
      `const { ApiError, createEngine } = require("payrail");
       import("payrail").then((m) => console.log(JSON.stringify({ same: m.ApiError === ApiError, create: typeof createEngine })));`,
    );
    const cjs = await run(process.execPath, ["host.cjs"], project, userEnv());
    expect(JSON.parse(cjs.stdout)).toEqual({ same: true, create: "function" });
  });

  it.each(["bundler", "node16"] as const)("a host type-checks under --strict against the published types (%s resolution)", (resolution) => {
    expect(messages(compile(project, "host.ts", resolution))).toEqual([]);
    expect(messages(compile(project, "outside-adapter.ts", resolution))).toEqual([]);
    const found = messages(compile(project, "misspelt.ts", resolution));
    expect(found.join("\n")).toMatch(/ammount/);
  });

  it("runs: a payout made through the typed API is listed by the async iterator and served over HTTP", async () => {
    const js = ts.transpileModule(HOST.replace("PAYOUT_FIELDS", 'amount: "10", asset: "USDC"'), {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
    }).outputText;
    await writeFile(join(project, "host.mjs"), js);
    await writeFile(join(project, "run-host.mjs"), `import { main } from "./host.mjs"; console.log(JSON.stringify(await main()));`);
    const { stdout } = await run(process.execPath, ["run-host.mjs"], project, userEnv());
    const { listed, status } = JSON.parse(stdout) as { listed: { amount: string }[]; status: number };
    expect(listed.map((p) => p.amount)).toEqual(["10"]);
    expect(status).toBe(200);
  });

  it("an adapter built outside the package on payrail/ports alone keeps its state through the seam", async () => {
    const js = ts.transpileModule(OUTSIDE_ADAPTER, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).outputText;
    await writeFile(join(project, "outside-adapter.mjs"), js);
    await writeFile(
      join(project, "run-adapter.mjs"),
      `import { main } from "./outside-adapter.mjs"; const r = await main(); console.log(JSON.stringify({ ...r, count: String(r.count) }));`,
    );
    const { stdout } = await run(process.execPath, ["run-adapter.mjs"], project, userEnv());
    expect(JSON.parse(stdout)).toEqual({ ids: ["b", "c"], count: "3", first: { height: 10, amount: "5" } });
  });

  it("keeps the root entry to the engine, its modules and how to define one, its errors and signature verification", async () => {
    await writeFile(join(project, "keys.mjs"), `console.log(JSON.stringify(Object.keys(await import("payrail")).sort()));`);
    const { stdout } = await run(process.execPath, ["keys.mjs"], project, userEnv());
    expect(JSON.parse(stdout)).toEqual(ROOT_EXPORTS);
  });

  it("npx payrail --version prints the package's version", async () => {
    const { stdout } = await run("npx", ["--no-install", "payrail", "--version"], project, userEnv());
    expect(stdout.trim()).toBe(pkg.version);
  });

  // PGlite in a worker thread (the built pglite-worker entry, found beside the chunks), and in the host's own
  it.each([
    ["", "1"],
    [" in the host's thread (PAYRAIL_PGLITE_THREAD=0)", "0"],
  ])(
    "npx payrail serve runs the host on embedded defaults%s, and a payout goes through HTTP",
    async (_, thread) => {
      const data = join(dir, `data-${thread}`);
      const child = spawn("npx", ["--no-install", "payrail", "serve"], {
        cwd: project,
        env: userEnv({ PORT: "0", PAYRAIL_DATA_DIR: data, LOG_LEVEL: "warn", PAYRAIL_PGLITE_THREAD: thread }),
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      let output = "";
      child.stdout.on("data", (c: Buffer) => (output += c.toString()));
      child.stderr.on("data", (c: Buffer) => (output += c.toString()));
      // closed once every process holding the pipe (npx and the host it runs) has ended
      const exited = new Promise<void>((r) => child.stdout.on("close", () => r()));
      try {
        const started = Date.now();
        let m: RegExpExecArray | null = null;
        while (!(m = /listening on (http:\/\/\S+)\n.*test API key: (sk_test_\S+)/s.exec(output))) {
          if (Date.now() - started > 90_000 || child.exitCode !== null) throw new Error(`payrail serve did not start:\n${output}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        const [, url, key] = m;
        const call = async (method: string, path: string, body?: unknown, idem?: string) => {
          const res = await fetch(url + path, {
            method,
            headers: {
              authorization: `Bearer ${key}`,
              ...(body ? { "content-type": "application/json" } : {}),
              ...(idem ? { "idempotency-key": idem } : {}),
            },
            ...(body ? { body: JSON.stringify(body) } : {}),
          });
          return { status: res.status, body: (await res.json()) as Record<string, unknown> };
        };
        const recipient = await call("POST", "/v1/recipients", { name: "Ada", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } });
        expect(recipient.status).toBe(200);
        const payout = await call("POST", "/v1/payouts", { amount: "10", asset: "USDC", recipient: recipient.body.id }, "packed-1");
        expect(payout.status).toBe(200);
        expect(payout.body).toMatchObject({ object: "payout", amount: "10", asset: "USDC" });
        const fetched = await call("GET", `/v1/payouts/${String(payout.body.id)}`);
        expect(fetched.body.id).toBe(payout.body.id);
      } finally {
        if (child.exitCode === null && child.pid) process.kill(-child.pid, "SIGTERM");
        await exited;
      }
      expect(output).toMatch(/stopped in \d+ ms/);
    },
    120_000,
  );
});
