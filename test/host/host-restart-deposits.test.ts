import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { hostProcess, stopChild } from "../support/evm/processes";

/**
 * The issue: test-mode deposits acknowledged by `test_helpers/payment_intents/{id}/pay` lived only
 * in the simulated chain's memory, so a host killed and restarted never completed some of them.
 * Here `npm start`'s host (`adapters/cli/main.ts serve`, its own process) is paid through HTTP,
 * killed with SIGKILL while payments are in flight, and restarted on the same storage: every
 * payment it acknowledged is credited, and a payout it acknowledged settles. Embedded storage
 * (PGlite in a folder) always; a PostgreSQL server in a database of its own when DATABASE_URL is set.
 */
const API_KEY = "sk_test_killnineKILLNINEkillnine";
const INTENTS = 12;

interface Storage {
  name: string;
  env(): Promise<Record<string, string>>;
  cleanup(): Promise<void>;
}

const storages: Storage[] = [];
{
  let dir: string | null = null;
  storages.push({
    name: "embedded (PGlite)",
    async env() {
      dir ??= await mkdtemp(join(tmpdir(), "payrail-kill-"));
      return { PAYRAIL_DATA_DIR: dir };
    },
    async cleanup() {
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  });
}
if (process.env.DATABASE_URL) {
  const admin = process.env.DATABASE_URL;
  const database = `payrail_kill_${process.pid}_${Date.now().toString(36)}`;
  let created = false;
  storages.push({
    name: "PostgreSQL",
    async env() {
      if (!created) {
        const client = new pg.Client({ connectionString: admin });
        await client.connect();
        await client.query(`CREATE DATABASE ${database}`);
        await client.end();
        created = true;
      }
      const url = new URL(admin);
      url.pathname = `/${database}`;
      return { DATABASE_URL: url.toString() };
    },
    async cleanup() {
      if (!created) return;
      const client = new pg.Client({ connectionString: admin });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await client.end();
    },
  });
}

afterAll(async () => {
  for (const s of storages) await s.cleanup();
});

async function until<T>(what: string, fn: () => Promise<T | null>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== null) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

for (const storage of storages) {
  describe(`the host killed with SIGKILL on ${storage.name}`, () => {
    it("credits every deposit it acknowledged, and settles the payout it acknowledged, after a restart", async () => {
      const env = { PAYRAIL_API_KEY: API_KEY, LOG_LEVEL: "warn", ...(await storage.env()) };
      let host = await hostProcess(env);
      const call = async (base: string, method: string, path: string, body?: unknown, key = `${method}:${path}:${Math.random()}`) => {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json", "Idempotency-Key": key },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      try {
        const intents: string[] = [];
        for (let i = 0; i < INTENTS; i++) {
          const pi = await call(host.url, "POST", "/v1/payment_intents", { amount: "5", asset: "USDC", chains: ["base"] });
          expect(pi.status).toBe(200);
          intents.push(pi.body.id);
        }
        const rcp = await call(host.url, "POST", "/v1/recipients", { name: "Acme", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } });
        const payout = await call(host.url, "POST", "/v1/payouts", { amount: "7", asset: "USDC", recipient: rcp.body.id });
        expect(payout.status).toBe(200);

        // pay them all at once; kill -9 once half are acknowledged, with the rest in flight
        const acknowledged: string[] = [];
        const url = host.url;
        let killed: Promise<void> | null = null;
        const payments = intents.map(async (id) => {
          try {
            const paid = await call(url, "POST", `/v1/test_helpers/payment_intents/${id}/pay`, { chain: "base", amount: "5" });
            if (paid.status === 200) acknowledged.push(id);
          } catch {
            // cut by the kill: not acknowledged, so nothing is promised
          }
          if (acknowledged.length >= INTENTS / 2) killed ??= stopChild(host.child, "SIGKILL");
        });
        await Promise.all(payments);
        await (killed ?? stopChild(host.child, "SIGKILL"));
        expect(acknowledged.length).toBeGreaterThanOrEqual(INTENTS / 2);

        host = await hostProcess(env);
        const restarted = host.url;
        for (const id of acknowledged) {
          await until(`${id} credited`, async () => {
            const pi = await call(restarted, "GET", `/v1/payment_intents/${id}`);
            return pi.body.status === "succeeded" ? pi.body : null;
          });
        }
        const settled = await until("the payout settled", async () => {
          const p = await call(restarted, "GET", `/v1/payouts/${payout.body.id}`);
          return p.body.status === "settled" ? p.body : null;
        });
        expect(settled.legs.map((l: any) => l.tx_hash)).toEqual(payout.body.legs.map((l: any) => l.tx_hash));
        const credited = (await call(restarted, "GET", "/v1/payment_intents?limit=100")).body.data.filter((p: any) => p.status === "succeeded");
        expect(credited.length).toBeGreaterThanOrEqual(acknowledged.length);
      } finally {
        await stopChild(host.child, "SIGTERM");
      }
    }, 120_000);
  });
}
