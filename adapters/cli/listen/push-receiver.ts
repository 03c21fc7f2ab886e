import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { verifyWebhookSignature } from "../../../src/events/signing";
import type { EventEnvelope } from "../api-client";

export interface PushReceiverOptions {
  /** Interface to listen on (default 127.0.0.1). */
  hostname?: string;
  /** Port (default 0: any free one). */
  port?: number;
  /** A verified delivery: its raw body and the parsed event. */
  onEvent(raw: string, event: EventEnvelope): void;
  /** A request that was refused (bad signature, not an event), with why. */
  onRefused(reason: string): void;
}

/**
 * The local end of `listen`'s temporary webhook endpoint: accepts the host's deliveries,
 * verifies each signature with the endpoint's secret, acknowledges at once (200) and hands the
 * event on. Retrying the local receiver is the forwarder's job, so the host never has to.
 */
export class PushReceiver {
  private secret: string | null = null;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async start(options: PushReceiverOptions): Promise<PushReceiver> {
    let receiver!: PushReceiver;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const refuse = (status: number, reason: string) => {
          options.onRefused(reason);
          res.writeHead(status, { "content-type": "text/plain" }).end(reason);
        };
        if (req.method !== "POST") return refuse(405, "only POST");
        if (receiver.secret === null) return refuse(503, "not ready"); // the host retries
        const header = req.headers["service-signature"];
        const check = verifyWebhookSignature(raw, Array.isArray(header) ? header[0] : header, receiver.secret, { now: Date.now() });
        if (!check.valid) return refuse(400, `signature refused: ${check.reason}`);
        let event: EventEnvelope;
        try {
          event = JSON.parse(raw) as EventEnvelope;
        } catch {
          return refuse(400, "the body is not JSON");
        }
        if (typeof event?.id !== "string" || typeof event.type !== "string") return refuse(400, "the body is not an event");
        res.writeHead(200, { "content-type": "text/plain" }).end("queued");
        options.onEvent(raw, event);
      });
    });
    receiver = new PushReceiver(server);
    server.on("connection", (socket) => {
      receiver.sockets.add(socket);
      socket.on("close", () => receiver.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, options.hostname ?? "127.0.0.1", () => resolve());
    });
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Starts verifying and accepting deliveries signed with `secret` (the endpoint's). */
  accept(secret: string): void {
    this.secret = secret;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
