import { execFile } from "node:child_process";
import { mkdtemp, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(__dirname, "..");
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
