import type { Server } from "node:http";
import type { Duplex } from "node:stream";
import type { Engine } from "../../src/engine/engine";
import { ApiError } from "../../src/errors";

/**
 * Answers what Node's HTTP parser refuses before any handler runs in the error shape, with a
 * `Request-Id`, instead of Node's bare status line: a request line and headers over the server's
 * `maxHeaderSize` (16 KB by default) is 431 `headers_too_large`, any other malformed request 400
 * `parameter_invalid`. For a host serving the binding on `node:http` (the `payrail serve` host
 * does); call it once on the server.
 */
export function answerClientErrors(server: Server, engine: Pick<Engine, "newRequestId">): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal =
      error.code === "HPE_HEADER_OVERFLOW"
        ? new ApiError("headers_too_large", "The request line and headers are larger than this server accepts (16 KB)")
        : new ApiError("parameter_invalid", "The request is not valid HTTP/1.1");
    const requestId = engine.newRequestId();
    const body = JSON.stringify(refusal.toBody(requestId));
    socket.end(
      `HTTP/1.1 ${refusal.status} ${refusal.status === 431 ? "Request Header Fields Too Large" : "Bad Request"}\r\n` +
        "Content-Type: application/json\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `Request-Id: ${requestId}\r\n` +
        "Connection: close\r\n\r\n" +
        body,
    );
  });
}
