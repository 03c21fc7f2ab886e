import type { AdapterStateStore, AdapterStateTx, VenueExecutionResult } from "../../../src/ports/public";

/** The namespace the Uniswap v2 venues keep their state in (`StorageAdapter.adapterState`). */
export const UNISWAP_V2_NAMESPACE = "uniswap-v2";

/*
 * The keyspace (namespace `uniswap-v2`; amounts as decimal strings):
 *
 *   exec/<chain>/<executionId>     an execution: its plan, saved before anything is sent, and its
 *                                  result once known (the answer to every later call)
 *
 * The transactions themselves (nonce, signed bytes, attempts) are the EVM chain adapter's, kept
 * under its namespace `evm` by the id each leg's plan names (`sendCall`): saved signed before
 * they are sent, re-sent as they are.
 */

/** One leg as planned: the route, the amounts, and the id its swap transaction is made under. */
export interface PlannedLeg {
  venue: string;
  path: string[];
  amountIn: string;
  minAmountOut: string;
  /** The transaction's id for `EvmChain.sendCall`. */
  call: string;
}

export interface ExecutionRecord {
  executionId: string;
  from: string;
  to: string;
  /** Null when the execution was refused before anything was planned. */
  plan: { legs: PlannedLeg[]; deadline: string } | null;
  result: StoredResult | null;
  created: number;
}

/** A leg's swap as its receipt says: amounts, and the transaction and block (absent on results stored before they were kept). */
export interface StoredLeg {
  venue: string;
  amountIn: string;
  amountOut: string;
  txHash?: string;
  block?: number;
  path?: string[];
}

export type StoredResult = { status: "executed"; legs: StoredLeg[]; gasCost: string } | { status: "rejected"; reason: string };

export function toResult(stored: StoredResult): VenueExecutionResult {
  if (stored.status === "rejected") return stored;
  return {
    status: "executed",
    legs: stored.legs.map((l) => ({
      venue: l.venue,
      amountIn: BigInt(l.amountIn),
      amountOut: BigInt(l.amountOut),
      ...(l.txHash !== undefined && l.block !== undefined ? { transaction: { txHash: l.txHash, block: l.block } } : {}),
      ...(l.path ? { path: l.path } : {}),
    })),
  };
}

/** Typed access to the keyspace over one store. */
export class UniswapState {
  constructor(
    private readonly store: AdapterStateStore,
    private readonly chain: string,
  ) {}

  private key(executionId: string): string {
    return `exec/${this.chain}/${executionId}`;
  }

  async get(executionId: string): Promise<ExecutionRecord | null> {
    const key = this.key(executionId);
    return this.store.transaction(async (tx: AdapterStateTx) => ((await tx.get([key])).get(key) as ExecutionRecord | undefined) ?? null);
  }

  /** Saves a record unless one exists; answers the one that stands. */
  async insert(record: ExecutionRecord): Promise<ExecutionRecord> {
    const key = this.key(record.executionId);
    return this.store.transaction(async (tx) => (await tx.insert([[key, record as never]])).get(key)!.value as unknown as ExecutionRecord);
  }

  /** Records the result once: a result already there stands (a concurrent call got there first). */
  async settle(executionId: string, result: StoredResult): Promise<StoredResult> {
    const key = this.key(executionId);
    return this.store.transaction(async (tx) => {
      const current = (await tx.get([key], { lock: true })).get(key) as ExecutionRecord | undefined;
      if (!current) throw new Error(`no execution ${executionId} to settle`);
      if (current.result) return current.result;
      await tx.put([[key, { ...current, result } as never]]);
      return result;
    });
  }
}
