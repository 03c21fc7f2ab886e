import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { SystemClock } from "../adapters/clock";
import { createHttpDelivery } from "../adapters/delivery";
import { createMemoryStorage } from "../adapters/memory";
import { connectPostgres, openPGlite } from "../adapters/postgres";
import { devPorts } from "../adapters/dev";
import { systemContext } from "../src/engine/context";
import { createEngine } from "../src/modules";
import type { StorageAdapter } from "../src/ports/storage";
import type { Figure } from "./table";
import { dropSchema } from "./schemas";

/**
 * Fair delivery across accounts (issue #25): account A has 8 `*` endpoints whose receiver
 * answers nothing for 15 s (the attempts' deadline) and a backlog of events; account B has one
 * endpoint on a receiver that answers at once. With the engine's polling loop running on the
 * system clock, B emits events one at a time while A's attempts hang: the figure is the time from
 * B's command to B's receiver (p50 and max). Before fair slots, A held all 64 and B waited for a
 * timeout (29–30 s in the issue).
 */
const SLOW_ENDPOINTS = 8;
const SLOW_EVENTS = Number(process.env.BENCH_FAIR_BACKLOG ?? 200);
const SAMPLES = 20;
const HANG_MS = 15_000;

interface Receiver {
  server: Server;
  url: string;
  arrived: (n: number) => Promise<void>;
  count: () => number;
  close: () => Promise<void>;
}

/** A loopback receiver that answers at once, or never (`hang`). */
async function receiver(hang: boolean): Promise<Receiver> {
  let received = 0;
  const waiting: { n: number; resolve: () => void }[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      for (const w of waiting.filter((w) => received >= w.n)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
      if (!hang) res.end("ok");
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => received,
    arrived: (n) => (received >= n ? Promise.resolve() : new Promise((resolve) => waiting.push({ n, resolve }))),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function benchStore(name: string, storage: StorageAdapter): Promise<{ p50: number; max: number }> {
  const slow = await receiver(true);
  const fast = await receiver(false);
  const engine = await createEngine({
    storage,
    ...devPorts({ clock: new SystemClock() }),
    delivery: createHttpDelivery({ allowPrivateNetworks: true }),
    config: { webhookTimeoutMs: HANG_MS },
    worker: { pollMs: 50 },
  });
  try {
    const a = systemContext((await engine.accounts.create({ name: "A" })).id, false);
    const b = systemContext((await engine.accounts.create({ name: "B" })).id, false);
    for (let i = 0; i < SLOW_ENDPOINTS; i++) (await engine.webhookEndpoints.create(a, { url: `${slow.url}/a${i}`, enabled_events: ["*"] }))._unsafeUnwrap();
    (await engine.webhookEndpoints.create(b, { url: `${fast.url}/b`, enabled_events: ["*"] }))._unsafeUnwrap();
    for (let i = 0; i < SLOW_EVENTS; i++) (await engine.testHelpers.triggerEvent(a, { type: "balance.updated" }))._unsafeUnwrap();
    engine.worker.start();
    await slow.arrived(32); // A holds its share of the 64 slots, every attempt hanging
    const latencies: number[] = [];
    for (let i = 1; i <= SAMPLES; i++) {
      const started = performance.now();
      (await engine.testHelpers.triggerEvent(b, { type: "payout.created" }))._unsafeUnwrap();
      await fast.arrived(i);
      latencies.push(performance.now() - started);
    }
    console.log(`${name.padEnd(10)} in order (ms): ${latencies.map((l) => l.toFixed(0)).join(" ")}`);
    latencies.sort((x, y) => x - y);
    const p50 = latencies[Math.floor(latencies.length / 2)]!;
    const max = latencies.at(-1)!;
    console.log(
      `${name.padEnd(10)} B's event to B's receiver: p50 ${p50.toFixed(1)} ms, max ${max.toFixed(1)} ms (${SAMPLES} events; A: ${SLOW_ENDPOINTS} endpoints hanging ${HANG_MS / 1000} s, ${slow.count()} attempts in flight, ${SLOW_EVENTS * SLOW_ENDPOINTS} items)`,
    );
    return { p50, max };
  } finally {
    await slow.close(); // A's attempts fail now; the engine stops without waiting for 15 s
    await engine.close();
    await fast.close();
  }
}

export async function benchWebhookFairness(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const add = (store: string, r: { p50: number; max: number }) =>
    figures.push(
      { name: "another account's event, A's 8 endpoints hanging (p50)", store, value: r.p50, unit: "ms", target: { value: { max: 1_000 } } },
      { name: "another account's event, A's 8 endpoints hanging (max)", store, value: r.max, unit: "ms", target: { value: { max: 1_000 } } },
    );
  add("memory", await benchStore("memory", createMemoryStorage()));
  add("pglite", await benchStore("pglite", await openPGlite()));
  const url = process.env.DATABASE_URL;
  if (url) {
    const schema = `bench_fair_${process.pid}`;
    try {
      add("postgres", await benchStore("postgres", await connectPostgres(url, { schema, maxConnections: 16 })));
    } finally {
      await dropSchema(url, schema);
    }
  }
  return figures;
}
