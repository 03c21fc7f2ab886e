import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { Engine, createEngine } from "../../src/engine";
import type { Clock } from "../../src/ports/clock";
import type { StorageAdapter } from "../../src/ports/storage";
import { systemContext } from "../../src/services/context";
import { createHttpDelivery } from "../delivery/http-delivery";
import { createHttpApp } from "../http/app";
import { connectPostgres, openPGlite } from "../postgres";
import { SystemClock } from "../clock";
import { SimulatedVenues } from "../venues/simulated";
import type { VenueAdapter } from "../../src/ports/venue";

export interface HostOptions {
  /** TCP port; 0 picks a free one (default 4000). */
  port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  hostname?: string;
  /** PGlite data folder when no `databaseUrl` (default `.payrail-data`). */
  dataDir?: string;
  /** Use a PostgreSQL server instead of embedded PGlite. */
  databaseUrl?: string;
  /** Fix the demo account's API key (`PAYRAIL_API_KEY`). */
  apiKey?: string;
  /** Use this storage instead of PGlite or `databaseUrl`. */
  storage?: StorageAdapter;
  clock?: Clock;
  /** Venues to convert on (default: the simulated venues on the host's clock). */
  venues?: VenueAdapter[];
  /** Where log lines go (default: nowhere). */
  log?: (line: string) => void;
  /**
   * Let webhooks reach plain-http, loopback and private receivers (local development;
   * `PAYRAIL_ALLOW_PRIVATE_WEBHOOKS=1`). Default false: HTTPS to public addresses only.
   */
  allowPrivateWebhooks?: boolean;
}

export interface RunningHost {
  url: string;
  apiKey: string;
  accountId: string;
  engine: Engine;
  /** Stops accepting requests, stops the workers and closes storage. */
  stop(): Promise<void>;
}

/** What a new demo account is funded with, per chain the asset lives on (test mode). */
export const DEMO_FUNDING: Record<string, string> = {
  USDC: "1000000",
  USDT: "1000000",
  EURC: "1000000",
  ETH: "1000",
  BTC: "100",
  SOL: "100000",
};

/**
 * The runnable host of DECISIONS.md §8: the whole /v1 API on embedded storage that survives a
 * restart, a funded test-mode demo account, and the background workers.
 */
export async function startHost(options: HostOptions = {}): Promise<RunningHost> {
  const log = options.log ?? (() => undefined);
  const storage =
    options.storage ??
    (options.databaseUrl
      ? await connectPostgres(options.databaseUrl)
      : await openPGlite(options.dataDir ?? ".payrail-data"));
  // The simulated venues price on the engine's own clock, so quotes move with real time.
  const clock = options.clock ?? new SystemClock();
  const engine = await createEngine({
    storage,
    clock,
    delivery: createHttpDelivery({ allowPrivateNetworks: options.allowPrivateWebhooks ?? false }),
    venues: options.venues ?? [new SimulatedVenues({ clock })],
    worker: { onError: (e) => log(`worker: ${e instanceof Error ? e.message : String(e)}`) },
  });
  try {
    const { accountId, apiKey } = await ensureDemoAccount(engine, options.apiKey, log);
    const app = createHttpApp(engine, {
      onInternalError: (e, requestId) => log(`${requestId}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
    });
    const hostname = options.hostname ?? "127.0.0.1";
    const server = await new Promise<Server>((resolve) => {
      const s = serve({ fetch: app.fetch, port: options.port ?? 4000, hostname }, () => resolve(s as Server));
    });
    const { port } = server.address() as AddressInfo;
    engine.worker.start();
    return {
      url: `http://${hostname}:${port}`,
      apiKey,
      accountId,
      engine,
      async stop() {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections?.();
        });
        await engine.close();
      },
    };
  } catch (e) {
    await engine.close();
    throw e;
  }
}

/** Creates the demo account on first start (funded) and makes sure its key works. */
async function ensureDemoAccount(
  engine: Engine,
  fixedKey: string | undefined,
  log: (line: string) => void,
): Promise<{ accountId: string; apiKey: string }> {
  const meta = (key: string) => engine.storage.transaction((tx) => tx.meta.get(key));
  let accountId = await meta("demo_account_id");
  if (!accountId) {
    const account = await engine.accounts.create({ name: "Demo", livemode: false });
    accountId = await engine.storage.transaction((tx) => tx.meta.setIfAbsent("demo_account_id", account.id));
    if (accountId === account.id) {
      const ctx = systemContext(accountId, false);
      for (const asset of engine.assets.list()) {
        const amount = DEMO_FUNDING[asset.code];
        if (!amount) continue;
        for (const chain of asset.chains) {
          const funded = await engine.testHelpers.fund(ctx, { asset: asset.code, chain, amount });
          if (funded.isErr()) throw funded.error;
        }
      }
      log(`created demo account ${accountId} and funded it`);
    }
  }
  // The demo key is kept in plain text so a restart can print it again: test mode only.
  const apiKey = fixedKey ?? (await meta("demo_api_key")) ?? undefined;
  const created = await engine.accounts.createApiKey(accountId, apiKey ? { key: apiKey } : {});
  if (created.isErr()) throw created.error;
  await engine.storage.transaction((tx) => tx.meta.set("demo_api_key", created.value.key));
  return { accountId, apiKey: created.value.key };
}
