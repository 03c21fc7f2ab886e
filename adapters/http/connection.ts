/**
 * What the binding reads of the connection a request came on, when it runs on node:http
 * (`c.env.incoming`, which `@hono/node-server` sets): where the connection reached, and what the
 * node:http edge answered on it. Never the request's own `Host` header.
 */
import type { Context } from "hono";
import { ApiError } from "../../src/errors";

/** Any Hono context of the binding (the socket is read untyped: other runtimes have none). */
type HttpContext = Context<any>;

/**
 * Set by the node:http edge (`answerClientErrors`) on the socket of a request whose body it
 * refused while the app was reading it (time ran out, the connection closed, a chunk was
 * malformed): the refusal it answered and its `Request-Id`, so the app logs and counts the same.
 */
export const EDGE_REFUSAL = Symbol.for("payrail.http.edgeRefusal");
export type EdgeRefusal = { requestId: string; refusal: ApiError };

/**
 * A request body that could not be read to its end: the client closed the connection or sent a
 * malformed chunk (400 `parameter_invalid`, param `body`), or ran out of time (408
 * `request_timeout`); on node:http, what the edge answered (`EDGE_REFUSAL`), under its
 * `Request-Id`. The client's doing, so counted and logged as a 4xx, never reported as an
 * internal error; the client is usually gone and never reads it.
 */
export function bodyCutOff(c: HttpContext): ApiError {
  const edge = (c.env as { incoming?: { socket?: { [EDGE_REFUSAL]?: EdgeRefusal } } } | undefined)?.incoming?.socket?.[EDGE_REFUSAL];
  if (edge) {
    c.set("requestId", edge.requestId);
    return edge.refusal;
  }
  return new ApiError("parameter_invalid", "The request body ended before it was complete (the connection closed or a chunk was malformed)", { param: "body" });
}

/**
 * The origin of the address the request's connection reached (`http://127.0.0.1:4000`), for
 * links the engine signs without a `publicUrl`: never the `Host` header or an absolute request
 * target, which the client writes as it likes. On a server without node:http's socket (another
 * runtime, `app.request` in tests) `http://localhost`: such a host sets `publicUrl`.
 */
export function boundOrigin(c: HttpContext): string {
  const socket = (c.env as { incoming?: { socket?: { localAddress?: string; localPort?: number; encrypted?: boolean } } } | undefined)?.incoming?.socket;
  if (!socket?.localAddress || !socket.localPort) return "http://localhost";
  return `${socket.encrypted ? "https" : "http"}://${hostPort(socket.localAddress, socket.localPort)}`;
}

/** `address:port`, an IPv6 address in brackets: a host as a URL or a Host header writes it. */
export function hostPort(address: string, port: number): string {
  return `${address.includes(":") ? `[${address}]` : address}:${port}`;
}
