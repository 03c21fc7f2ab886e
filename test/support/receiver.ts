import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** What a test receiver does with one request. */
export type Behaviour = { kind: "status"; status: number; headers?: Record<string, string> } | { kind: "hang" } | { kind: "reset" };

export const ok: Behaviour = { kind: "status", status: 200 };
export const status = (code: number, headers?: Record<string, string>): Behaviour =>
  headers ? { kind: "status", status: code, headers } : { kind: "status", status: code };
export const hang: Behaviour = { kind: "hang" };
export const reset: Behaviour = { kind: "reset" };

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** What the receiver answered (a status, or hang/reset). */
  answered: string;
  /** Order of arrival across every receiver of the process. */
  seq: number;
}

let seq = 0;

/**
 * A real webhook receiver on 127.0.0.1 for tests: records every request (raw body included) and
 * answers as `behave` says: a status, a hang (never answers; the sender's timeout cuts it), or a
 * reset (the socket is destroyed).
 */
export class TestReceiver {
  readonly requests: ReceivedRequest[] = [];
  connections = 0;
  behave: (req: ReceivedRequest, index: number) => Behaviour = () => ok;
  private readonly sockets = new Set<Socket>();
  private readonly waiters: { count: number; resolve: () => void }[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<TestReceiver> {
    let receiver!: TestReceiver;
    const server = createServer((req, res) => receiver.handle(req, res));
    receiver = new TestReceiver(server);
    server.keepAliveTimeout = 60_000;
    server.on("connection", (socket) => {
      receiver.connections++;
      receiver.sockets.add(socket);
      socket.on("close", () => receiver.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = "/hooks"): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Resolves once `count` requests have arrived in all. */
  received(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : (v ?? "");
      const record: ReceivedRequest = { path: req.url ?? "", headers, body: Buffer.concat(chunks).toString("utf8"), answered: "", seq: seq++ };
      const behaviour = this.behave(record, this.requests.length);
      record.answered = behaviour.kind === "status" ? String(behaviour.status) : behaviour.kind;
      this.requests.push(record);
      for (const w of this.waiters.filter((w) => this.requests.length >= w.count)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
      if (behaviour.kind === "status") {
        res.writeHead(behaviour.status, behaviour.headers ?? {});
        res.end("ok");
      } else if (behaviour.kind === "reset") {
        req.socket.destroy();
      } // hang: never answer
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
