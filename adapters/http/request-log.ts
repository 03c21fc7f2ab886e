import { randomBytes } from "node:crypto";
import { err } from "neverthrow";
import { listOf } from "../../src/api/common-objects";
import { o } from "../../src/api/response-schema";
import type { RouteDefinition } from "../../src/engine/route";
import { CursorCodec } from "../../src/lists/cursor-codec";
import { listPage } from "../../src/lists/list-page";
import { listParamsShape } from "../../src/lists/list-params";
import type { KeysetQuery } from "../../src/ports/storage/resources";
import { s } from "../../src/validation/schema";
import type { HttpEngine, HttpMiddleware } from "./middleware";

/** One request as the request log keeps it (`GET /v1/request_logs`). */
export interface RequestLogEntry {
  /** The request's `Request-Id`. */
  id: string;
  object: "request_log";
  method: string;
  /** The path asked, without the query string. */
  path: string;
  status: number;
  /** The error code of a 4xx or 5xx answer (docs/decisions.md §2). */
  error_code: string | null;
  /** The key the request authenticated with (its id, never the key). */
  api_key: string;
  idempotency_key: string | null;
  latency_ms: number;
  livemode: boolean;
  created: string;
}

interface Row {
  created: number;
  entry: RequestLogEntry;
}

export const RequestLogObject = o.named(
  "RequestLog",
  o.object(
    {
      id: o.string({ description: "The request's Request-Id (req_…)" }),
      object: o.literal("request_log"),
      method: o.enum(["GET", "POST", "DELETE"] as const),
      path: o.string({ description: "The path asked, without the query string" }),
      status: o.integer({ description: "The HTTP status answered" }),
      error_code: o.nullable(o.string({ description: "The error code of a 4xx or 5xx answer" })),
      api_key: o.id("key", { description: "The key the request authenticated with (its id, never the key)" }),
      idempotency_key: o.nullable(o.string()),
      latency_ms: o.integer(),
      livemode: o.boolean(),
      created: o.time(),
    },
    { description: "An authenticated API request of the account, as this host process answered it (kept in memory, the newest 1,000 per account)" },
  ),
);

/** An exact status (404) or a class (4xx): what `status` filters by (the CLI checks its `--status` with it too). */
export const STATUS_FILTER = /^([1-5])(xx|[0-9]{2})$/;

export const listRequestLogsSchema = s.object({
  ...listParamsShape,
  status: s.string({ pattern: STATUS_FILTER }).optional().describe("An exact status (404) or a class (4xx)"),
  path: s.string({ min: 1, max: 2048 }).optional().describe("Only paths starting with this, e.g. /v1/payouts"),
});

/**
 * The request log of one host process: the newest `capacity` authenticated `/v1` requests of
 * each account, in memory (lost on restart, not shared between processes), for `payrail logs
 * tail`. Read through `GET /v1/request_logs`, a list of the usual contract (docs/decisions.md §5).
 */
export class RequestLog {
  private readonly rows = new Map<string, Row[]>();
  private readonly codec = new CursorCodec(randomBytes(32));

  constructor(private readonly capacity = 1_000) {}

  /** Middleware recording each request that authenticated (the log's own reads are not recorded). */
  middleware(): HttpMiddleware {
    return async (c, next) => {
      const started = performance.now();
      await next();
      const ctx = c.get("ctx");
      const principal = c.get("principal");
      if (!ctx || !principal || c.req.path === "/v1/request_logs") return;
      let errorCode: string | null = null;
      if (c.res.status >= 400) {
        const body = (await c.res
          .clone()
          .json()
          .catch(() => null)) as { error?: { code?: unknown } } | null;
        errorCode = typeof body?.error?.code === "string" ? body.error.code : null;
      }
      const now = Date.now();
      const rows = this.rows.get(ctx.accountId) ?? [];
      rows.push({
        created: now,
        entry: {
          id: c.get("requestId"),
          object: "request_log",
          method: c.req.method,
          path: c.req.path,
          status: c.res.status,
          error_code: errorCode,
          api_key: principal.keyId,
          idempotency_key: c.req.header("idempotency-key") ?? null,
          latency_ms: Math.round(performance.now() - started),
          livemode: ctx.livemode,
          created: new Date(now).toISOString(),
        },
      });
      if (rows.length > this.capacity) rows.splice(0, rows.length - this.capacity);
      this.rows.set(ctx.accountId, rows);
    };
  }

  /** `GET /v1/request_logs`, mounted through `createHttpApp(engine, { requestLog })`. */
  route(): RouteDefinition<HttpEngine> {
    return {
      method: "get",
      path: "/v1/request_logs",
      summary: "List the account's recent API requests as this host process answered them, newest first (in memory: the newest 1,000)",
      tag: "Events",
      scope: "full_access",
      query: listRequestLogsSchema,
      returns: listOf("RequestLog", RequestLogObject),
      handler: async ({ api, ctx, query }) => {
        const parsed = listRequestLogsSchema.parse(query, "", { assets: api.assets, catalogue: api.catalogue });
        if (parsed.isErr()) return err(parsed.error);
        const { status, path, ...params } = parsed.value;
        const matches = (row: Row) =>
          (status === undefined || String(row.entry.status) === status || (status.endsWith("xx") && String(row.entry.status)[0] === status[0])) &&
          (path === undefined || row.entry.path.startsWith(path)) &&
          row.entry.livemode === ctx.livemode;
        return listPage({
          codec: this.codec,
          accountId: ctx.accountId,
          list: "request_logs",
          params,
          extraBinding: { status: status ?? null, path: path ?? null },
          fetch: async (q) => this.page(q, matches),
          position: (row: Row) => ({ created: row.created, id: row.entry.id }),
          present: (row: Row) => row.entry,
        });
      },
    };
  }

  private page(q: KeysetQuery, matches: (row: Row) => boolean): Row[] {
    const asc = q.order === "asc";
    const before = (a: { created: number; id: string }, b: { created: number; id: string }) =>
      a.created < b.created || (a.created === b.created && a.id < b.id);
    const rows = (this.rows.get(q.accountId) ?? [])
      .filter(
        (r) =>
          matches(r) &&
          (q.createdGte === undefined || r.created >= q.createdGte) &&
          (q.createdLt === undefined || r.created < q.createdLt) &&
          (q.after === undefined || (asc ? before(q.after, { created: r.created, id: r.entry.id }) : before({ created: r.created, id: r.entry.id }, q.after))),
      )
      .sort((a, b) => {
        const [x, y] = [
          { created: a.created, id: a.entry.id },
          { created: b.created, id: b.entry.id },
        ];
        return before(x, y) ? -1 : before(y, x) ? 1 : 0;
      });
    if (!asc) rows.reverse();
    return rows.slice(0, q.limit);
  }
}
