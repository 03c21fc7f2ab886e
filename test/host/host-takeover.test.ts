import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { hostProcess, stopChild } from "../support/evm/processes";

/**
 * Issue 23: a killed host's work waited out its leases (60 s), and an Idempotency-Key in flight
 * in it answered `409 idempotency_key_in_use` as long. Here two `payrail serve` processes share a
 * PostgreSQL database; the one that accepted a batch is killed with SIGKILL while it settles the
 * batch and while it accepts a second one under an Idempotency-Key. The survivor declares it dead
 * within seconds (its heartbeat stopped), takes its work over (within 10 s of the kill), accepts
 * the retried key, and both batches complete with every leg sent exactly once.
 */
const API_KEY = "sk_test_takeoverTAKEOVERtakeover";
const admin = process.env.DATABASE_URL;
const database = `payrail_takeover_${process.pid}_${Date.now().toString(36)}`;
let created = false;

afterAll(async () => {
  if (!created || !admin) return;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await client.end();
});

async function until<T>(what: string, fn: () => Promise<T | null>, timeoutMs: number, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== null) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

describe.skipIf(!admin)("two hosts on one PostgreSQL database, one killed with SIGKILL", () => {
  it("the survivor takes the killed one's work and Idempotency-Key over within seconds; every leg is sent once", async () => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`CREATE DATABASE ${database}`);
    created = true;
    await client.end();
    const url = new URL(admin!);
    url.pathname = `/${database}`;
    url.searchParams.set("application_name", "payrail-takeover-test");
    const db = new pg.Client({ connectionString: url.toString() });
    const env = { PAYRAIL_API_KEY: API_KEY, LOG_LEVEL: "warn", DATABASE_URL: url.toString() };
    const q = async (sql: string, params: unknown[] = []) => (await db.query(sql, params)).rows;

    const a = await hostProcess(env);
    await db.connect();
    const [first] = await until(
      "the first host's heartbeat",
      async () => {
        const rows = await q("SELECT owner FROM payrail.owners");
        return rows.length === 1 ? rows : null;
      },
      30_000,
    );
    const killedOwner: string = first.owner;
    const b = await hostProcess(env);
    let key = 0;
    const call = async (base: string, method: string, path: string, body?: unknown, idempotencyKey = `k-${key++}`) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json", "Idempotency-Key": idempotencyKey },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    try {
      const recipients: string[] = [];
      for (let i = 0; i < 10; i++) {
        const r = await call(a.url, "POST", "/v1/recipients", { name: `R${i}`, chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } });
        expect(r.status).toBe(200);
        recipients.push(r.body.id);
      }
      const legs = (n: number) => Array.from({ length: n }, (_, row) => ({ row, amount: "1", recipient: recipients[row % recipients.length]! }));
      const batchBody = (n: number, reference: string) => ({ reference, funding: { asset: "USDC", source: "auto" }, legs: legs(n) });

      // the first host accepts a batch and starts settling it
      const settling = await call(a.url, "POST", "/v1/payouts/batches", batchBody(1_500, "settling"));
      expect(settling.status).toBe(200);
      // and accepts a second one under an Idempotency-Key: killed while it holds the key
      const keyed = "retried-acceptance";
      const second = batchBody(3_000, "retried");
      void call(a.url, "POST", "/v1/payouts/batches", second, keyed).catch(() => null);
      await until(
        "the key held by the first host",
        async () => {
          const rows = await q("SELECT owner FROM payrail.idempotency_keys WHERE key = $1 AND locked_at IS NOT NULL AND response IS NULL", [keyed]);
          return rows.length ? rows : null;
        },
        30_000,
        5,
      );
      const heldAtKill = Number((await q("SELECT count(*) AS n FROM payrail.due_work WHERE lease_owner = $1", [killedOwner]))[0].n);
      await stopChild(a.child, "SIGKILL");
      const within10s = Date.now() + 10_000;

      // within 10 s: declared dead, its leases ended, the legs it was sending taken over, its key free
      await until(
        "the killed host declared dead",
        async () => {
          const rows = await q("SELECT dead_at FROM payrail.owners WHERE owner = $1 AND dead_at IS NOT NULL", [killedOwner]);
          return rows.length ? rows : null;
        },
        within10s - Date.now(),
      );
      expect(Number((await q("SELECT count(*) AS n FROM payrail.due_work WHERE lease_owner = $1", [killedOwner]))[0].n)).toBe(0);
      await until(
        "no leg left claimed by the killed host",
        async () => {
          const rows = await q(
            `SELECT count(*) AS n FROM payrail.resources r, jsonb_array_elements(r.data->'legs') l
           WHERE r.kind = 'payout' AND l->>'status' = 'pending' AND l->>'sendingBy' = $1`,
            [killedOwner],
          );
          return Number(rows[0].n) === 0 ? true : null;
        },
        within10s - Date.now(),
      );
      const retried = await call(b.url, "POST", "/v1/payouts/batches", second, keyed);
      expect(retried.status).toBe(200);
      expect(retried.body.object).toBe("payout_batch");

      // the survivor completes both batches; every leg sent once
      for (const id of [settling.body.id, retried.body.id]) {
        await until(
          `batch ${id} completed`,
          async () => {
            const got = await call(b.url, "GET", `/v1/payouts/batches/${id}`);
            return got.body.status === "completed" ? got.body : null;
          },
          240_000,
          1_000,
        );
      }
      const payouts = await q("SELECT data FROM payrail.resources WHERE kind = 'payout' AND data->>'batch' = ANY($1::text[])", [
        [settling.body.id, retried.body.id],
      ]);
      expect(payouts.length).toBe(4_500);
      const legsSent = payouts.flatMap((p: any) => p.data.legs as any[]);
      expect(legsSent.every((l) => l.status === "confirmed" || l.status === "settled" || typeof l.machine?.txHash === "string")).toBe(true);
      const hashes = legsSent.map((l) => l.machine.txHash as string);
      expect(new Set(hashes).size).toBe(legsSent.length);
      const sent = await q(
        "SELECT count(*) AS n FROM payrail.adapter_state WHERE namespace = 'simulated-chains' AND key LIKE 'sent/%' AND split_part(key, '/', 3) = ANY($1::text[])",
        [legsSent.map((l) => l.id)],
      );
      expect(Number(sent[0].n)).toBe(legsSent.length);
      // the ledger moved every leg's amount out once: 4,500 USDC to the outbound counter, no more
      const out = await q(
        "SELECT count(*) AS n, sum(amount) AS total FROM payrail.ledger_entries WHERE book = 'counter:outbound' AND asset = 'USDC' AND account_id = (SELECT account_id FROM payrail.resources WHERE id = $1)",
        [settling.body.id],
      );
      expect(Number(out[0].n)).toBe(legsSent.length);
      expect(BigInt(out[0].total) === 4_500_000_000n || BigInt(out[0].total) === -4_500_000_000n).toBe(true);
      console.info(`takeover: the killed host held ${heldAtKill} due work item(s) at the kill`);
    } finally {
      await stopChild(a.child, "SIGKILL");
      await stopChild(b.child, "SIGTERM");
      await db.end();
    }
  }, 360_000);
});
