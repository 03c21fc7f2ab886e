import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { freePort, hostProcess, stopChild } from "../support/evm/processes";

/**
 * Issue 23, item 1: a host that outlives its database. `payrail serve` on a PostgreSQL server
 * (its own process), four loops creating payouts through HTTP, each retrying its Idempotency-Key
 * until it is acknowledged; meanwhile the server ends the host's sessions. The host must stay up,
 * answer 503 `storage_unavailable` with `Retry-After` while it cannot reach the database, resume
 * by itself, and every acknowledged create must exist exactly once.
 */
const API_KEY = "sk_test_outageOUTAGEoutageOUTAGE";
const LOOPS = 4;
const CREATES_PER_LOOP = 12;
const ADDRESS = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const PG_BIN = "/usr/lib/postgresql/15/bin";

type Host = Awaited<ReturnType<typeof hostProcess>>;

/** What the loops saw. */
interface LoadResult {
  /** Acknowledged creates: Idempotency-Key (also the payout's reference) → payout id. */
  acknowledged: Map<string, string>;
  unavailable: number;
  /** 503s without `Retry-After` or not `storage_unavailable`: none expected. */
  malformed: string[];
}

async function call(url: string, method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json", ...(key ? { "Idempotency-Key": key } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/**
 * Runs `LOOPS` loops of `CREATES_PER_LOOP` payout creates each, a key retried (after its
 * `Retry-After`, shortened: the test need not wait) until it is acknowledged; `during` runs
 * once `startAfter` creates are acknowledged, while the loops go on.
 */
async function underLoad(host: Host, recipient: string, startAfter: number, during: (result: LoadResult) => Promise<void>): Promise<LoadResult> {
  const result: LoadResult = { acknowledged: new Map(), unavailable: 0, malformed: [] };
  let started: Promise<void> | null = null;
  const deadline = Date.now() + 45_000;
  const loop = async (i: number) => {
    for (let j = 0; j < CREATES_PER_LOOP; j++) {
      const key = `outage-${i}-${j}`;
      for (;;) {
        if (Date.now() > deadline) throw new Error(`${key} was never acknowledged; the host said:\n${host.output()}`);
        const res = await call(host.url, "POST", "/v1/payouts", { amount: "1", asset: "USDC", recipient, reference: key }, key);
        if (res.status === 200) {
          result.acknowledged.set(key, res.body.id);
          break;
        }
        if (res.status === 503) {
          result.unavailable++;
          if (res.headers.get("retry-after") !== "1" || res.body.error?.code !== "storage_unavailable") result.malformed.push(JSON.stringify(res.body));
        } else if (res.status !== 409) {
          throw new Error(`${key}: unexpected ${res.status} ${JSON.stringify(res.body)}`); // 409: the key's failed holder still has it
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      if (result.acknowledged.size >= startAfter) started ??= during(result);
    }
  };
  await Promise.all(Array.from({ length: LOOPS }, (_, i) => loop(i)));
  await started;
  return result;
}

/** The host's setup, the load with `disrupt` during it, and every assertion of the issue. */
async function outliveTheDatabase(databaseUrl: string, disrupt: (result: LoadResult, host: Host) => Promise<void>): Promise<void> {
  const host = await hostProcess({ DATABASE_URL: databaseUrl, PAYRAIL_API_KEY: API_KEY, LOG_LEVEL: "warn" });
  try {
    const recipient = (await call(host.url, "POST", "/v1/recipients", { name: "Acme", chain_addresses: { base: ADDRESS } }, "outage-recipient")).body.id;
    const result = await underLoad(host, recipient, LOOPS * 2, (r) => disrupt(r, host));

    expect(host.child.exitCode, host.output()).toBeNull(); // still running
    expect(host.child.signalCode).toBeNull();
    expect(result.unavailable).toBeGreaterThan(0); // it answered 503 while the database was away
    expect(result.malformed).toEqual([]);
    expect(result.acknowledged.size).toBe(LOOPS * CREATES_PER_LOOP);
    const ready = await call(host.url, "GET", "/readyz");
    expect(ready.status, JSON.stringify(ready.body)).toBe(200);
    expect(host.output()).toMatch(/"msg":"storage unavailable"/); // the operator's log line (LOG_LEVEL warn)

    // every acknowledged create exists exactly once, as acknowledged; no reference twice
    const byReference = new Map<string, string[]>();
    for (let after: string | null = null; ; ) {
      const page: any = (await call(host.url, "GET", `/v1/payouts?limit=200${after ? `&starting_after=${after}` : ""}`)).body;
      for (const p of page.data) byReference.set(p.reference, [...(byReference.get(p.reference) ?? []), p.id]);
      if (!page.has_more) break;
      after = page.next_cursor;
    }
    for (const [key, id] of result.acknowledged) expect(byReference.get(key), key).toEqual([id]);
    for (const [reference, ids] of byReference) expect(ids.length, reference).toBe(1);
  } finally {
    await stopChild(host.child, "SIGTERM");
  }
}

const admin = process.env.DATABASE_URL;

describe.skipIf(!admin)("the host when the server ends its sessions (DATABASE_URL)", () => {
  it("stays up, answers 503 meanwhile, resumes by itself, and keeps every acknowledged create once", async () => {
    const database = `payrail_outage_${process.pid}_${Date.now().toString(36)}`;
    const appName = `payrail_outage_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`CREATE DATABASE ${database}`);
    try {
      const url = new URL(admin!);
      url.pathname = `/${database}`;
      url.searchParams.set("application_name", appName); // only the host's sessions are ended
      await outliveTheDatabase(url.toString(), async (result) => {
        // end every session of the host's pool, again and again, until its answers show it
        const seen = result.unavailable;
        for (let round = 0; round < 40 && result.unavailable === seen; round++) {
          await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [appName]);
          await new Promise((r) => setTimeout(r, 100));
        }
      });
    } finally {
      await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await client.end();
    }
  }, 90_000);
});

const binaries = existsSync(join(PG_BIN, "initdb")) && existsSync(join(PG_BIN, "pg_ctl"));

describe.skipIf(!admin || !binaries)(`the host when its PostgreSQL server restarts (DATABASE_URL and ${PG_BIN})`, () => {
  it("stays up, is not ready and answers 503 while the server is down or restarting, and resumes by itself", async () => {
    // a private server: the shared one is never restarted
    const dir = await mkdtemp(join(tmpdir(), "payrail-pg-"));
    await chown(dir, uid("postgres"), gid("postgres"));
    const data = join(dir, "data");
    const port = await freePort();
    const asPostgres = (bin: string, ...args: string[]) => execFileSync("runuser", ["-u", "postgres", "--", join(PG_BIN, bin), ...args], { stdio: "pipe" });
    const ctl = (...args: string[]) =>
      asPostgres("pg_ctl", "-D", data, "-l", join(dir, "log"), "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, "-w", ...args);
    try {
      asPostgres("initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync");
      ctl("start");
      await outliveTheDatabase(`postgres://postgres@127.0.0.1:${port}/postgres`, async (result, host) => {
        const seen = result.unavailable;
        ctl("stop", "-m", "fast");
        // down: not ready, and creates answer 503 (the loops see them)
        const down = await call(host.url, "GET", "/readyz");
        expect(down.status).toBe(503);
        expect(down.body.checks.storage.ok).toBe(false);
        await waitFor(() => result.unavailable > seen);
        ctl("start");
        // and a restart as an operator runs it, once the host is acknowledging creates again
        const acknowledged = result.acknowledged.size;
        await waitFor(() => result.acknowledged.size > acknowledged);
        ctl("restart", "-m", "fast");
      });
    } finally {
      try {
        ctl("stop", "-m", "immediate");
      } catch {
        // not running
      }
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

function uid(user: string): number {
  return Number(execFileSync("id", ["-u", user], { encoding: "utf8" }).trim());
}

function gid(user: string): number {
  return Number(execFileSync("id", ["-g", user], { encoding: "utf8" }).trim());
}
