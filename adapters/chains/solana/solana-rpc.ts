import { type Address, type Base64EncodedWireTransaction, type Signature, address, createSolanaRpc, signature as toSignature } from "@solana/kit";

export type Commitment = "processed" | "confirmed" | "finalized";

/** A signature's status as the node reports it (null: the node knows no such transaction). */
export interface SignatureStatus {
  slot: number;
  /** Blocks built on it; null once finalized. */
  confirmations: number | null;
  err: unknown;
  confirmationStatus: Commitment | null;
}

/** A simulation or a program refused the transaction: it will never succeed as it is (a refusal, not a transient failure). */
export class ProgramRefused extends Error {}

const INSTRUCTION_ERROR = "InstructionError";

/** An SPL token account's amount (mint 32 bytes, owner 32, amount u64), or null when the data is no token account. */
function tokenAmountOf(data: Buffer): bigint | null {
  return data.length < 72 ? null : data.readBigUInt64LE(64);
}

/**
 * The JSON-RPC calls the adapter makes, on `@solana/kit`'s HTTP client, with u64s as bigints
 * turned into what the adapter keeps (numbers for slots and heights, bigints for amounts).
 */
export class SolanaRpc {
  private readonly rpc: ReturnType<typeof createSolanaRpc>;

  /** `signaturesPerCall`: the page size of `getSignaturesForAddress` (1000, the most a node answers; some providers cap it lower). */
  constructor(
    url: string,
    private readonly signaturesPerCall = 1000,
  ) {
    this.rpc = createSolanaRpc(url);
  }

  async latestBlockhash(commitment: Commitment) {
    const { value } = await this.rpc.getLatestBlockhash({ commitment }).send();
    return { blockhash: value.blockhash, lastValidBlockHeight: value.lastValidBlockHeight };
  }

  async blockHeight(commitment: Commitment): Promise<bigint> {
    return this.rpc.getBlockHeight({ commitment }).send();
  }

  async balance(of: string, commitment: Commitment): Promise<bigint> {
    return (await this.rpc.getBalance(address(of), { commitment }).send()).value;
  }

  /** A token account's amount, or null when the account does not exist. */
  async tokenBalance(account: string, commitment: Commitment): Promise<bigint | null> {
    const info = await this.rpc.getAccountInfo(address(account), { commitment, encoding: "base64" }).send();
    if (!info.value) return null;
    return tokenAmountOf(Buffer.from(info.value.data[0], "base64"));
  }

  /**
   * Accounts at `commitment`, 100 a call, each with its lamports and, for an SPL token account, its
   * amount; null for an account that does not exist. Each call answers the slot it read at
   * (`context.slot`); later calls ask for that slot or a later one (`minContextSlot`): the lowest
   * and the highest slot of the calls are answered (equal: one snapshot).
   */
  async accountsAt(
    accounts: readonly string[],
    commitment: Commitment,
  ): Promise<{ slot: number; lowest: number; values: ({ lamports: bigint; tokenAmount: bigint | null } | null)[] }> {
    const values: ({ lamports: bigint; tokenAmount: bigint | null } | null)[] = [];
    let slot = 0;
    let lowest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < Math.max(1, accounts.length); i += 100) {
      const chunk = accounts.slice(i, i + 100).map((a) => address(a));
      const answer = await this.rpc
        .getMultipleAccounts(chunk, { commitment, encoding: "base64", ...(slot > 0 ? { minContextSlot: BigInt(slot) } : {}) })
        .send();
      const at = Number(answer.context.slot);
      lowest = Math.min(lowest, at);
      slot = Math.max(slot, at);
      for (const v of answer.value) {
        if (!v) {
          values.push(null);
          continue;
        }
        values.push({ lamports: BigInt(v.lamports), tokenAmount: tokenAmountOf(Buffer.from(v.data[0], "base64")) });
      }
    }
    return { slot, lowest, values };
  }

  /** A mint's owner program and decimals (SPL Mint layout: decimals at byte 44), or null when there is no such account. */
  async mint(account: string): Promise<{ program: string; decimals: number | null } | null> {
    const info = await this.rpc.getAccountInfo(address(account), { commitment: "confirmed", encoding: "base64" }).send();
    if (!info.value) return null;
    const data = Buffer.from(info.value.data[0], "base64");
    return { program: info.value.owner, decimals: data.length >= 82 ? data[44]! : null };
  }

  async accountExists(account: string, commitment: Commitment): Promise<boolean> {
    return (await this.rpc.getAccountInfo(address(account), { commitment, encoding: "base64" }).send()).value !== null;
  }

  async rentExemption(bytes: number): Promise<bigint> {
    return this.rpc.getMinimumBalanceForRentExemption(BigInt(bytes)).send();
  }

  /** Recent priority fees (micro-lamports per compute unit) paid by transactions writing `accounts`. */
  async recentPriorityFees(accounts: string[]): Promise<bigint[]> {
    const fees = await this.rpc.getRecentPrioritizationFees(accounts.map((a) => address(a))).send();
    return fees.map((f) => BigInt(f.prioritizationFee));
  }

  /** Units a transaction consumed in simulation; a program's refusal throws `ProgramRefused`. */
  async simulate(wire: Base64EncodedWireTransaction): Promise<number> {
    const { value } = await this.rpc
      .simulateTransaction(wire, { encoding: "base64", sigVerify: false, replaceRecentBlockhash: true, commitment: "confirmed" })
      .send();
    if (value.err !== null) {
      const err = value.err as unknown;
      if (typeof err === "object" && err !== null && (INSTRUCTION_ERROR in err || "InsufficientFundsForRent" in err)) {
        throw new ProgramRefused(`simulation failed: ${describe(err)}${lastLog(value.logs)}`);
      }
      throw new Error(`simulation failed: ${describe(err)}`);
    }
    return Number(value.unitsConsumed ?? 200_000n);
  }

  async send(wire: Base64EncodedWireTransaction): Promise<void> {
    await this.rpc.sendTransaction(wire, { encoding: "base64", skipPreflight: true, maxRetries: 0n }).send();
  }

  async statuses(signatures: readonly string[]): Promise<(SignatureStatus | null)[]> {
    const out: (SignatureStatus | null)[] = [];
    for (let i = 0; i < signatures.length; i += 256) {
      const chunk = signatures.slice(i, i + 256).map((s) => toSignature(s));
      const { value } = await this.rpc.getSignatureStatuses(chunk, { searchTransactionHistory: true }).send();
      for (const s of value) {
        out.push(
          s === null
            ? null
            : {
                slot: Number(s.slot),
                confirmations: s.confirmations === null ? null : Number(s.confirmations),
                err: s.err,
                confirmationStatus: s.confirmationStatus ?? null,
              },
        );
      }
    }
    return out;
  }

  /** Signatures touching `account` after `until` (exclusive), newest first, at `confirmed` or above, every page of them. */
  async signaturesFor(account: string, until: string | null) {
    const out: { signature: string; slot: number; err: unknown; blockTime: number | null; confirmationStatus: Commitment | null }[] = [];
    let before: string | null = null;
    for (;;) {
      const page = await this.rpc
        .getSignaturesForAddress(address(account), {
          commitment: "confirmed",
          limit: this.signaturesPerCall,
          ...(until ? { until: toSignature(until) } : {}),
          ...(before ? { before: toSignature(before) } : {}),
        })
        .send();
      for (const s of page) {
        out.push({
          signature: s.signature as string,
          slot: Number(s.slot),
          err: s.err,
          blockTime: s.blockTime === null ? null : Number(s.blockTime),
          confirmationStatus: s.confirmationStatus ?? null,
        });
      }
      if (page.length < this.signaturesPerCall) return out;
      before = out.at(-1)!.signature;
    }
  }

  /** A landed transaction's balance changes: lamports and token amounts before and after, per account. */
  async transaction(sig: string, commitment: "confirmed" | "finalized") {
    const tx = await this.rpc.getTransaction(toSignature(sig) as Signature, { commitment, encoding: "json", maxSupportedTransactionVersion: 0 }).send();
    if (!tx || !tx.meta) return null;
    // a versioned transaction's balances index its static keys, then the keys it loaded from lookup tables
    const loaded = (tx.meta as { loadedAddresses?: { writable: readonly Address[]; readonly: readonly Address[] } }).loadedAddresses;
    const keys = [...(tx.transaction.message.accountKeys as readonly Address[]), ...(loaded?.writable ?? []), ...(loaded?.readonly ?? [])].map(String);
    const tokens = (list: typeof tx.meta.preTokenBalances) =>
      new Map((list ?? []).map((b) => [keys[Number(b.accountIndex)]!, { mint: String(b.mint), amount: BigInt(b.uiTokenAmount.amount) }]));
    return {
      slot: Number(tx.slot),
      blockTime: tx.blockTime === null ? null : Number(tx.blockTime),
      err: tx.meta.err,
      fee: BigInt(tx.meta.fee),
      keys,
      pre: tx.meta.preBalances.map((b) => BigInt(b)),
      post: tx.meta.postBalances.map((b) => BigInt(b)),
      preTokens: tokens(tx.meta.preTokenBalances),
      postTokens: tokens(tx.meta.postTokenBalances),
    };
  }
}

export function describe(err: unknown): string {
  return typeof err === "string" ? err : JSON.stringify(err, (_k, v) => (typeof v === "bigint" ? Number(v) : v));
}

function lastLog(logs: readonly string[] | null): string {
  const line = logs?.filter((l) => l.includes("Error") || l.includes("failed")).at(-1);
  return line ? ` (${line})` : "";
}
