import { hostname } from "node:os";
import type { Command } from "commander";
import type { Colors } from "picocolors/types";
import { randomToken, cryptoRandom } from "../../../src/ids";
import { ApiCallError, type EventEnvelope, type ListOf, type PayrailClient } from "../api-client";
import { followEvents, hostNow } from "../event-stream";
import { readConfig, updateProfile } from "../config";
import { CliError, untilAborted, type CliIo } from "../io";
import { Forwarder, type ForwardAttempt } from "../listen/forwarder";
import { PushReceiver } from "../listen/push-receiver";
import { clockTime, colorStatus, colorType, jsonLine, pad, retryNotice } from "../output";
import type { CliCommand } from "../program";
import { collectTypes } from "./events";

interface ListenOptions {
  forwardTo?: string;
  printSecret?: boolean;
  events?: string[];
  mode: "auto" | "push" | "poll";
  publicUrl?: string;
  port?: number;
  maxAttempts: number;
  json?: boolean;
}

interface WebhookEndpoint {
  id: string;
  url: string;
  description: string | null;
  secret?: string;
}

/** What marks `listen`'s own endpoints, so a later run can remove one whose listener died. */
const DESCRIPTION = /^payrail listen \(temporary\) pid (\d+) on (.+)$/;

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\./.test(host);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The signing secret of `listen` for this host and profile: the one the profile keeps, or a new
 * one it keeps from now on, so a receiver's configured secret survives restarts of `listen`.
 */
function listenSecret(path: string, profile: string, host: string): string {
  const kept = readConfig(path).profiles[profile]?.listen_secrets?.[host];
  if (kept) return kept; // the file is written only when a secret is new
  return updateProfile(path, profile, (p) => {
    const secrets = (p.listen_secrets ??= {});
    return (secrets[host] ??= `whsec_${randomToken(cryptoRandom, 32)}`);
  });
}

/** Removes endpoints left by `listen` runs on this machine whose process is gone (killed hard). */
async function removeStale(client: PayrailClient, say: (text: string) => void, signal: AbortSignal): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await client.get<ListOf<WebhookEndpoint>>("/v1/webhook_endpoints", { query: { limit: 100, starting_after: cursor }, signal });
    for (const endpoint of page.data) {
      const m = DESCRIPTION.exec(endpoint.description ?? "");
      if (!m || m[2] !== hostname() || alive(Number(m[1]))) continue;
      await client.delete(`/v1/webhook_endpoints/${endpoint.id}`, { signal }).catch(() => undefined);
      say(`removed ${endpoint.id}, left behind by a listen that was killed (pid ${m[1]})`);
    }
    cursor = page.has_more && page.next_cursor ? page.next_cursor : undefined;
  } while (cursor);
}

/** The line (or JSON object) one forwarding attempt prints. */
function attemptLine(io: CliIo, c: Colors, json: boolean, a: ForwardAttempt): void {
  if (json) {
    io.stdout.write(
      jsonLine({
        event: a.event.id,
        type: a.event.type,
        resource: a.resource,
        attempt: a.attempt,
        status: a.status,
        latency_ms: a.latencyMs,
        outcome: a.outcome,
        error: a.error,
        retry_in_ms: a.retryInMs,
        late: a.late,
      }),
    );
    return;
  }
  const mark = a.outcome === "delivered" ? c.green("→") : a.outcome === "retrying" ? c.yellow("↻") : c.red("✖");
  const status = colorStatus(c, a.status, a.status === null ? "ERR" : String(a.status));
  let tailText = "";
  if (a.outcome === "retrying") tailText = c.yellow(`  ${a.error}; attempt ${a.attempt + 1} in ${a.retryInMs} ms`);
  else if (a.outcome === "gave_up") tailText = c.red(`  ${a.error}; gave up after ${a.attempt} attempt(s)`);
  else if (a.attempt > 1) tailText = c.dim(`  (attempt ${a.attempt})`);
  if (a.late) tailText += c.yellow("  late: a newer event of this resource went first");
  io.stdout.write(
    `${c.dim(clockTime(Date.now()))}  ${mark} ${pad(colorType(c, a.event.type), 32)} ${a.event.id}  ${pad(c.bold(a.resource), 34)} ` +
      `${pad(status, 4)} ${pad(`${a.latencyMs} ms`, 8)}${tailText}\n`,
  );
}

/**
 * `payrail listen --forward-to URL`: forwards the account's events to a local receiver, signed,
 * in order per resource, retried locally, with a line per attempt.
 */
export const listenCommand: CliCommand = {
  register(program, ctx) {
    program
      .command("listen")
      .description("forward the account's events to a local URL, signed, in order per resource, retried on failure")
      .option("--forward-to <url>", "where to send each event, e.g. http://localhost:3000/webhooks (required unless --print-secret)")
      .option("--print-secret", "print the signing secret (the same on every run for this host and profile) and exit")
      .option("--events <types>", "only these types (comma-separated or repeated; default all)", collectTypes)
      .option(
        "--mode <mode>",
        "push: the host delivers to a temporary endpoint here; poll: long-poll GET /v1/events (the host cannot reach this machine); auto: push when it can",
        "auto",
      )
      .option("--public-url <url>", "the URL at which the host reaches this listener (push mode through a tunnel)")
      .option("--port <port>", "local port for push deliveries (default: any free one)", (v) => Number(v))
      .option("--max-attempts <n>", "attempts per event before giving up (default 6)", (v) => Number(v), 6)
      .option("--json", "one JSON object per attempt")
      .action(async (options: ListenOptions, cmd: Command) => {
        const { io } = ctx;
        const c = ctx.colors(cmd);
        const profile = ctx.profile(cmd);
        if (options.printSecret) {
          io.stdout.write(`${listenSecret(profile.path, profile.name, ctx.hostUrl(cmd))}\n`);
          return;
        }
        if (options.forwardTo === undefined) throw new CliError("--forward-to <url> is required (or --print-secret)", 2);
        let target: URL;
        try {
          target = new URL(options.forwardTo);
        } catch {
          throw new CliError(`--forward-to must be a URL, got ${options.forwardTo}`, 2);
        }
        if (!["auto", "push", "poll"].includes(options.mode)) throw new CliError(`--mode is auto, push or poll, got ${options.mode}`, 2);
        if (!(Number.isInteger(options.maxAttempts) && options.maxAttempts >= 1)) throw new CliError("--max-attempts must be 1 or more", 2);
        const client = ctx.client(cmd);
        const secret = listenSecret(profile.path, profile.name, client.baseUrl);
        const note = (text: string) => io.stderr.write(`${c.dim(">")} ${text}\n`);
        const types = options.events ?? [];

        let mode: "push" | "poll" = options.mode === "auto" ? (options.publicUrl || isLoopback(client.baseUrl) ? "push" : "poll") : options.mode;
        let receiver: PushReceiver | null = null;
        let endpoint: WebhookEndpoint | null = null;
        let forwarder: Forwarder | null = null;
        const enqueue = (raw: string, event: EventEnvelope) => forwarder?.enqueue(raw, event);

        if (mode === "push") {
          await removeStale(client, note, io.signal).catch(() => undefined);
          receiver = await PushReceiver.start({
            port: options.port ?? 0,
            hostname: options.publicUrl ? "0.0.0.0" : "127.0.0.1",
            onEvent: enqueue,
            onRefused: (reason) => note(c.yellow(`refused a request: ${reason}`)),
          });
          const url = options.publicUrl ?? `http://127.0.0.1:${receiver.port}/`;
          try {
            endpoint = await client.post<WebhookEndpoint>("/v1/webhook_endpoints", {
              url,
              enabled_events: types.length ? types : ["*"],
              description: `payrail listen (temporary) pid ${process.pid} on ${hostname()}`,
              secret,
            });
            receiver.accept(secret);
          } catch (e) {
            await receiver.close();
            receiver = null;
            const refusedUrl = e instanceof ApiCallError && e.status === 400 && e.param === "url";
            if (options.mode === "push" || !refusedUrl) throw e;
            note(
              `long-polling the host's events (it delivers webhooks to public HTTPS URLs only; PAYRAIL_ALLOW_PRIVATE_WEBHOOKS=1 on the host lets it push here)`,
            );
            mode = "poll";
          }
        }

        forwarder = new Forwarder({
          target: target.toString(),
          secret,
          maxAttempts: options.maxAttempts,
          onAttempt: (a) => attemptLine(io, c, options.json === true, a),
        });
        const what = types.length ? types.join(", ") : "all";
        io.stderr.write(
          `${c.green("Ready!")} Forwarding ${what} events to ${c.cyan(target.toString())}\n` +
            `Your webhook signing secret is ${c.bold(secret)}\n` +
            c.dim(
              mode === "push"
                ? `(temporary endpoint ${endpoint!.id}, removed on exit; Ctrl-C to quit)`
                : `(long-polling ${client.baseUrl}/v1/events; Ctrl-C to quit)`,
            ) +
            "\n",
        );

        let polling: Promise<void> = Promise.resolve();
        // Ctrl-C while the starting point is read stops here, like Ctrl-C at any other moment
        const startAt = mode === "poll" ? await hostNow(client, io.signal).catch((e: unknown) => (io.signal.aborted ? null : Promise.reject(e))) : null;
        if (startAt !== null) {
          const notice = retryNotice(note, c);
          polling = followEvents(
            client,
            {
              types,
              startAt,
              onEvents: (events) => {
                notice.clear();
                for (const e of events) enqueue(JSON.stringify(e), e);
              },
              onError: notice.report,
            },
            io.signal,
          );
        }

        await untilAborted(io.signal);
        await polling;
        await receiver?.close();
        const { pending } = await forwarder.close();
        let removed = "";
        if (endpoint) {
          try {
            await client.delete(`/v1/webhook_endpoints/${endpoint.id}`);
            removed = `; removed ${endpoint.id}`;
          } catch (e) {
            removed = `; could not remove ${endpoint.id}: ${e instanceof Error ? e.message : String(e)}`;
            ctx.setExitCode(1);
          }
        }
        io.stderr.write(
          `${c.dim(">")} forwarded ${forwarder.delivered}, gave up on ${forwarder.gaveUp}${pending ? `, left ${pending} undelivered` : ""}${removed}\n`,
        );
      });
  },
};
