import pino, { type DestinationStream, type Level, type Logger } from "pino";
import type { EngineObserver } from "../../src/ports/public";

export type { Logger } from "pino";

/** What a secret is replaced with in a log line. */
export const REDACTED = "[redacted]";

/** Keys whose values are never logged, whatever they hold (compared without case, `_` or `-`). */
const SECRET_KEYS = new Set(
  [
    "authorization",
    "apikey",
    "key",
    "secret",
    "secrets",
    "password",
    "passphrase",
    "mnemonic",
    "signermnemonic",
    "payrailsignermnemonic",
    "payrailapikey",
    "payrailliveapikey",
    "privatekey",
    "token",
    "cookie",
    "setcookie",
    "databaseurl",
    "connectionstring",
  ].map(normaliseKey),
);

/** Secrets recognisable by their shape, wherever they appear in text. */
const SECRET_PATTERNS: [RegExp, string | ((...m: string[]) => string)][] = [
  [/\bsk_(?:test|live)_[A-Za-z0-9_-]+/g, REDACTED], // API keys
  [/\bwhsec_[A-Za-z0-9_-]+/g, REDACTED], // webhook signing secrets
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, (_m, scheme) => `${scheme} ${REDACTED}`],
  // the password of a URL: postgres://user:password@host
  [/\b([a-z][a-z0-9+.-]*:\/\/[^:/?#\s@"]*:)[^@\s/"]+@/gi, (_m, head) => `${head}${REDACTED}@`],
];

function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, "");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * `text` with every secret replaced by `[redacted]`: API keys, webhook secrets, bearer tokens and
 * URL passwords by their shape, and each of `known` (the host's mnemonic, database password,
 * fixed keys) wherever it appears, also as it reads inside a JSON string.
 */
export function redactSecrets(text: string, known: readonly string[] = []): string {
  let out = text;
  for (const value of known) {
    if (value.length < 6) continue; // too short to be a secret worth a blind replace
    for (const form of new Set([value, JSON.stringify(value).slice(1, -1)])) {
      out = out.replace(new RegExp(escapeRegExp(form), "g"), REDACTED);
    }
  }
  for (const [pattern, replacement] of SECRET_PATTERNS) {
    out = out.replace(pattern, replacement as string);
  }
  return out;
}

/** A copy of a log record with the values of secret-named keys redacted, errors made plain. */
function redactKeys(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return redactKeys(pino.stdSerializers.err(value), depth + 1);
  if (Array.isArray(value)) return value.map((v) => redactKeys(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEYS.has(normaliseKey(k)) && v !== null && v !== undefined ? REDACTED : redactKeys(v, depth + 1);
  }
  return out;
}

export interface LoggerOptions {
  /** `trace`, `debug`, `info` (default), `warn`, `error`, `fatal` or `silent`. */
  level?: string;
  /** Where lines go (default: standard error, so standard output stays for what a command prints). */
  destination?: DestinationStream;
  /** Secret values to scrub wherever they appear: the mnemonic, the database URL's password, fixed keys. */
  secrets?: readonly string[];
  /** Fields on every line (default `{ service: "payrail" }`). */
  base?: Record<string, unknown>;
}

/**
 * The host's structured logger (pino): one JSON object per line with `level`, `time`, `msg` and
 * the record's fields (`request_id` on request lines). Secrets never reach the output: values of
 * secret-named keys (`authorization`, `secret`, `mnemonic`, `password`, …) are redacted in the
 * record, and every finished line is scrubbed of API keys, webhook secrets, bearer tokens, URL
 * passwords and the values the host names in `secrets`.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const known = (options.secrets ?? []).filter((s) => s.length > 0);
  return pino(
    {
      level: options.level ?? "info",
      base: options.base ?? { service: "payrail" },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (record) => redactKeys(record) as Record<string, unknown>,
      },
      hooks: { streamWrite: (line) => redactSecrets(line, known) },
    },
    options.destination ?? pino.destination({ dest: 2, sync: true }),
  );
}

/** Whether `level` is one pino knows (for validating `LOG_LEVEL`). */
export function isLogLevel(level: string): level is Level | "silent" {
  return level === "silent" || Object.hasOwn(pino.levels.values, level);
}

/**
 * Logs what the engine reports: every request (info; 5xx as error) with its `request_id`,
 * `correlation_id` (the client's `X-Request-Id`, else the request id), route, status, duration,
 * and once its key was accepted `account`, `key_id` and `idempotency_key` (present only when
 * known); due work that failed for the last time (error); adapter calls that threw (warn);
 * webhook attempts (debug); reorganisations (warn) and transactions a chain adapter had to
 * re-send, replace (info) or lost (warn).
 */
export function logObserver(logger: Logger): EngineObserver {
  return {
    requestCompleted(o) {
      const line = {
        request_id: o.requestId,
        correlation_id: o.correlationId ?? o.requestId,
        ...(o.accountId ? { account: o.accountId } : {}),
        ...(o.keyId ? { key_id: o.keyId } : {}),
        ...(o.idempotencyKey ? { idempotency_key: o.idempotencyKey } : {}),
        method: o.method,
        route: o.route,
        status: o.status,
        duration_ms: Math.round(o.durationMs * 10) / 10,
      };
      if (o.status >= 500) logger.error(line, "request failed");
      else logger.info(line, "request");
    },
    workCompleted(o) {
      if (o.outcome === "dead") {
        const line = { ...(o.id ? { job: o.id } : {}), kind: o.kind, attempt: o.attempt, ...(o.requestId ? { request_id: o.requestId } : {}) };
        logger.error(line, "due work failed for the last time");
      }
    },
    deliveryAttempted(o) {
      logger.debug(
        { endpoint: o.endpoint, event_type: o.eventType, outcome: o.outcome, response_status: o.responseStatus, latency_ms: o.latencyMs, attempt: o.attempt },
        "webhook attempt",
      );
    },
    ledgerPosted: () => undefined,
    eventsEmitted: () => undefined,
    adapterCalled(o) {
      if (o.failed) logger.warn({ port: o.port, adapter: o.adapter, operation: o.operation, duration_ms: o.durationMs }, "adapter call failed");
    },
    domainObserved(o) {
      const mode = o.livemode ? "live" : "test";
      if (o.type === "chain_reorg") logger.warn({ chain: o.chain, mode, depth: o.depth }, "chain reorganisation");
      else if (o.type === "transaction_rescued") {
        const line = { chain: o.chain, mode, action: o.action };
        if (o.action === "dropped") logger.warn(line, "transaction dropped");
        else logger.info(line, `transaction ${o.action}`);
      }
    },
  };
}
