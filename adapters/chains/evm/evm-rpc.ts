import { createPublicClient, encodeFunctionData, erc20Abi, type Transport } from "viem";

/** A block as the adapter reads it. */
export interface RpcBlock {
  number: number;
  hash: string;
  /** Epoch milliseconds. */
  timestamp: number;
  baseFeePerGas: bigint | null;
  /** Present when read with `full`. */
  transactions: RpcTransaction[];
}

export interface RpcTransaction {
  hash: string;
  from: string;
  to: string | null;
  value: bigint;
  blockNumber: number | null;
  blockHash: string | null;
  transactionIndex: number | null;
}

export interface RpcReceipt {
  status: "success" | "reverted";
  blockNumber: number;
  blockHash: string;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  /**
   * What the sender paid for it in all, wei: its gas at its price, plus the L1 data fee an
   * OP-stack chain (Base) charges beside it (`l1Fee` of the receipt), plus its blob gas.
   */
  fee: bigint;
  /** What the transaction logged, in order. */
  logs: { address: string; topics: string[]; data: string }[];
}

export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: number;
  blockHash: string;
  transactionHash: string;
  logIndex: number;
  removed: boolean;
}

/**
 * A failed JSON-RPC call, told without the node's URL (RPC URLs often carry a provider's API
 * key) or the request's arguments: the method, viem's short message and the node's details.
 * The original error is not kept as `cause`, so nothing logs the URL through it.
 */
export class RpcError extends Error {
  readonly code: number | undefined;
  readonly details: string | undefined;
  constructor(method: string, e: unknown) {
    const err = e as { shortMessage?: string; details?: string; message?: string; code?: number; cause?: { code?: number } };
    const short = err?.shortMessage ?? (e instanceof Error ? e.message.split("\n")[0] : String(e));
    const details = typeof err?.details === "string" && err.details && !/^https?:/.test(err.details) ? err.details : undefined;
    super(`${method}: ${short}${details && !short.includes(details) ? ` (${details})` : ""}`);
    this.name = "RpcError";
    this.code = typeof err?.code === "number" ? err.code : err?.cause?.code;
    this.details = details;
  }
}

/** The node refused a call because the EVM reverted it (not a transport failure). */
export class ExecutionReverted extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExecutionReverted";
  }
}

type Raw = Record<string, any>;
const num = (hex: string | null | undefined) => (hex === null || hex === undefined ? null : Number(BigInt(hex)));
const big = (hex: string | null | undefined) => (hex === null || hex === undefined ? 0n : BigInt(hex));
const hex = (n: number | bigint) => `0x${n.toString(16)}`;

/**
 * The JSON-RPC calls the EVM adapter makes, on viem's client and transport (`http(url)` for a
 * node, `custom(provider)` for an in-process one). Plain methods and plain values, so the rest
 * of the adapter neither depends on viem's types nor on its retries. A revert of the EVM is an
 * `ExecutionReverted`; anything else thrown is a transport or node failure (transient).
 */
export class EvmRpc {
  private readonly client;

  constructor(transport: Transport) {
    this.client = createPublicClient({ transport });
  }

  private async request<T>(method: string, params: unknown[] = []): Promise<T> {
    try {
      return (await this.client.request({ method, params } as never)) as T;
    } catch (e) {
      throw new RpcError(method, e);
    }
  }

  async chainId(): Promise<number> {
    return Number(BigInt(await this.request<string>("eth_chainId")));
  }

  async blockNumber(): Promise<number> {
    return Number(BigInt(await this.request<string>("eth_blockNumber")));
  }

  async block(tag: number | "latest", full = false): Promise<RpcBlock | null> {
    const raw = await this.request<Raw | null>("eth_getBlockByNumber", [typeof tag === "number" ? hex(tag) : tag, full]);
    if (!raw) return null;
    return {
      number: num(raw.number)!,
      hash: raw.hash,
      timestamp: num(raw.timestamp)! * 1000,
      baseFeePerGas: raw.baseFeePerGas ? BigInt(raw.baseFeePerGas) : null,
      transactions: full ? (raw.transactions as Raw[]).map(toTransaction) : [],
    };
  }

  async logs(filter: { fromBlock: number; toBlock: number; address: string[]; topics: (string | string[] | null)[] }): Promise<RpcLog[]> {
    const raw = await this.request<Raw[]>("eth_getLogs", [
      { fromBlock: hex(filter.fromBlock), toBlock: hex(filter.toBlock), address: filter.address, topics: filter.topics },
    ]);
    return raw.map((l) => ({
      address: l.address,
      topics: l.topics,
      data: l.data,
      blockNumber: num(l.blockNumber)!,
      blockHash: l.blockHash,
      transactionHash: l.transactionHash,
      logIndex: num(l.logIndex)!,
      removed: l.removed === true,
    }));
  }

  async receipt(txHash: string): Promise<RpcReceipt | null> {
    const raw = await this.request<Raw | null>("eth_getTransactionReceipt", [txHash]);
    if (!raw || raw.blockNumber === null || raw.blockNumber === undefined) return null;
    return {
      status: big(raw.status) === 1n ? "success" : "reverted",
      blockNumber: num(raw.blockNumber)!,
      blockHash: raw.blockHash,
      gasUsed: big(raw.gasUsed),
      effectiveGasPrice: big(raw.effectiveGasPrice),
      fee:
        big(raw.gasUsed) * big(raw.effectiveGasPrice) +
        (raw.l1Fee ? big(raw.l1Fee) : 0n) +
        (raw.blobGasUsed && raw.blobGasPrice ? big(raw.blobGasUsed) * big(raw.blobGasPrice) : 0n),
      logs: ((raw.logs ?? []) as Raw[]).map((l) => ({ address: l.address, topics: l.topics, data: l.data })),
    };
  }

  async transaction(txHash: string): Promise<RpcTransaction | null> {
    const raw = await this.request<Raw | null>("eth_getTransactionByHash", [txHash]);
    return raw ? toTransaction(raw) : null;
  }

  async nonce(address: string, tag: "latest" | "pending"): Promise<number> {
    return Number(BigInt(await this.request<string>("eth_getTransactionCount", [address, tag])));
  }

  /** `tag`: a block number reads the balance as of that block. */
  async balance(address: string, tag: number | "latest" | "pending" = "latest"): Promise<bigint> {
    return BigInt(await this.request<string>("eth_getBalance", [address, typeof tag === "number" ? hex(tag) : tag]));
  }

  /** The code deployed at `address` (`0x` when none). */
  async code(address: string): Promise<string> {
    return this.request<string>("eth_getCode", [address, "latest"]);
  }

  async maxPriorityFeePerGas(): Promise<bigint> {
    return BigInt(await this.request<string>("eth_maxPriorityFeePerGas"));
  }

  /** `eth_call` (`tag`: a block number calls as of that block); a revert is an `ExecutionReverted`. */
  async call(tx: { from?: string; to: string; data: string }, tag: number | "latest" | "pending" = "latest"): Promise<string> {
    return revertsAsValue(() => this.request<string>("eth_call", [tx, typeof tag === "number" ? hex(tag) : tag]));
  }

  /** What `holder` holds of the ERC-20 `token` (`balanceOf`, base units; `tag`: a block number reads it as of that block). */
  async tokenBalance(token: string, holder: string, tag: number | "latest" | "pending" = "latest"): Promise<bigint> {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [holder as `0x${string}`] });
    return BigInt(await this.call({ to: token, data }, tag));
  }

  /** `eth_estimateGas`; a revert is an `ExecutionReverted`. */
  async estimateGas(tx: { from: string; to: string; data: string; value: bigint }): Promise<bigint> {
    return BigInt(await revertsAsValue(() => this.request<string>("eth_estimateGas", [{ ...tx, value: hex(tx.value) }])));
  }

  async sendRawTransaction(raw: string): Promise<string> {
    return this.request<string>("eth_sendRawTransaction", [raw]);
  }
}

function toTransaction(raw: Raw): RpcTransaction {
  return {
    hash: raw.hash,
    from: raw.from,
    to: raw.to ?? null,
    value: big(raw.value),
    blockNumber: num(raw.blockNumber),
    blockHash: raw.blockHash ?? null,
    transactionIndex: num(raw.transactionIndex),
  };
}

/** Whether an RPC error is the EVM reverting (code 3, or a node's "revert" wording), through causes. */
export function isRevert(e: unknown): boolean {
  for (let cur: any = e, depth = 0; cur && depth < 6; cur = cur.cause, depth++) {
    if (cur.code === 3) return true;
    const text = `${cur.shortMessage ?? ""} ${cur.details ?? ""} ${cur.message ?? ""}`;
    if (/revert|VM Exception|invalid opcode/i.test(text)) return true;
  }
  return false;
}

async function revertsAsValue<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (isRevert(e)) throw new ExecutionReverted(revertReason(e));
    throw e;
  }
}

/** The shortest useful text of a revert: the node's details, without the request dump. */
function revertReason(e: unknown): string {
  for (let cur: any = e, depth = 0; cur && depth < 6; cur = cur.cause, depth++) {
    const detail = cur.details ?? cur.data?.message;
    if (typeof detail === "string" && detail) return `execution reverted: ${detail}`.slice(0, 300);
  }
  const message = e instanceof Error ? e.message.split("\n")[0]! : String(e);
  return message.slice(0, 300);
}
