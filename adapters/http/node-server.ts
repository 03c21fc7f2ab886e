import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { getRequestListener } from "@hono/node-server";
import type { Engine } from "../../src/engine/engine";
import { ApiError } from "../../src/errors";
import { EDGE_REFUSAL, type EdgeRefusal, hostPort } from "./connection";
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from "./server-limits";

export { DEFAULT_SERVER_LIMITS, type ServerLimits };

/** The engine as the node:http edge uses it: request ids, and the observer that counts answers. */
type EdgeEngine = Pick<Engine, "newRequestId" | "observer">;

export interface NodeServerOptions extends Partial<ServerLimits> {
  /** Called with the cause of a 500 the edge answers itself (the app reports its own). */
  onInternalError?: (error: unknown, requestId: string) => void;
  /** Called for each connection closed because `maxConnections` were open. */
  onConnectionRefused?: () => void;
}

/**
 * A `node:http` server for a fetch handler (`createHttpApp(engine).fetch`) with the edges of a
 * payments API: the limits of `ServerLimits` (a client trickling its headers or body is cut
 * off with 408 `request_timeout` once its time is up, however steadily it sends), and every
 * answer in the error shape with a `Request-Id`, counted by the engine's observer:
 * what Node's parser refuses (`answerClientErrors`), and requests it parses but the binding
 * cannot take as a URL (HTTP/1.1 without `Host`, `OPTIONS *`, a backslash in the path), 400
 * `parameter_invalid`. An HTTP/1.0 request without `Host` is for the address it reached. An `Expect` other than `100-continue` is ignored (RFC 9110 allows it),
 * not answered with a bare 417. Call `listen` on it.
 */
export function createNodeServer(fetch: Parameters<typeof getRequestListener>[0], engine: EdgeEngine, options: NodeServerOptions = {}): Server {
  const limits = serverLimits(options);
  const listener = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const started = performance.now();
    // HTTP/1.0 has no Host (1.1 requires it): such a request is for the address it reached
    if (incoming.headers.host === undefined && incoming.httpVersion === "1.0" && incoming.socket.localAddress) {
      const { localAddress, localPort } = incoming.socket;
      incoming.headers.host = hostPort(localAddress, localPort ?? 0);
    }
    // a listener per request, so a refusal knows the request it refuses
    return getRequestListener(fetch, {
      errorHandler: (error) => refusedRequest(engine, incoming, error, started, options.onInternalError),
    })(incoming, outgoing);
  };
  const server = createServer(
    {
      // a request without Host reaches the listener, which refuses it in the error shape
      requireHostHeader: false,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // how often the timeouts are checked (Node's default, 30 s, would let a client overstay them by as much)
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    listener,
  );
  server.maxConnections = limits.maxConnections;
  server.on("checkExpectation", listener);
  if (options.onConnectionRefused) server.on("drop", options.onConnectionRefused);
  answerClientErrors(server, engine);
  return server;
}

/** The limits with their defaults, checked. */
export function serverLimits(given: Partial<ServerLimits> = {}): ServerLimits {
  const limits = { ...DEFAULT_SERVER_LIMITS };
  for (const [name, value] of Object.entries(given) as [keyof ServerLimits, number | undefined][]) {
    if (value === undefined || !(name in DEFAULT_SERVER_LIMITS)) continue;
    if (!(Number.isInteger(value) && value > 0)) throw new RangeError(`${name} must be a positive whole number, got ${value}`);
    limits[name] = value;
  }
  if (limits.requestTimeoutMs < limits.headersTimeoutMs) throw new RangeError("requestTimeoutMs must be at least headersTimeoutMs");
  return limits;
}

/** The answer to a request the binding cannot take as a URL (400), or to an error of the server itself (500). */
function refusedRequest(
  engine: EdgeEngine,
  incoming: IncomingMessage,
  error: unknown,
  started: number,
  onInternalError?: (error: unknown, requestId: string) => void,
): Response {
  const requestId = engine.newRequestId();
  const client = error instanceof Error && error.name === "RequestError";
  if (!client) onInternalError?.(error, requestId);
  const refusal = client
    ? new ApiError("parameter_invalid", `The request target or Host header is not valid (${(error as Error).message})`)
    : new ApiError("internal_error", "An internal error occurred; it has been logged");
  engine.observer.requestCompleted({
    method: incoming.method ?? "unknown",
    route: "unmatched",
    status: refusal.status,
    durationMs: performance.now() - started,
    requestId,
  });
  return new Response(JSON.stringify(refusal.toBody(requestId)), {
    status: refusal.status,
    headers: { "Content-Type": "application/json", "Request-Id": requestId, Connection: "close" },
  });
}

/**
 * Answers what Node's HTTP server refuses before any handler runs in the error shape, with a
 * `Request-Id`, instead of Node's bare status line: a request line and headers over the server's
 * `maxHeaderSize` (16 KB by default) is 431 `headers_too_large`, headers or a body not sent within
 * the server's `headersTimeout` or `requestTimeout` 408 `request_timeout`, any other malformed
 * request 400 `parameter_invalid`, and `CONNECT` (no route of the binding) 404 `resource_missing`;
 * each is reported to the engine's observer (route `unmatched`, method `unknown` when the request
 * line did not parse). For a host serving the binding on `node:http` (`createNodeServer` calls it);
 * call it once on the server.
 */
export function answerClientErrors(server: Server, engine: EdgeEngine): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    // a request the app is answering (its body timed out): once the connection is cut, the app counts it as answered here
    const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (answering?.headersSent) {
      socket.destroy();
      return;
    }
    const reason = (error as { reason?: unknown }).reason;
    const refusal =
      error.code === "HPE_HEADER_OVERFLOW"
        ? new ApiError("headers_too_large", "The request line and headers are larger than this server accepts (16 KB)")
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? new ApiError("request_timeout", "The request was not received in time; the connection is closed")
          : error.code === "HPE_INVALID_EOF_STATE"
            ? new ApiError("parameter_invalid", "The connection closed before the request was complete", answering ? { param: "body" } : {})
            : new ApiError("parameter_invalid", `The request is not valid HTTP/1.1${reason ? ` (${reason})` : ""}`, answering ? { param: "body" } : {});
    const requestId = engine.newRequestId();
    if (answering) (socket as Duplex & { [EDGE_REFUSAL]?: EdgeRefusal })[EDGE_REFUSAL] = { requestId, refusal };
    else engine.observer.requestCompleted({ method: "unknown", route: "unmatched", status: refusal.status, durationMs: 0, requestId });
    writeRefusal(socket, refusal, requestId);
  });
  // CONNECT is no route of the binding (Node would close the connection without a word)
  server.on("connect", (request: IncomingMessage, socket: Duplex) => {
    const requestId = engine.newRequestId();
    const refusal = new ApiError("resource_missing", `Unrecognized request URL (CONNECT ${request.url ?? ""})`);
    engine.observer.requestCompleted({ method: "CONNECT", route: "unmatched", status: refusal.status, durationMs: 0, requestId });
    writeRefusal(socket, refusal, requestId);
  });
}

/** Writes `refusal` in the error shape straight to the connection, and closes it. */
function writeRefusal(socket: Duplex, refusal: ApiError, requestId: string): void {
  const body = JSON.stringify(refusal.toBody(requestId));
  socket.on("error", () => undefined);
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
      "Content-Type: application/json\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `Request-Id: ${requestId}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
    // cut, not half-closed: a client trickling on would keep the connection otherwise
    () => socket.destroy(),
  );
}
