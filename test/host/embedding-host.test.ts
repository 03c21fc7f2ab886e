import { execFile } from "node:child_process";
import { mkdtemp, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(__dirname, "../..");
const run = promisify(execFile);

/**
 * A host embedding payrail as a package user would: it imports the built package (`dist`, through
 * the package's exports) and nothing else of this repository, under `tsc --strict`.
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

function compile(dir: string, file: string): ts.Diagnostic[] {
  const program = ts.createProgram([join(dir, file)], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    types: [],
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
  });
  return [...ts.getPreEmitDiagnostics(program)];
}

const messages = (diagnostics: ts.Diagnostic[]) => diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));

describe("an embedding host compiled against the built package", () => {
  let dir: string;
  beforeAll(async () => {
    await run("npx", ["tsup", "--silent"], { cwd: root });
    dir = await mkdtemp(join(tmpdir(), "payrail-host-"));
    await mkdir(join(dir, "node_modules"));
    await symlink(root, join(dir, "node_modules", "payrail"), "dir");
    await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    await writeFile(join(dir, "host.ts"), HOST.replace("PAYOUT_FIELDS", 'amount: "10", asset: "USDC"'));
    await writeFile(join(dir, "misspelt.ts"), HOST.replace("PAYOUT_FIELDS", 'ammount: "10", asset: "USDC"'));
    await writeFile(join(dir, "outside-adapter.ts"), OUTSIDE_ADAPTER);
  }, 240_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("type-checks under --strict with typed inputs and no casts", () => {
    expect(messages(compile(dir, "host.ts"))).toEqual([]);
  });

  it("fails to compile on a misspelt input field", () => {
    const found = messages(compile(dir, "misspelt.ts"));
    expect(found.length).toBeGreaterThan(0);
    expect(found.join("\n")).toMatch(/ammount/);
  });

  it("runs: a payout made through the typed API is listed by the async iterator and served over HTTP", async () => {
    const js = ts.transpileModule(HOST.replace("PAYOUT_FIELDS", 'amount: "10", asset: "USDC"'), {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
    }).outputText;
    await writeFile(join(dir, "host.mjs"), js);
    const host = (await import(pathToFileURL(join(dir, "host.mjs")).href)) as { main(): Promise<{ listed: { amount: string }[]; status: number }> };
    const { listed, status } = await host.main();
    expect(listed.map((p) => p.amount)).toEqual(["10"]);
    expect(status).toBe(200);
  });

  it("builds an adapter outside the package on payrail/ports alone: it type-checks under --strict and keeps its state through the seam", async () => {
    expect(messages(compile(dir, "outside-adapter.ts"))).toEqual([]);
    const js = ts.transpileModule(OUTSIDE_ADAPTER, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).outputText;
    await writeFile(join(dir, "outside-adapter.mjs"), js);
    const adapter = (await import(pathToFileURL(join(dir, "outside-adapter.mjs")).href)) as { main(): Promise<unknown> };
    expect(await adapter.main()).toEqual({ ids: ["b", "c"], count: 3n, first: { height: 10, amount: "5" } });
  });

  it("keeps the root entry to the engine, its modules and how to define one, its errors and signature verification", async () => {
    const rootEntry = (await import(pathToFileURL(join(root, "dist", "index.js")).href)) as Record<string, unknown>;
    expect(Object.keys(rootEntry).sort()).toEqual([
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
    ]);
  });
});
