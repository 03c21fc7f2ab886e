import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { address } from "@solana/kit";
import { getTokenDecoder } from "@solana-program/token";
import { base64Bytes, type SvmNode } from "./svm-node";

/** A JSON-RPC error with the code a Solana node answers. */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

type Params = unknown[];

/**
 * The Solana JSON-RPC methods the adapter calls, over HTTP, in the real wire format (the shapes
 * of api.mainnet-beta's answers: `{ context: { slot }, value }` where a node wraps, numbers as
 * JSON numbers, base64 account data, `json`-encoded transactions), answered from an `SvmNode`.
 * `onRequest` lets a test see, hold or fail a call before it is answered (a lost `sendTransaction`).
 */
export async function startSvmRpc(
  node: () => SvmNode,
  options: { onRequest?: (method: string, params: Params) => Promise<void> | void } = {},
): Promise<{ url: string; close(): Promise<void>; calls: string[] }> {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    void handle(req, res);
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: { id: unknown; method: string; params?: Params };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return reply(res, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    }
    calls.push(body.method);
    try {
      if (options.onRequest) await options.onRequest(body.method, body.params ?? []);
    } catch {
      req.socket.destroy(); // the connection drops: the caller cannot know whether it arrived
      return;
    }
    try {
      const result = answer(node(), body.method, body.params ?? []);
      reply(res, { jsonrpc: "2.0", id: body.id, result });
    } catch (e) {
      const err = e instanceof RpcError ? e : new RpcError(-32603, (e as Error).message);
      reply(res, { jsonrpc: "2.0", id: body.id, error: { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) } });
    }
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

const config = (params: Params, at: number): Record<string, unknown> => (params[at] as Record<string, unknown> | undefined) ?? {};
const commitmentOf = (params: Params, at: number) => config(params, at).commitment as string | undefined;

function answer(node: SvmNode, method: string, params: Params): unknown {
  const context = (commitment?: string) => ({ slot: node.slotAt(commitment ?? "finalized"), apiVersion: "2.2.0" });
  switch (method) {
    case "getLatestBlockhash": {
      const c = commitmentOf(params, 0);
      const { blockhash, lastValidBlockHeight } = node.latestBlockhash(c);
      return { context: context(c), value: { blockhash, lastValidBlockHeight } };
    }
    case "getBlockHeight":
    case "getSlot":
      return node.slotAt(commitmentOf(params, 0));
    case "getBalance": {
      const c = commitmentOf(params, 1);
      return { context: context(c), value: Number(node.balance(String(params[0]))) };
    }
    case "getMinimumBalanceForRentExemption":
      return Number(node.svm.minimumBalanceForRentExemption(BigInt(params[0] as number)));
    case "getAccountInfo": {
      const c = commitmentOf(params, 1);
      const encoding = config(params, 1).encoding ?? "base64";
      if (encoding !== "base64") throw new RpcError(-32602, `Invalid params: encoding ${String(encoding)} is not served here`);
      const account = node.svm.getAccount(address(String(params[0])));
      if (!account.exists) return { context: context(c), value: null };
      return {
        context: context(c),
        value: {
          data: [Buffer.from(account.data).toString("base64"), "base64"],
          executable: account.executable,
          lamports: Number(account.lamports),
          owner: account.programAddress,
          rentEpoch: 0,
          space: account.data.length,
        },
      };
    }
    case "getMultipleAccounts": {
      // accounts as they stood at the commitment's slot (the one method here that answers state at
      // a commitment: the others answer the tip's), so context.slot says what the values are of
      const c = commitmentOf(params, 1);
      const encoding = config(params, 1).encoding ?? "base64";
      if (encoding !== "base64") throw new RpcError(-32602, `Invalid params: encoding ${String(encoding)} is not served here`);
      const slot = node.slotAt(c ?? "finalized");
      return {
        context: { slot, apiVersion: "2.2.0" },
        value: (params[0] as string[]).map((a) => {
          const account = node.accountAt(a, slot);
          if (!account) return null;
          return {
            data: [Buffer.from(account.data).toString("base64"), "base64"],
            executable: account.executable,
            lamports: Number(account.lamports),
            owner: account.owner,
            rentEpoch: 0,
            space: account.data.length,
          };
        }),
      };
    }
    case "getTokenAccountBalance": {
      const c = commitmentOf(params, 1);
      const token = node.tokenAccount(String(params[0]));
      if (!token) throw new RpcError(-32602, "Invalid param: could not find account");
      const decimals = node.mintDecimals(token.mint);
      const ui = (Number(token.amount) / 10 ** decimals).toString();
      return { context: context(c), value: { amount: token.amount.toString(), decimals, uiAmount: Number(ui), uiAmountString: ui } };
    }
    case "getRecentPrioritizationFees":
      return Array.from({ length: Math.min(20, node.tip + 1) }, (_, i) => ({ slot: node.tip - i, prioritizationFee: node.recentPriorityFee }));
    case "simulateTransaction": {
      const c = config(params, 1);
      if (c.encoding !== "base64") throw new RpcError(-32602, "Invalid params: only base64 transactions are simulated here");
      const sim = node.simulate(base64Bytes(String(params[0])), c.sigVerify !== false);
      return {
        context: context(c.commitment as string | undefined),
        value: { err: sim.err, logs: sim.logs, accounts: null, unitsConsumed: sim.unitsConsumed, returnData: null, innerInstructions: null },
      };
    }
    case "sendTransaction": {
      const c = config(params, 1);
      if (c.encoding !== "base64") throw new RpcError(-32602, "Invalid params: only base64 transactions are accepted here");
      const wire = base64Bytes(String(params[0]));
      if (c.skipPreflight !== true) {
        const sim = node.simulate(wire, true);
        if (sim.err !== null) {
          throw new RpcError(-32002, `Transaction simulation failed: ${JSON.stringify(sim.err)}`, {
            err: sim.err,
            logs: sim.logs,
            accounts: null,
            unitsConsumed: sim.unitsConsumed,
          });
        }
      }
      return node.send(wire);
    }
    case "getSignatureStatuses": {
      const signatures = params[0] as string[];
      if (signatures.length > 256) throw new RpcError(-32602, "Invalid params: too many inputs provided; max 256");
      return { context: context("processed"), value: signatures.map((s) => node.status(s)) };
    }
    case "getSignaturesForAddress": {
      const c = config(params, 1);
      if (c.commitment === "processed") throw new RpcError(-32602, "Method does not support commitment below `confirmed`");
      let list = node.signaturesFor(String(params[0]), c.commitment as string | undefined);
      if (typeof c.before === "string") {
        const i = list.findIndex((l) => l.signature === c.before);
        list = i < 0 ? [] : list.slice(i + 1);
      }
      if (typeof c.until === "string") {
        const i = list.findIndex((l) => l.signature === c.until);
        if (i >= 0) list = list.slice(0, i);
      }
      const limit = typeof c.limit === "number" ? c.limit : 1000;
      return list.slice(0, limit).map((l) => ({
        signature: l.signature,
        slot: l.slot,
        err: l.err,
        memo: null,
        blockTime: node.blockTime(l.slot),
        confirmationStatus: node.status(l.signature)!.confirmationStatus,
      }));
    }
    case "getTransaction": {
      const c = config(params, 1);
      if (c.encoding !== undefined && c.encoding !== "json") throw new RpcError(-32602, "Invalid params: only json encoding is served here");
      if (c.commitment === "processed") throw new RpcError(-32602, "Method does not support commitment below `confirmed`");
      const l = node.landed.get(String(params[0]));
      if (!l || l.slot > node.slotAt(c.commitment === "confirmed" ? "confirmed" : "finalized")) return null;
      return {
        slot: l.slot,
        blockTime: node.blockTime(l.slot),
        version: 0,
        meta: {
          err: l.err,
          status: l.err === null ? { Ok: null } : { Err: l.err },
          fee: l.fee,
          preBalances: l.preBalances,
          postBalances: l.postBalances,
          preTokenBalances: l.preTokenBalances,
          postTokenBalances: l.postTokenBalances,
          innerInstructions: [],
          logMessages: l.logs,
          rewards: [],
          loadedAddresses: { writable: l.loaded.writable, readonly: l.loaded.readonly },
          computeUnitsConsumed: l.unitsConsumed,
        },
        transaction: {
          signatures: [l.signature],
          message: {
            accountKeys: l.accountKeys.slice(0, l.accountKeys.length - l.loaded.writable.length - l.loaded.readonly.length),
            header: l.header,
            instructions: [],
            recentBlockhash: l.recentBlockhash,
          },
        },
      };
    }
    case "getHealth":
      return "ok";
    case "getGenesisHash":
      return node.blocks[0]!.blockhash;
    default:
      throw new RpcError(-32601, "Method not found");
  }
}

/** Decodes a token account's base64 data as `getAccountInfo` sent it (tests' own checks). */
export function decodeTokenAccount(base64: string) {
  return getTokenDecoder().decode(Buffer.from(base64, "base64"));
}
