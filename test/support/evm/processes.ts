import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..", "..");

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts a child and resolves with the first match of `ready` in its output (rejects if it exits first).
 * The child sees only PATH, HOME and `env`: inheriting the runner's DATABASE_URL (set in CI) would put
 * a host on the database other test files reset under it.
 */
export function startChild(command: string, args: string[], env: Record<string, string>, ready: RegExp, timeoutMs = 120_000) {
  const base = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };
  const child = spawn(command, args, { cwd: ROOT, env: { ...base, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const matched = new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start in ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = output.match(ready);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${code}) before it was ready:\n${output}`));
    });
  });
  return { child, matched, output: () => output };
}

/** `npx hardhat node` on 127.0.0.1 (hardhat.config.cjs), resolved once it serves. */
export async function hardhatNode(): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const { child, matched } = startChild(
    join(ROOT, "node_modules", ".bin", "hardhat"),
    ["node", "--hostname", "127.0.0.1", "--port", String(port)],
    {},
    /Started HTTP and WebSocket JSON-RPC server at (http:\/\/127\.0\.0\.1:\d+)/,
  );
  await matched;
  return { url: `http://127.0.0.1:${port}`, child, stop: () => stopChild(child, "SIGTERM") };
}

/** The host (`npm start`'s `payrail serve`) as its own process, so a test can kill -9 it. */
export async function hostProcess(env: Record<string, string>): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const { child, matched, output } = startChild(
    process.execPath,
    ["--import", "tsx", "adapters/cli/main.ts", "serve"],
    { PORT: "0", ...env },
    /payrail listening on (http:\/\/127\.0\.0\.1:\d+)/,
  );
  const m = await matched;
  return { url: m[1]!, child, output };
}

export function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill(signal);
  });
}

/**
 * A JSON-RPC proxy in front of a node: forwards everything, except that while `holding` it
 * takes `eth_sendRawTransaction` requests and never answers or forwards them (the bytes never
 * reach the node), resolving `held` with the first one. Lets a test kill the host after it
 * signed and saved a transaction, before the node got it.
 */
export async function rpcProxy(target: string) {
  let holding = false;
  let onHeld: ((raw: string) => void) | null = null;
  const heldRequests: ServerResponse[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    if (holding) {
      const parsed = JSON.parse(body) as { method?: string; params?: string[] };
      if (parsed.method === "eth_sendRawTransaction") {
        heldRequests.push(res);
        onHeld?.(parsed.params![0]!);
        return;
      }
    }
    try {
      const answer = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(await answer.text());
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    /** Starts holding sends; resolves with the raw transaction of the first one held. */
    hold(): Promise<string> {
      holding = true;
      return new Promise((resolve) => (onHeld = resolve));
    },
    /** Forwards again; the held requests are dropped unanswered. */
    release() {
      holding = false;
      onHeld = null;
      for (const res of heldRequests.splice(0)) res.destroy();
    },
    async close() {
      this.release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An EIP-1193 provider (hardhat's in-process network) served as JSON-RPC over HTTP on loopback, for code that takes an `rpc_url`. */
export async function serveProvider(provider: { request(args: { method: string; params?: unknown[] }): Promise<unknown> }) {
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString()) as
      | { id: unknown; method: string; params?: unknown[] }
      | { id: unknown; method: string; params?: unknown[] }[];
    const answer = async (call: { id: unknown; method: string; params?: unknown[] }) => {
      try {
        return { jsonrpc: "2.0", id: call.id, result: await provider.request({ method: call.method, params: call.params ?? [] }) };
      } catch (e) {
        const error = e as { code?: number; message?: string; data?: unknown };
        return { jsonrpc: "2.0", id: call.id, error: { code: error.code ?? -32603, message: error.message ?? String(e), data: error.data } };
      }
    };
    const out = Array.isArray(body) ? await Promise.all(body.map(answer)) : await answer(body);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(out, (_, v) => (typeof v === "bigint" ? `0x${v.toString(16)}` : v)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
