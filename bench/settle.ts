import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { Figure } from "./table";

/**
 * The seed's headline load, as a user meets it: `npm start` (a child process, the embedded
 * default or a PostgreSQL server), a `*` webhook endpoint receiving on loopback, one batch of
 * 25,000 legs through HTTP, and from the moment it is posted until it completes `GET
 * /v1/balances` every 50 ms. Prints the batch's acceptance and settle times, the GET latencies over
 * that whole window (p50, p99, and the longest wait: the acceptance included) with the GETs that
 * failed, and the time a host killed with SIGKILL in the middle of the settle takes to answer
 * again after a restart.
 */
const LEGS = Number(process.env.BENCH_SETTLE_LEGS ?? 25_000);
const KEY = "sk_test_bench_settle_0123456789abcdef";
const ROOT = resolve(fileURLToPath(new URL(".", import.meta.url)), "..");
const BASE = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

export interface SettleFigures {
  store: string;
  acceptedMs: number;
  settledMs: number | null;
  getP50Ms: number;
  getP99Ms: number;
  getMaxMs: number;
  gets: number;
  /** GETs answered with an error or not at all. */
  getsFailed: number;
  /** Webhooks the receiver had when the batch completed, and at the end of the run. */
  deliveredBySettle: number;
  deliveries: number;
  restartReadyMs: number;
  settledAfterRestartMs: number | null;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function receiver(): Promise<{ server: Server; url: string; count: () => number }> {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      n++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, count: () => n };
}

interface Host {
  child: ChildProcess;
  url: string;
  exited: Promise<void>;
}

function withoutDatabase(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { DATABASE_URL: _, ...rest } = env;
  return rest;
}

/** `npm start`'s command, with `env`; resolves once it prints the URL it listens on. */
async function startHost(env: Record<string, string>): Promise<{ host: Host; readyMs: number }> {
  const started = performance.now();
  // BENCH_HOST_NODE_ARGS: extra node flags for the host (e.g. --cpu-prof), for a run being looked into
  const nodeArgs = (process.env.BENCH_HOST_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", "adapters/cli/main.ts", "serve"], {
    cwd: ROOT,
    // the store is the caller's alone: the bench's own DATABASE_URL would turn an embedded host into a server's
    env: { ...withoutDatabase(process.env), PORT: "0", PAYRAIL_API_KEY: KEY, PAYRAIL_ALLOW_PRIVATE_WEBHOOKS: "1", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => {
    stderr += d.toString();
    if (process.env.BENCH_ECHO) process.stderr.write(d); // the host's own log, for a run being looked into
  });
  const url = await new Promise<string>((ok, fail) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out.replace(/\x1b\[[0-9;]*m/g, ""));
      if (m) ok(m[1]!);
    });
    child.once("exit", (code) => fail(new Error(`host exited (${code}) before listening: ${stderr.slice(-2000)}`)));
  });
  return { host: { child, url, exited }, readyMs: performance.now() - started };
}

async function call(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** GET /v1/balances every 50 ms until `done()`: each GET's start (ms after the probe's) and latency, and how many failed. */
async function probe(url: string, done: () => boolean): Promise<{ samples: { at: number; ms: number }[]; failed: number }> {
  const samples: { at: number; ms: number }[] = [];
  const start = performance.now();
  let failed = 0;
  while (!done()) {
    const t = performance.now();
    try {
      await call(url, "GET", "/v1/balances");
    } catch {
      failed++;
    }
    samples.push({ at: t - start, ms: performance.now() - t });
    await new Promise((r) => setTimeout(r, 50));
  }
  return { samples, failed };
}

async function waitCompleted(url: string, batch: string, timeoutMs: number): Promise<number | null> {
  const start = performance.now();
  while (performance.now() - start < timeoutMs) {
    try {
      const b = await call(url, "GET", `/v1/payouts/batches/${batch}`);
      if (b.status === "completed") return performance.now() - start;
    } catch {
      // a host restarting
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return null;
}

async function submit(url: string, recipients: string[], key: string): Promise<{ id: string; ms: number }> {
  const legs = Array.from({ length: LEGS }, (_, row) => ({ row, amount: "1.5", recipient: recipients[row % recipients.length] }));
  const t = performance.now();
  const batch = await call(url, "POST", "/v1/payouts/batches", { funding: { asset: "USDC", source: "auto" }, legs }, { "idempotency-key": key });
  return { id: batch.id, ms: performance.now() - t };
}

async function stop(host: Host, signal: NodeJS.Signals): Promise<void> {
  host.child.kill(signal);
  await host.exited;
}

export async function benchSettleOn(store: string, env: Record<string, string>, timeoutMs = 600_000): Promise<SettleFigures> {
  const hooks = await receiver();
  let { host } = await startHost(env);
  try {
    await call(host.url, "POST", "/v1/webhook_endpoints", { url: hooks.url, enabled_events: ["*"] });
    const recipients: string[] = [];
    for (let i = 0; i < 50; i++) {
      recipients.push((await call(host.url, "POST", "/v1/recipients", { name: `r${i}`, chain_addresses: { base: BASE } })).id);
    }
    // probed from the moment the batch is posted: its acceptance is part of the wait
    let settled = false;
    const probing = probe(host.url, () => settled);
    const first = await submit(host.url, recipients, "settle-1");
    const settledMs = await waitCompleted(host.url, first.id, timeoutMs);
    const deliveredBySettle = hooks.count();
    settled = true;
    const probed = await probing;
    const longest = [...probed.samples].sort((a, b) => b.ms - a.ms).slice(0, 5);
    console.log(
      `  ${store}: longest GETs (s after the post, ms): ${longest.map((l) => `+${(l.at / 1000).toFixed(1)} s ${l.ms.toFixed(0)} ms`).join(", ")}; accepted at +${(first.ms / 1000).toFixed(1)} s`,
    );
    const latencies = probed.samples.map((s) => s.ms).sort((a, b) => a - b);

    // the same load again, killed with SIGKILL in the middle of its settle, then restarted
    const second = await submit(host.url, recipients, "settle-2");
    await new Promise((r) => setTimeout(r, Math.min(10_000, (settledMs ?? 20_000) / 3)));
    await stop(host, "SIGKILL");
    const restarted = await startHost(env);
    host = restarted.host;
    const answered = performance.now();
    await call(host.url, "GET", "/v1/balances");
    const restartReadyMs = restarted.readyMs + (performance.now() - answered);
    const settledAfterRestartMs = await waitCompleted(host.url, second.id, timeoutMs);
    return {
      store,
      acceptedMs: first.ms,
      settledMs,
      getP50Ms: percentile(latencies, 50),
      getP99Ms: percentile(latencies, 99),
      getMaxMs: latencies[latencies.length - 1] ?? NaN,
      gets: latencies.length,
      getsFailed: probed.failed,
      deliveredBySettle,
      deliveries: hooks.count(),
      restartReadyMs,
      settledAfterRestartMs,
    };
  } finally {
    await stop(host, "SIGTERM").catch(() => undefined);
    hooks.server.close();
  }
}

export function formatSettle(f: SettleFigures): string {
  const s = (ms: number | null) => (ms === null ? "  (timed out)" : `${(ms / 1000).toFixed(1).padStart(6)} s`);
  return (
    `${f.store.padEnd(10)} ${LEGS}-leg batch accepted ${s(f.acceptedMs)}, settled ${s(f.settledMs)};` +
    ` GET /v1/balances from the post on: p50 ${f.getP50Ms.toFixed(0)} ms, p99 ${f.getP99Ms.toFixed(0)} ms, max ${f.getMaxMs.toFixed(0)} ms (${f.gets} GETs, ${f.getsFailed} failed);` +
    ` ${f.deliveredBySettle} webhooks received by then (${f.deliveries} by the end); killed mid-settle: answering again after ${s(f.restartReadyMs)}, settled ${s(f.settledAfterRestartMs)} later`
  );
}

/** A database of its own on the server of `url`, dropped afterwards. */
async function withDatabase<T>(url: string, fn: (url: string) => Promise<T>): Promise<T> {
  const name = `bench_settle_${process.pid}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const u = new URL(url);
    u.pathname = `/${name}`;
    return await fn(u.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/** The figures of one store for the table, with the targets of issue 11 (embedded-thread: the default `npm start`; embedded: PGlite in the host's thread). */
export function settleFigures(f: SettleFigures): Figure[] {
  const embedded = f.store.startsWith("embedded");
  const legs = LEGS.toLocaleString("en-US");
  const out: Figure[] = [
    { name: `${legs}-leg batch accepted over HTTP`, store: f.store, value: f.acceptedMs / 1000, unit: "s" },
    {
      name: `${legs}-leg batch settled, * endpoint receiving`,
      store: f.store,
      value: (f.settledMs ?? NaN) / 1000,
      unit: "s",
      target: { value: { max: embedded ? 60 : 30 } },
    },
    {
      name: "GET /v1/balances p99, from the batch's post to its completion",
      store: f.store,
      value: f.getP99Ms,
      unit: "ms",
    },
    {
      name: "GET /v1/balances longest wait, from the post to completion",
      store: f.store,
      value: f.getMaxMs,
      unit: "ms",
      ...(embedded ? { target: { value: { max: 250 } } } : {}),
    },
    { name: "GET /v1/balances failed in that window", store: f.store, value: f.getsFailed, unit: "", ...(embedded ? { target: { value: { max: 0 } } } : {}) },
    {
      name: "killed mid-settle: answering again",
      store: f.store,
      value: f.restartReadyMs / 1000,
      unit: "s",
      ...(embedded ? { target: { value: { max: 10 } } } : {}),
    },
  ];
  return out;
}

export async function benchSettle(): Promise<SettleFigures[]> {
  // BENCH_SETTLE_STORES=embedded,embedded-thread,postgres (default all three; postgres only with DATABASE_URL)
  const stores = (process.env.BENCH_SETTLE_STORES ?? "embedded,embedded-thread,postgres").split(",");
  console.log(`settle: npm start, a * webhook endpoint on loopback, one batch of ${LEGS} legs over HTTP, GET /v1/balances every 50 ms`);
  const out: SettleFigures[] = [];
  // embedded-thread: the same with PGlite in a worker thread of its own (PAYRAIL_PGLITE_THREAD=1)
  for (const store of ["embedded", "embedded-thread"].filter((s) => stores.includes(s))) {
    const dir = await mkdtemp(join(tmpdir(), "payrail-settle-"));
    try {
      const embedded = await benchSettleOn(store, { PAYRAIL_DATA_DIR: dir, PAYRAIL_PGLITE_THREAD: store === "embedded-thread" ? "1" : "0" });
      console.log(formatSettle(embedded));
      out.push(embedded);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const url = process.env.DATABASE_URL;
  if (url && stores.includes("postgres")) {
    const server = await withDatabase(url, (db) => benchSettleOn("postgres", { DATABASE_URL: db }));
    console.log(formatSettle(server));
    out.push(server);
  }
  return out;
}
