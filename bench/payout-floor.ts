import pg from "pg";
import { ManualClock } from "../adapters/clock";
import { devPorts } from "../adapters/dev";
import { createMemoryStorage } from "../adapters/memory";
import { createPostgresStorage, pgPoolDriver } from "../adapters/postgres";
import { systemContext } from "../src/engine/context";
import { createEngine } from "../src/modules";

const BASE = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

/**
 * The raw floor of a payout create on a PostgreSQL server: the nine writes a payout cannot skip,
 * hand-written against the engine's own tables (made by the adapter's migrations), with rows of
 * the engine's sizes (`template`: a payout document and its event as the engine stored them):
 * claim the idempotency key, lock the asset's balance rows, insert the reservation, its two
 * ledger entries, update the two balances, insert the payout, its events, its due work, and save
 * the response under the key. `clients` sessions run them side by side until `ops` are done,
 * all on one account, or (`accounts`) session `c` on account `c % accounts` of its own.
 *
 * Two shapes: `statements` sends each write as a statement of its own inside BEGIN … COMMIT (9
 * round trips and the two of the transaction), `one` sends all nine as one statement of
 * data-modifying CTEs (one round trip, its own transaction).
 */
export interface PayoutTemplate {
  /** A payout's stored document (resources.data). */
  payout: string;
  /** Its payout.created event's data. */
  event: string;
}

export interface FloorOptions {
  clients: number;
  shape: "statements" | "one";
  accounts?: number;
}

/** The floor's payouts written `ops` at a time (`round`), on a schema of its own until `close`. */
export interface PayoutFloor {
  /** Writes `ops` payouts (numbered on from the last round's) with `clients` sessions at once; resolves with payouts per second. */
  round(ops: number): Promise<number>;
  close(): Promise<void>;
}

/** `ops` payouts by hand on a fresh floor: payouts per second. */
export async function rawPayoutFloor(url: string, template: PayoutTemplate, options: FloorOptions & { ops: number }): Promise<number> {
  const floor = await openPayoutFloor(url, template, options);
  try {
    return await floor.round(options.ops);
  } finally {
    await floor.close();
  }
}

/** A floor whose rounds can alternate with an engine's (`bench/payouts.ts`, many accounts): same schema and sessions throughout. */
export async function openPayoutFloor(url: string, template: PayoutTemplate, options: FloorOptions): Promise<PayoutFloor> {
  const accounts = Array.from({ length: options.accounts ?? 1 }, (_, a) => (a === 0 ? "acct_floor" : `acct_floor_${a}`));
  const schema = `bench_floor_${process.pid}`;
  const s = `"${schema}"`;
  const setup = createPostgresStorage({ driver: pgPoolDriver(new pg.Pool({ connectionString: url, max: 1 })), schema });
  await setup.init();
  await setup.close();
  const pool = new pg.Pool({ connectionString: url, max: options.clients });
  const close = async () => {
    await pool.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    await pool.end();
  };
  try {
    for (const account of accounts) {
      await pool.query(`INSERT INTO ${s}.accounts (id, name, livemode, created) VALUES ($1, 'floor', false, 0)`, [account]);
      await pool.query(
        `INSERT INTO ${s}.balances (account_id, asset, chain, book, amount) VALUES
           ($1, 'USDC', 'base', 'available', 1000000000000000),
           ($1, 'USDC', 'base', 'reserved', 0)`,
        [account],
      );
    }
  } catch (e) {
    await close();
    throw e;
  }
  const write = options.shape === "statements" ? nineStatements(s, template) : oneStatement(s, template);
  let next = 0;
  return {
    async round(ops) {
      const end = next + ops;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: options.clients }, async (_, client) => {
          const account = accounts[client % accounts.length]!;
          const c = await pool.connect();
          let broken: Error | undefined;
          try {
            while (next < end) await write(c, next++, account);
          } catch (e) {
            broken = e as Error;
            throw e;
          } finally {
            c.release(broken);
          }
        }),
      );
      return ops / ((performance.now() - start) / 1000);
    },
    close,
  };
}

type Client = { query(text: string, params?: unknown[]): Promise<unknown> };

/** Values of one payout's rows; `i` keeps every key unique. */
function rows(template: PayoutTemplate, i: number) {
  const now = Date.now();
  return {
    key: `floor-${process.pid}-${i}`,
    now,
    payout: `po_floor_${i}`,
    reservation: `rsv_floor_${i}`,
    entries: [`le_floor_${i}_a`, `le_floor_${i}_b`],
    posting: `pst_floor_${i}`,
    events: [`evt_floor_${i}_a`, `evt_floor_${i}_b`],
    work: [`job_floor_${i}_a`, `job_floor_${i}_b`],
    data: template.payout,
    event: template.event,
  };
}

function nineStatements(s: string, template: PayoutTemplate) {
  return async (c: Client, i: number, account: string) => {
    const r = rows(template, i);
    await c.query("BEGIN");
    await c.query(
      `INSERT INTO ${s}.idempotency_keys (account_id, key, fingerprint, locked_at, created, expires_at)
       VALUES ($3, $1, 'f', $2::bigint, $2::bigint, $2::bigint + 86400000) ON CONFLICT DO NOTHING RETURNING 1`,
      [r.key, r.now, account],
    );
    await c.query(`SELECT amount FROM ${s}.balances WHERE account_id = $1 AND asset = 'USDC' ORDER BY chain, book FOR UPDATE`, [account]);
    await c.query(
      `INSERT INTO ${s}.reservations (account_id, id, asset, chain, amount, remaining, status, resource, created)
       VALUES ($4, $1, 'USDC', 'base', 1510063, 1510063, 'active', $2, $3)`,
      [r.reservation, r.payout, r.now, account],
    );
    await c.query(
      `INSERT INTO ${s}.ledger_entries (account_id, id, posting_id, line, asset, chain, book, amount, resource, created)
       SELECT $5, id, $2, line, 'USDC', 'base', book, amount, $3, $4
       FROM unnest($1::text[], ARRAY[0, 1], ARRAY['available', 'reserved'], ARRAY[-1510063, 1510063]::numeric[]) AS x(id, line, book, amount)`,
      [r.entries, r.posting, r.payout, r.now, account],
    );
    await c.query(
      `UPDATE ${s}.balances SET amount = amount + CASE book WHEN 'available' THEN -1510063 ELSE 1510063 END
       WHERE account_id = $1 AND asset = 'USDC' AND chain = 'base' AND book IN ('available', 'reserved')`,
      [account],
    );
    await c.query(
      `INSERT INTO ${s}.resources (account_id, kind, id, created, status, reference, data, version, updated)
       VALUES ($4, 'payout', $1, $2, 'executing', NULL, $3::jsonb, 1, $2)`,
      [r.payout, r.now, r.data, account],
    );
    await c.query(
      `INSERT INTO ${s}.events (account_id, id, type, created, livemode, data, request)
       SELECT $4, id, type, $2, false, $3::json, '{"id":null,"idempotency_key":null}'
       FROM unnest($1::text[], ARRAY['payout.created', 'balance.updated']) AS x(id, type)`,
      [r.events, r.now, r.event, account],
    );
    await c.query(
      `INSERT INTO ${s}.due_work (id, kind, account_id, payload, run_at, status, created)
       SELECT id, kind, $3, '{"payouts":["po_floor"]}', $2, 'ready', $2
       FROM unnest($1::text[], ARRAY['payouts.broadcast', 'webhook.fanout']) AS x(id, kind)`,
      [r.work, r.now, account],
    );
    await c.query(`UPDATE ${s}.idempotency_keys SET locked_at = NULL, response = $2::json WHERE account_id = $3 AND key = $1`, [r.key, r.data, account]);
    await c.query("COMMIT");
  };
}

function oneStatement(s: string, template: PayoutTemplate) {
  return async (c: Client, i: number, account: string) => {
    const r = rows(template, i);
    await c.query(
      `WITH k AS (
         INSERT INTO ${s}.idempotency_keys (account_id, key, fingerprint, locked_at, response, created, expires_at)
         VALUES ($11, $1, 'f', NULL, $5::json, $2::bigint, $2::bigint + 86400000) ON CONFLICT DO NOTHING RETURNING 1
       ), b AS (
         UPDATE ${s}.balances SET amount = amount + CASE book WHEN 'available' THEN -1510063 ELSE 1510063 END
         WHERE account_id = $11 AND asset = 'USDC' AND chain = 'base' AND book IN ('available', 'reserved') RETURNING 1
       ), v AS (
         INSERT INTO ${s}.reservations (account_id, id, asset, chain, amount, remaining, status, resource, created)
         VALUES ($11, $3, 'USDC', 'base', 1510063, 1510063, 'active', $4, $2) RETURNING 1
       ), e AS (
         INSERT INTO ${s}.ledger_entries (account_id, id, posting_id, line, asset, chain, book, amount, resource, created)
         SELECT $11, id, $7, line, 'USDC', 'base', book, amount, $4, $2
         FROM unnest($6::text[], ARRAY[0, 1], ARRAY['available', 'reserved'], ARRAY[-1510063, 1510063]::numeric[]) AS x(id, line, book, amount) RETURNING 1
       ), p AS (
         INSERT INTO ${s}.resources (account_id, kind, id, created, status, reference, data, version, updated)
         VALUES ($11, 'payout', $4, $2, 'executing', NULL, $5::jsonb, 1, $2) RETURNING 1
       ), ev AS (
         INSERT INTO ${s}.events (account_id, id, type, created, livemode, data, request)
         SELECT $11, id, type, $2, false, $8::json, '{"id":null,"idempotency_key":null}'
         FROM unnest($9::text[], ARRAY['payout.created', 'balance.updated']) AS x(id, type) RETURNING 1
       ), w AS (
         INSERT INTO ${s}.due_work (id, kind, account_id, payload, run_at, status, created)
         SELECT id, kind, $11, '{"payouts":["po_floor"]}', $2, 'ready', $2
         FROM unnest($10::text[], ARRAY['payouts.broadcast', 'webhook.fanout']) AS x(id, kind) RETURNING 1
       )
       SELECT (SELECT count(*) FROM k) + (SELECT count(*) FROM b) + (SELECT count(*) FROM v) + (SELECT count(*) FROM e)
            + (SELECT count(*) FROM p) + (SELECT count(*) FROM ev) + (SELECT count(*) FROM w) AS n`,
      [r.key, r.now, r.reservation, r.payout, r.data, r.entries, r.posting, r.event, r.events, r.work, account],
    );
  };
}

/** A payout's stored document and its payout.created event data, as an engine on memory writes them. */
export async function payoutTemplate(): Promise<PayoutTemplate> {
  const engine = await createEngine({ storage: createMemoryStorage(), ...devPorts({ clock: new ManualClock() }) });
  try {
    const account = await engine.accounts.create({ name: "template" });
    const ctx = systemContext(account.id, false);
    (await engine.testHelpers.fund(ctx, { asset: "USDC", chain: "base", amount: "100" }))._unsafeUnwrap();
    const recipient = (await engine.recipients.create(ctx, { name: "r", chain_addresses: { base: BASE } }))._unsafeUnwrap();
    const payout = (await engine.payouts.create(ctx, { amount: "1.5", asset: "USDC", recipient: recipient.id }))._unsafeUnwrap();
    return await engine.storage.transaction(async (tx) => {
      const stored = await tx.resources.get(account.id, payout.id);
      const events = await tx.events.list({ accountId: account.id, status: "payout.created", limit: 1 });
      return { payout: JSON.stringify(stored!.data), event: JSON.stringify(events[0]!.data) };
    });
  } finally {
    await engine.close();
  }
}
