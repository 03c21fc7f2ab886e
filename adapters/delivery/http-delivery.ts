import { lookup as dnsLookup } from "node:dns/promises";
import { EventEmitter } from "node:events";
import type { LookupFunction } from "node:net";
import { Agent } from "undici";
import { BoundedMap, type Clock, type DeliveryAdapter, type DeliveryRequest, type DeliveryResult } from "../../src/ports/public";
import { SystemClock } from "../clock/system-clock";
import { addressLiteral, refusedAddress, refusedName } from "./address-guard";
import { Deadlines } from "./deadlines";

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface HttpDeliveryOptions {
  /**
   * Allow plain `http:` and private, loopback, link-local and CGNAT receivers: local
   * development and tests (`PAYRAIL_ALLOW_PRIVATE_WEBHOOKS=1`). Default false: HTTPS to public
   * addresses only.
   */
  allowPrivateNetworks?: boolean;
  /** Times the attempts out (default the system clock; a test may pass a manual one). */
  clock?: Clock;
  /** Resolves a host name to every address it has (default `dns.lookup` with `all`). */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Connections kept open per receiver origin (default 64). */
  connectionsPerOrigin?: number;
  /**
   * The ports a receiver's URL may name, unless `allowPrivateNetworks` (default
   * `WEBHOOK_PORTS`: 443 and 8443). A URL without a port means 443.
   */
  ports?: readonly number[];
}

/** The ports a receiver may listen on outside the private-webhooks mode (see `HttpDeliveryOptions.ports`). */
export const WEBHOOK_PORTS: readonly number[] = [443, 8443];

/** What a receiver's answer body may cost us: read and dropped up to this, then the socket goes. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const USER_AGENT = "payrail-webhooks/1";

/** Raised by the guarded lookup; its message names the refused address. */
class AddressRefused extends Error {
  readonly code = "ADDRESS_REFUSED";
}

/**
 * The real delivery adapter, on undici (the HTTP client under Node's fetch): keep-alive
 * connections per receiver, no redirects followed (a 3xx is the receiver's answer), every
 * attempt cut at its timeout, and an SSRF guard. The guard resolves the host itself, refuses
 * the connection when any address of the name is private (unless the host opted in), and hands
 * the socket the very address it checked, so a second DNS answer (rebinding) is never used.
 * Address literals in the URL are checked before connecting.
 */
export function createHttpDelivery(options: HttpDeliveryOptions = {}): DeliveryAdapter {
  const allowPrivate = options.allowPrivateNetworks ?? false;
  const ports = options.ports ?? WEBHOOK_PORTS;
  const clock = options.clock ?? new SystemClock();
  const resolve = options.resolve ?? ((hostname: string) => dnsLookup(hostname, { all: true, verbatim: true }));
  /** Every address of `hostname`, or a refusal when any of them is off limits. */
  const addressesOf = async (hostname: string, family: number | undefined): Promise<ResolvedAddress[]> => {
    const badName = allowPrivate || addressLiteral(hostname) ? null : refusedName(hostname);
    if (badName) throw new AddressRefused(`address refused: ${badName}`);
    const usable = (await resolve(hostname)).filter((a) => !family || a.family === family);
    if (!usable.length) throw Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" });
    const refused = allowPrivate ? null : usable.map((a) => refusedAddress(a.address)).find((r) => r !== null);
    if (refused) throw new AddressRefused(`address refused: ${hostname} resolves to ${refused}`);
    return usable;
  };
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    const family = lookupOptions.family === "IPv4" ? 4 : lookupOptions.family === "IPv6" ? 6 : lookupOptions.family;
    addressesOf(hostname, family).then(
      (addresses) => {
        if (lookupOptions.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (e: NodeJS.ErrnoException) => callback(e, "", 0),
    );
  };
  const agent = new Agent({
    connections: options.connectionsPerOrigin ?? 64,
    keepAliveTimeout: 30_000,
    connect: { lookup },
  });

  const deadlines = new Deadlines(clock);

  const checkUrl = (url: URL): string | null => {
    if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) {
      return allowPrivate ? "the URL must use https or http" : "the URL must use https";
    }
    if (url.username || url.password) return "the URL must not carry credentials";
    if (allowPrivate) return null;
    if (!ports.includes(url.port === "" ? 443 : Number(url.port))) return `the URL's port must be one of ${ports.join(", ")}`;
    const literal = addressLiteral(url.hostname);
    if (literal) return refusedAddress(literal);
    return refusedName(url.hostname);
  };

  // Receivers are few and their URLs repeat: each is parsed and judged once, not per attempt.
  const targets = new BoundedMap<string, { origin: string; path: string } | string>(1024);
  /** Where an attempt to `text` goes, or why it may not go there. */
  const targetOf = (text: string): { origin: string; path: string } | string => {
    let target = targets.get(text);
    if (target === undefined) {
      let url: URL | null = null;
      try {
        url = new URL(text);
      } catch {
        target = "invalid URL";
      }
      if (url) {
        const refused = checkUrl(url);
        target = refused ? `address refused: ${refused}` : { origin: url.origin, path: `${url.pathname}${url.search}` };
      }
      targets.set(text, target!);
    }
    return target!;
  };

  return {
    name: "http",
    checkUrl,
    async send(req: DeliveryRequest): Promise<DeliveryResult> {
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      const target = targetOf(req.url);
      if (typeof target === "string") return { kind: "error", error: target, latencyMs: 0 };
      // undici takes an emitter as the signal too: far cheaper than an AbortController per attempt
      const abort: EventEmitter & { aborted?: boolean; reason?: unknown } = new EventEmitter();
      let timedOut = false;
      const answered = deadlines.add(req.timeoutMs, () => {
        timedOut = true;
        abort.aborted = true;
        abort.reason = new Error(`timeout after ${req.timeoutMs} ms`);
        abort.emit("abort");
      });
      try {
        const res = await agent.request({
          origin: target.origin,
          path: target.path,
          method: "POST",
          headers: { "user-agent": USER_AGENT, ...req.headers },
          body: req.body,
          signal: abort,
        });
        await res.body.dump({ limit: MAX_RESPONSE_BYTES });
        return {
          kind: "response",
          status: res.statusCode,
          retryAfterSeconds: parseRetryAfter(res.headers["retry-after"], clock.now()),
          latencyMs: latency(),
        };
      } catch (e) {
        return { kind: "error", error: timedOut ? `timeout after ${req.timeoutMs} ms` : describe(e), latencyMs: latency() };
      } finally {
        answered();
      }
    },
    async close() {
      deadlines.close();
      await agent.close();
    },
  };
}

/** `Retry-After` as whole seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return null;
  const trimmed = text.trim();
  if (/^[0-9]{1,10}$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** A short, stable description of a failed attempt for the delivery log. */
function describe(e: unknown): string {
  const err = e as { code?: string; message?: string; cause?: unknown };
  if (err instanceof AddressRefused) return err.message;
  const cause = err.cause as { code?: string; message?: string } | undefined;
  const code = err.code ?? cause?.code;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE") return "connection reset";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `host not found`;
  if (cause instanceof AddressRefused) return cause.message;
  const message = err.message ?? String(e);
  return (code ? `${code}: ${message}` : message).slice(0, 300);
}
