import type { Command } from "commander";
import { CliError, untilAborted } from "../io";
import type { CliCommand } from "../program";
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from "../../http/server-limits";

/** The password of a database URL, so the logs can scrub it wherever it appears. */
function urlPassword(url: string | undefined): string[] {
  if (!url) return [];
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password ? [password] : [];
  } catch {
    return [];
  }
}

/** `payrail serve`: the runnable host of docs/decisions.md §8 (what `npm start` runs). */
export const serveCommand: CliCommand = {
  register(program, ctx) {
    program
      .command("serve")
      .description("run the host: the whole /v1 API, the workers, /healthz, /readyz and /metrics")
      .option("--port <port>", "port to listen on (env PORT, default 4000)")
      .option("--host <interface>", "interface to listen on (env HOST, default 127.0.0.1)")
      .addHelpText(
        "after",
        `
Environment:
  PORT, HOST           where to listen (default 127.0.0.1:4000)
  PAYRAIL_API_KEY      fix the demo account's test key
  PAYRAIL_DATA_DIR     embedded storage and report files folder (default .payrail-data)
  PAYRAIL_PUBLIC_URL   origin clients reach the server at, for report download links
                       (default: the address the request's connection reached, never Host)
  PAYRAIL_HEADERS_TIMEOUT_SECONDS, PAYRAIL_REQUEST_TIMEOUT_SECONDS, PAYRAIL_KEEP_ALIVE_TIMEOUT_SECONDS
                       time to send the headers (default 10), a whole request (60), and how long
                       an idle connection is kept (5); a client over them is cut off
  PAYRAIL_MAX_CONNECTIONS
                       connections open at once; more are closed at once (default 1024)
  PAYRAIL_METRICS_TOKEN
                       GET /metrics needs Authorization: Bearer <token> (default: open)
  PAYRAIL_METRICS_ENDPOINT_LABELS=1
                       label webhook attempt metrics with each endpoint id (default: outcome only)
  PAYRAIL_PGLITE_THREAD=0
                       run the embedded storage in the thread that serves requests (default 1:
                       in a worker thread of its own)
  DATABASE_URL         use a PostgreSQL server instead of embedded storage
  PAYRAIL_DB_PARTITIONS
                       with DATABASE_URL: hash-partition the big tables by account into this
                       many partitions, 2 to 64 (the layout Citus distributes, docs/scaling.md)
  PAYRAIL_ALLOW_PRIVATE_WEBHOOKS=1
                       let webhooks reach plain-http and loopback receivers (local development)
  PAYRAIL_CHAINS       live EVM and Solana chains: JSON, or @path to a JSON file (see docs/chains.md)
  PAYRAIL_VENUES       live venues (Uniswap v2 pools on those EVM chains): JSON, or @path (see docs/quotes.md)
  PAYRAIL_SIGNER_MNEMONIC
                       BIP-39 mnemonic of the hot wallets (index 0) and deposit addresses
  PAYRAIL_LIVE_API_KEY make (or find) a live demo account with this sk_live_ key
  PAYRAIL_SEND_CLAIM_SECONDS
                       how long a leg being sent belongs to its process (default 60)
  PAYRAIL_WEBHOOK_DISABLE_AFTER_SECONDS
                       disable a webhook endpoint whose every delivery failed this long (default 432000: 5 days)
  PAYRAIL_HEARTBEAT_SECONDS, PAYRAIL_OWNER_LIFETIME_SECONDS
                       with DATABASE_URL: how often this process says it is alive (default 1),
                       and after how long without a word others take its work over (default 5)
  LOG_LEVEL            trace, debug, info (default), warn, error, silent; JSON lines on stderr
  PAYRAIL_SHUTDOWN_GRACE_SECONDS
                       how long SIGTERM waits for work in flight (default 10)`,
      )
      .action(async (options: { port?: string; host?: string }, cmd: Command) => {
        const { io } = ctx;
        const env = io.env;
        const portText = options.port ?? env.PORT;
        const port = portText === undefined ? 4000 : Number(portText);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`PORT must be a port number, got ${portText}`, 2);
        // loaded here: the other commands need neither pino nor the host's storage and HTTP server
        const { createLogger, isLogLevel } = await import("../../logging/logger");
        const level = env.LOG_LEVEL ?? "info";
        if (!isLogLevel(level)) throw new CliError(`LOG_LEVEL must be trace, debug, info, warn, error, fatal or silent, got ${level}`, 2);
        const claimText = env.PAYRAIL_SEND_CLAIM_SECONDS;
        const claimSeconds = claimText ? Number(claimText) : null;
        if (claimSeconds !== null && !(Number.isInteger(claimSeconds) && claimSeconds >= 1)) {
          throw new CliError(`PAYRAIL_SEND_CLAIM_SECONDS must be a whole number of seconds, got ${claimText}`, 2);
        }
        const disableText = env.PAYRAIL_WEBHOOK_DISABLE_AFTER_SECONDS;
        const disableSeconds = disableText ? Number(disableText) : null;
        if (disableSeconds !== null && !(Number.isInteger(disableSeconds) && disableSeconds >= 1)) {
          throw new CliError(`PAYRAIL_WEBHOOK_DISABLE_AFTER_SECONDS must be a whole number of seconds, got ${disableText}`, 2);
        }
        const heartbeat = heartbeatOf(env.PAYRAIL_HEARTBEAT_SECONDS, env.PAYRAIL_OWNER_LIFETIME_SECONDS);
        const serverLimits = serverLimitsOf(env);
        const graceText = env.PAYRAIL_SHUTDOWN_GRACE_SECONDS;
        const grace = graceText === undefined ? 10 : Number(graceText);
        if (!(grace >= 0)) throw new CliError(`PAYRAIL_SHUTDOWN_GRACE_SECONDS must be a number of seconds, got ${graceText}`, 2);
        const logger = createLogger({
          level,
          secrets: [
            env.PAYRAIL_API_KEY,
            env.PAYRAIL_LIVE_API_KEY,
            env.PAYRAIL_SIGNER_MNEMONIC,
            env.PAYRAIL_METRICS_TOKEN,
            ...urlPassword(env.DATABASE_URL),
          ].filter((s): s is string => typeof s === "string" && s !== ""),
        });
        if (env.PAYRAIL_VENUES && !env.PAYRAIL_CHAINS)
          throw new CliError("PAYRAIL_VENUES needs PAYRAIL_CHAINS: a live venue swaps with a live chain's hot wallet", 2);
        const mnemonic = env.PAYRAIL_SIGNER_MNEMONIC;
        delete env.PAYRAIL_SIGNER_MNEMONIC; // kept by the signer alone, not by the environment
        const { startHost } = await import("../host");
        const { LiveConfigurationError } = await import("../live-checks");
        const refused = (e: unknown) => {
          // a live setting the chains refute: its lines, no stack trace
          throw e instanceof LiveConfigurationError ? new CliError(e.message, 2) : e;
        };
        const host = await startHost({
          port,
          hostname: options.host ?? env.HOST ?? "127.0.0.1",
          ...(env.PAYRAIL_DATA_DIR ? { dataDir: env.PAYRAIL_DATA_DIR } : {}),
          ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}),
          ...(env.PAYRAIL_PGLITE_THREAD ? { pgliteThread: env.PAYRAIL_PGLITE_THREAD !== "0" } : {}),
          ...(env.PAYRAIL_DB_PARTITIONS ? { databasePartitions: partitionsOf(env.PAYRAIL_DB_PARTITIONS) } : {}),
          ...(env.PAYRAIL_API_KEY ? { apiKey: env.PAYRAIL_API_KEY } : {}),
          ...(env.PAYRAIL_PUBLIC_URL ? { publicUrl: env.PAYRAIL_PUBLIC_URL } : {}),
          allowPrivateWebhooks: env.PAYRAIL_ALLOW_PRIVATE_WEBHOOKS === "1",
          ...(env.PAYRAIL_CHAINS
            ? { live: { chains: env.PAYRAIL_CHAINS, ...(mnemonic ? { mnemonic } : {}), ...(env.PAYRAIL_VENUES ? { venues: env.PAYRAIL_VENUES } : {}) } }
            : {}),
          ...(env.PAYRAIL_LIVE_API_KEY ? { liveApiKey: env.PAYRAIL_LIVE_API_KEY } : {}),
          ...(claimSeconds !== null ? { sendClaimMs: claimSeconds * 1000 } : {}),
          ...(disableSeconds !== null ? { webhookDisableAfterMs: disableSeconds * 1000 } : {}),
          ...(heartbeat ? { heartbeat } : {}),
          shutdownGraceMs: grace * 1000,
          serverLimits,
          ...(env.PAYRAIL_METRICS_TOKEN ? { metricsToken: env.PAYRAIL_METRICS_TOKEN } : {}),
          metricsEndpointLabels: env.PAYRAIL_METRICS_ENDPOINT_LABELS === "1",
          logger,
        }).catch(refused);
        const c = ctx.colors(cmd);
        io.stdout.write(
          `${c.bold("payrail")} listening on ${c.cyan(host.url)}\n` +
            `test API key: ${host.apiKey}\n` +
            (host.liveAccountId ? `live account: ${host.liveAccountId} (key from PAYRAIL_LIVE_API_KEY)\n` : "") +
            `try: export PAYRAIL_URL=${host.url} PAYRAIL_API_KEY=${host.apiKey}\n` +
            `     curl -H "Authorization: Bearer $PAYRAIL_API_KEY" $PAYRAIL_URL/v1/balances\n` +
            `     npx payrail listen --forward-to http://localhost:3000/webhooks\n` +
            `health: ${host.url}/healthz ${host.url}/readyz  metrics: ${host.url}/metrics\n` +
            (host.consoleUrl ? `console: ${c.cyan(host.consoleUrl)} (sign in with any user name and the API key as the password)\n` : ""),
        );
        await untilAborted(io.signal);
        io.stdout.write("shutting down\n");
        const report = await host.stop();
        io.stdout.write(
          `stopped in ${report.durationMs} ms` +
            (report.connectionsCut || report.leasesReleased
              ? ` (cut ${report.connectionsCut} connection(s), gave back ${report.leasesReleased} lease(s))`
              : "") +
            "\n",
        );
      });
  },
};

/** `PAYRAIL_HEARTBEAT_SECONDS` and `PAYRAIL_OWNER_LIFETIME_SECONDS` as heartbeat options (null: both unset). */
function heartbeatOf(intervalText: string | undefined, lifetimeText: string | undefined): { intervalMs?: number; lifetimeMs?: number } | null {
  if (intervalText === undefined && lifetimeText === undefined) return null;
  const seconds = (name: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!(n > 0 && Number.isFinite(n))) throw new CliError(`${name} must be a positive number of seconds, got ${text}`, 2);
    return Math.round(n * 1000);
  };
  const intervalMs = seconds("PAYRAIL_HEARTBEAT_SECONDS", intervalText) ?? 1_000;
  const lifetimeMs = seconds("PAYRAIL_OWNER_LIFETIME_SECONDS", lifetimeText) ?? 5_000;
  if (lifetimeMs < 2 * intervalMs) throw new CliError("PAYRAIL_OWNER_LIFETIME_SECONDS must be at least twice PAYRAIL_HEARTBEAT_SECONDS", 2);
  return { intervalMs, lifetimeMs };
}

/** The HTTP server's timeouts and connection cap from the environment (unset: the defaults). */
function serverLimitsOf(env: Record<string, string | undefined>): Partial<ServerLimits> {
  const limits: Partial<ServerLimits> = {};
  const seconds: [string, keyof ServerLimits][] = [
    ["PAYRAIL_HEADERS_TIMEOUT_SECONDS", "headersTimeoutMs"],
    ["PAYRAIL_REQUEST_TIMEOUT_SECONDS", "requestTimeoutMs"],
    ["PAYRAIL_KEEP_ALIVE_TIMEOUT_SECONDS", "keepAliveTimeoutMs"],
  ];
  for (const [name, limit] of seconds) {
    const text = env[name];
    if (text === undefined) continue;
    const n = Number(text);
    if (!(n > 0 && Number.isFinite(n))) throw new CliError(`${name} must be a positive number of seconds, got ${text}`, 2);
    limits[limit] = Math.round(n * 1000);
  }
  const cap = env.PAYRAIL_MAX_CONNECTIONS;
  if (cap !== undefined) {
    if (!/^[1-9][0-9]*$/.test(cap)) throw new CliError(`PAYRAIL_MAX_CONNECTIONS must be a positive whole number, got ${cap}`, 2);
    limits.maxConnections = Number(cap);
  }
  const headers = limits.headersTimeoutMs ?? DEFAULT_SERVER_LIMITS.headersTimeoutMs;
  if ((limits.requestTimeoutMs ?? DEFAULT_SERVER_LIMITS.requestTimeoutMs) < headers) {
    throw new CliError("PAYRAIL_REQUEST_TIMEOUT_SECONDS must be at least PAYRAIL_HEADERS_TIMEOUT_SECONDS (10 by default)", 2);
  }
  return limits;
}

/** `PAYRAIL_DB_PARTITIONS`: a whole number from 2 to 64 (exit 2 otherwise, as the other variables). */
function partitionsOf(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 2 || n > 64) throw new CliError(`PAYRAIL_DB_PARTITIONS must be a whole number from 2 to 64, got ${text}`, 2);
  return n;
}
