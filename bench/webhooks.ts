import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ok } from "neverthrow";
import { Agent, request } from "undici";
import { ManualClock } from "../adapters/clock";
import { createHttpDelivery } from "../adapters/delivery";
import { createMemoryStorage } from "../adapters/memory";
import { connectPostgres, openPGlite } from "../adapters/postgres";
import { engineDeps } from "../src/engine/engine";
import { createEngine } from "../src/modules";
import { signatureHeader } from "../src/events/signing";
import type { StorageAdapter } from "../src/ports/storage";
import { runCommand } from "../src/engine/command";
import { systemContext } from "../src/engine/context";
import { devPorts } from "../adapters/dev";
import type { Figure } from "./table";
import { dropSchema } from "./schemas";

/**
 * Webhook throughput: signed deliveries per second from the outbox to a loopback receiver (fan-out,
 * claim, read, sign, POST, log and settle each attempt), on memory and on a PostgreSQL server
 * (the delivery log persisted there), beside a raw loop that only signs and POSTs the same body
 * to the same receiver at the same concurrency, with no storage at all.
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
/** Events delivered before the timed ones (and as many POSTs before the raw loop's timed ones). */
const WARM_UP_EVENTS = Number(process.env.BENCH_WARM_UP_EVENTS ?? 1_000);
const ENDPOINTS = 4;
const CONCURRENCY = 64;
const BATCH = 32;

async function startReceiver(): Promise<{ server: Server; url: string; count: () => number }> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, count: () => received };
}

async function benchEngine(name: string, storage: StorageAdapter, receiverUrl: string): Promise<{ line: string; perSecond: number; cpuMs: number }> {
  const engine = await createEngine({
    storage,
    ...devPorts({ clock: new ManualClock() }),
    delivery: createHttpDelivery({ allowPrivateNetworks: true }),
    config: { webhookConcurrency: CONCURRENCY, webhookEndpointConcurrency: CONCURRENCY / ENDPOINTS },
    worker: { batchSize: BATCH },
  });
  try {
    await engine.worker.runDue();
    const account = await engine.accounts.create({ name: "bench" });
    const ctx = systemContext(account.id, false);
    for (let i = 0; i < ENDPOINTS; i++) {
      (await engine.webhookEndpoints.create(ctx, { url: `${receiverUrl}/hooks/${i}`, enabled_events: ["*"] }))._unsafeUnwrap();
    }
    // the outbox: events written by commands, 100 per transaction
    const sample = { id: "po_bench", object: "payout", status: "settled", amount: "25", asset: "USDC", legs: [{ chain: "base", amount: "25" }] };
    const emit = async (prefix: string, count: number) => {
      for (let done = 0; done < count; done += 100) {
        await runCommand(engineDeps(engine), ctx, async (uow) => {
          for (let i = done; i < Math.min(count, done + 100); i++) uow.emit("payout.settled", { ...sample, reference: `${prefix}-${i}` });
          return ok(null);
        });
      }
    };
    // a long-running server's steady state (as the payouts bench): a round to warm up, untimed
    await emit("warm", WARM_UP_EVENTS);
    await engine.worker.runDue();
    await emit("bench", EVENTS);
    const cpu = process.cpuUsage();
    const start = performance.now();
    await engine.worker.runDue();
    const seconds = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    const logged = (
      await engine.webhookDeliveries.list(ctx, (await engine.webhookEndpoints.list(ctx, {}))._unsafeUnwrap().data[0]!.id, { limit: 1 })
    )._unsafeUnwrap().data.length;
    if (!logged) throw new Error("nothing was logged");
    const deliveries = EVENTS * ENDPOINTS;
    const perSecond = deliveries / seconds;
    const cpuMs = (used.user + used.system) / 1000 / deliveries;
    return {
      line: `${name.padEnd(13)} signed deliveries/s ${perSecond.toFixed(0).padStart(6)}   (${deliveries} attempts, fan-out and log included, ${seconds.toFixed(2)} s; CPU ${(cpuMs * 1000).toFixed(0)} µs a delivery, every thread)`,
      perSecond,
      cpuMs,
    };
  } finally {
    await engine.close();
  }
}

/** The same body signed and POSTed to the same receiver at the same concurrency: no storage. */
async function rawLoop(receiverUrl: string, count: number): Promise<{ perSecond: number; cpuMs: number }> {
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  const body = JSON.stringify({
    id: "evt_01kdvdna00vz7478fgef2x6dpj",
    object: "event",
    type: "payout.settled",
    created: "2026-01-01T00:00:00.000Z",
    livemode: false,
    data: { object: { id: "po_bench", object: "payout", status: "settled", amount: "25", asset: "USDC", reference: "bench-1" } },
    request: { id: null, idempotency_key: null },
  });
  const secret = "whsec_benchbenchbenchbenchbenchbenchbenchbenchbe";
  const loop = async (total: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < total) {
          const res = await request(`${receiverUrl}/raw`, {
            method: "POST",
            dispatcher: agent,
            body,
            headers: {
              "content-type": "application/json",
              "service-signature": signatureHeader(body, [secret], Math.floor(Date.now() / 1000)),
            },
          });
          await res.body.dump();
        }
      }),
    );
  };
  await loop(WARM_UP_EVENTS * ENDPOINTS); // as the engines warm up
  const cpu = process.cpuUsage();
  const start = performance.now();
  await loop(count);
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  await agent.close();
  const cpuMs = (used.user + used.system) / 1000 / count;
  console.log(
    `${"raw loop".padEnd(13)} signed POSTs/s      ${(count / seconds).toFixed(0).padStart(6)}   (sign + POST only, same receiver, concurrency ${CONCURRENCY}; CPU ${(cpuMs * 1000).toFixed(0)} µs a POST)`,
  );
  return { perSecond: count / seconds, cpuMs };
}

export async function benchWebhooks(): Promise<Figure[]> {
  const receiver = await startReceiver();
  try {
    console.log(`webhooks: ${EVENTS} events to ${ENDPOINTS} endpoints on one loopback receiver, ${CONCURRENCY} attempts in flight`);
    const memory = await benchEngine("memory", createMemoryStorage(), receiver.url);
    console.log(memory.line);
    // the embedded default's figure (one session: its reads and records take turns with everything else)
    const embedded = await benchEngine("pglite", await openPGlite(), receiver.url);
    console.log(embedded.line);
    // the same in a worker thread of its own (`PAYRAIL_PGLITE_THREAD=1`): the host's loop only posts statements
    const threaded = await benchEngine("pglite-thread", await openPGlite(undefined, { thread: true }), receiver.url);
    console.log(threaded.line);
    const url = process.env.DATABASE_URL;
    let server: { perSecond: number; cpuMs: number } | null = null;
    if (url) {
      const schema = `bench_wh_${process.pid}`;
      const storage = await connectPostgres(url, { schema, maxConnections: 16 });
      try {
        const run = await benchEngine("postgres", storage, receiver.url);
        console.log(run.line);
        server = run;
      } finally {
        await dropSchema(url, schema);
      }
    } else {
      console.log("postgres   (set DATABASE_URL to persist the delivery log on a PostgreSQL server)");
    }
    const raw = await rawLoop(receiver.url, EVENTS * ENDPOINTS);
    // issue 22's targets: the embedded default (`npm start`, PGlite in a thread of its own) and a server
    const runs: { store: string; run: { perSecond: number; cpuMs: number }; min?: number }[] = [
      { store: "memory", run: memory },
      { store: "pglite", run: embedded },
      { store: "pglite-thread", run: threaded, min: 0.7 },
      ...(server === null ? [] : [{ store: "postgres", run: server, min: 0.5 }]),
    ];
    return [
      ...runs.map(
        ({ store, run, min }): Figure => ({
          name: "signed webhook deliveries",
          store,
          value: run.perSecond,
          unit: "/s",
          floor: { value: raw.perSecond, what: "sign + POST loop" },
          ...(min !== undefined ? { target: { ratio: { min } } } : {}),
        }),
      ),
      // the CPU a delivery costs the process, every thread's (PGlite's own included): on a
      // machine whose cores are all busy, the throughput follows it
      ...runs.map(
        ({ store, run }): Figure => ({
          name: "CPU per signed delivery",
          store,
          value: run.cpuMs,
          unit: "ms",
          floor: { value: raw.cpuMs, what: "per POST of the loop" },
        }),
      ),
    ];
  } finally {
    await new Promise<void>((resolve) => {
      receiver.server.close(() => resolve());
      receiver.server.closeAllConnections();
    });
  }
}
