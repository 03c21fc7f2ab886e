import { createHash } from "node:crypto";
import { base58, bech32 } from "@scure/base";
import { toChecksumAddress } from "../../../src/chains/chain-address";
import { parseAmount } from "../../../src/money/amount";
import { AssetRegistry, type ChainFamily } from "../../../src/money/assets";
import type {
  ChainAdapter,
  ChainInfo,
  ChainSimulationControl,
  FeeSchedule,
  InboundTransfer,
  OutboundTransfer,
  TransferStatus,
} from "../../../src/ports/chain";
import type { Clock } from "../../../src/ports/clock";
import { DEFAULT_SIMULATED_CHAINS, type SimulatedChainConfig } from "./defaults";

export interface SimulatedChainsOptions {
  clock: Clock;
  /** Decides failures and hashes; the same seed gives the same world. Default `payrail`. */
  seed?: string;
  /** Per chain, settings that replace the defaults of `DEFAULT_SIMULATED_CHAINS`. */
  chains?: Record<string, Partial<SimulatedChainConfig>>;
  assets?: AssetRegistry;
}

/** Heights count blocks since this moment, so they are large and the same in every run. */
const GENESIS = Date.UTC(2020, 0, 1);

interface SentTransfer {
  chain: string;
  txHash: string;
  includedAt: number;
  fails: boolean;
}

interface ReceivedTransfer extends Pick<InboundTransfer, "transferId" | "chain" | "asset" | "address" | "amount" | "txHash"> {
  includedAt: number;
  /** Height at which a reorganisation removed it, or null. */
  droppedAt: number | null;
}

/**
 * Simulated chains, deterministic under a seed. Time drives them: a chain's height is the number
 * of its blocks since 2020 on the engine's clock (plus blocks mined by `advance`), a transfer is
 * included in the block after its broadcast and is final after the chain's confirmations. The
 * inclusion height is written into the transaction hash, so the status of a transfer can be
 * worked out again after a restart. Failures are decided by the seed and the transfer id
 * (`failureRate`) or forced (`failNext`). Deposits arrive through `pay` (test helpers) and are
 * reported by `inboundTransfers`; reorganisations move the engine's own transfers of the
 * replaced blocks into the next block and remove the deposits in them.
 */
export class SimulatedChains implements ChainAdapter, ChainSimulationControl {
  readonly name = "simulated";
  readonly testModeOnly = true;
  readonly chains: readonly string[];
  private readonly clock: Clock;
  private readonly seed: string;
  private readonly assets: AssetRegistry;
  private readonly config = new Map<string, SimulatedChainConfig>();
  private readonly extraBlocks = new Map<string, number>();
  private readonly liquidityLeft = new Map<string, bigint>();
  private readonly sent = new Map<string, SentTransfer>();
  private readonly byHash = new Map<string, SentTransfer>();
  private readonly forcedFailures = new Map<string, { count: number; mode: "rejected" | "reverted" }>();
  private readonly received = new Map<string, ReceivedTransfer[]>();
  /** Refusals, remembered like transfers: a repeated transfer id gets its first answer. */
  private readonly refused = new Map<string, string>();

  constructor(options: SimulatedChainsOptions) {
    this.clock = options.clock;
    this.seed = options.seed ?? "payrail";
    this.assets = options.assets ?? AssetRegistry.withDefaults();
    const names = new Set([...Object.keys(DEFAULT_SIMULATED_CHAINS), ...Object.keys(options.chains ?? {})]);
    for (const chain of names) {
      if (!this.assets.chain(chain)) throw new TypeError(`simulated chain ${chain} is not in the asset registry`);
      const base = DEFAULT_SIMULATED_CHAINS[chain];
      const override = options.chains?.[chain] ?? {};
      const merged: SimulatedChainConfig = {
        blockTimeMs: override.blockTimeMs ?? base?.blockTimeMs ?? 1_000,
        confirmationsToFinality: override.confirmationsToFinality ?? base?.confirmationsToFinality ?? 3,
        fees: { ...base?.fees, ...override.fees },
        liquidity: { ...base?.liquidity, ...override.liquidity },
        failureRate: override.failureRate ?? base?.failureRate ?? 0,
        failureMode: override.failureMode ?? base?.failureMode ?? "rejected",
      };
      if (!(merged.blockTimeMs > 0) || !Number.isInteger(merged.confirmationsToFinality) || merged.confirmationsToFinality < 1) {
        throw new TypeError(`simulated chain ${chain}: block time and confirmations must be positive`);
      }
      this.config.set(chain, merged);
    }
    this.chains = [...this.config.keys()];
  }

  async describe(chain: string): Promise<ChainInfo> {
    const c = this.chainConfig(chain);
    return { blockTimeMs: c.blockTimeMs, confirmationsToFinality: c.confirmationsToFinality };
  }

  async feeSchedule(chain: string, asset: string): Promise<FeeSchedule> {
    const fee = this.chainConfig(chain).fees[asset];
    if (!fee) return { fixed: 0n, proportionalPpm: 0n, perTransferCap: null };
    return {
      fixed: this.units(asset, fee.fixed, true),
      proportionalPpm: BigInt(fee.proportionalPpm),
      perTransferCap: fee.perTransferCap ? this.units(asset, fee.perTransferCap) : null,
    };
  }

  async liquidity(chain: string, asset: string): Promise<bigint> {
    const key = `${chain}:${asset}`;
    if (!this.liquidityLeft.has(key)) {
      const configured = this.chainConfig(chain).liquidity[asset];
      this.liquidityLeft.set(key, configured ? this.units(asset, configured, true) : 0n);
    }
    return this.liquidityLeft.get(key)!;
  }

  async broadcast(transfer: OutboundTransfer): Promise<{ txHash: string } | { rejected: string }> {
    const previous = this.sent.get(transfer.transferId);
    if (previous) return { txHash: previous.txHash };
    const refused = this.refused.get(transfer.transferId);
    if (refused) return { rejected: refused };
    const config = this.chainConfig(transfer.chain);
    const failure = this.takeFailure(transfer.chain, transfer.transferId, config);
    const left = await this.liquidity(transfer.chain, transfer.asset);
    const refusal =
      failure === "rejected"
        ? "the simulated chain refused the transaction"
        : left < transfer.amount
          ? "insufficient hot-wallet liquidity"
          : null;
    if (refusal) {
      this.refused.set(transfer.transferId, refusal);
      return { rejected: refusal };
    }
    this.liquidityLeft.set(`${transfer.chain}:${transfer.asset}`, left - transfer.amount);
    const includedAt = this.height(transfer.chain) + 1;
    const txHash = this.txHash(transfer.chain, includedAt, `out:${transfer.transferId}`);
    const record = { chain: transfer.chain, txHash, includedAt, fails: failure === "reverted" };
    this.sent.set(transfer.transferId, record);
    this.byHash.set(txHash, record);
    return { txHash };
  }

  async transferStatus(chain: string, txHash: string): Promise<TransferStatus> {
    const config = this.chainConfig(chain);
    const known = this.byHash.get(txHash);
    const includedAt = known?.includedAt ?? this.decodeHeight(chain, txHash);
    const tip = this.height(chain);
    if (tip < includedAt) return { confirmations: 0, finality: "pending", failure: null };
    const confirmations = tip - includedAt + 1;
    return {
      confirmations,
      finality: confirmations >= config.confirmationsToFinality ? "final" : "included",
      failure: known?.fails ? "execution reverted" : null,
    };
  }

  async depositAddress(chain: string, asset: string, intentId: string): Promise<string> {
    this.chainConfig(chain);
    return this.address(this.family(chain), `deposit:${chain}:${asset}:${intentId}`);
  }

  /**
   * Every deposit on `chain` whose story was not over at the cursor's height (not yet final, or
   * removed since), with its state now. The cursor is the height of the previous call.
   */
  async inboundTransfers(chain: string, cursor: string | null): Promise<{ transfers: InboundTransfer[]; cursor: string }> {
    const config = this.chainConfig(chain);
    const since = cursor === null ? Number.NEGATIVE_INFINITY : Number(cursor);
    const tip = this.height(chain);
    const transfers = (this.received.get(chain) ?? [])
      .filter((t) => (t.droppedAt ?? t.includedAt + config.confirmationsToFinality - 1) >= since)
      .map((t) => this.inbound(t, tip, config));
    return { transfers, cursor: String(tip) };
  }

  // ---- simulation control (test helpers) ----------------------------------------------------

  height(chain: string): number {
    const config = this.chainConfig(chain);
    return Math.floor((this.clock.now() - GENESIS) / config.blockTimeMs) + (this.extraBlocks.get(chain) ?? 0);
  }

  advance(chain: string, blocks: number): void {
    this.chainConfig(chain);
    if (!Number.isInteger(blocks) || blocks < 0) throw new RangeError("blocks must be a non-negative integer");
    this.extraBlocks.set(chain, (this.extraBlocks.get(chain) ?? 0) + blocks);
  }

  /**
   * Replaces the last `depth` blocks. The engine's own transfers in them go back to the mempool
   * and are included in the next block; deposits in them are gone (the payer's transaction was
   * replaced), so they turn `reverted`.
   */
  reorg(chain: string, depth: number): number {
    this.chainConfig(chain);
    if (!Number.isInteger(depth) || depth < 1) throw new RangeError("depth must be a positive integer");
    const tip = this.height(chain);
    const replaced = (height: number) => height > tip - depth && height <= tip;
    let moved = 0;
    for (const transfer of this.sent.values()) {
      if (transfer.chain === chain && replaced(transfer.includedAt)) {
        transfer.includedAt = tip + 1;
        moved++;
      }
    }
    for (const transfer of this.received.get(chain) ?? []) {
      if (transfer.droppedAt === null && replaced(transfer.includedAt)) {
        transfer.droppedAt = tip;
        moved++;
      }
    }
    return moved;
  }

  pay(transfer: { chain: string; asset: string; address: string; amount: bigint }): InboundTransfer {
    const config = this.chainConfig(transfer.chain);
    // zero is allowed: zero-value transfers exist on chains (address-poisoning spam)
    if (transfer.amount < 0n) throw new RangeError("a deposit moves a non-negative amount");
    const list = this.received.get(transfer.chain) ?? [];
    const salt = `in:${transfer.chain}:${transfer.address}:${list.length}`;
    const tip = this.height(transfer.chain);
    const record: ReceivedTransfer = {
      ...transfer,
      transferId: `${transfer.chain}:${this.digest(salt).subarray(0, 12).toString("hex")}`,
      txHash: this.txHash(transfer.chain, tip + 1, salt),
      includedAt: tip + 1,
      droppedAt: null,
    };
    list.push(record);
    this.received.set(transfer.chain, list);
    return this.inbound(record, tip, config);
  }

  /** Makes the next `count` broadcasts on `chain` fail (`rejected` at once, or `reverted` when mined). */
  failNext(chain: string, count = 1, mode: "rejected" | "reverted" = "rejected"): void {
    this.chainConfig(chain);
    this.forcedFailures.set(chain, { count, mode });
  }

  /** Sets what is left to send of `asset` on `chain` (decimal string). */
  setLiquidity(chain: string, asset: string, amount: string): void {
    this.liquidityLeft.set(`${chain}:${asset}`, this.units(asset, amount, true));
  }

  // ---- internals ------------------------------------------------------------------------------

  private inbound(t: ReceivedTransfer, tip: number, config: SimulatedChainConfig): InboundTransfer {
    const confirmations = t.droppedAt !== null || tip < t.includedAt ? 0 : tip - t.includedAt + 1;
    const finality =
      t.droppedAt !== null ? "reverted" : confirmations === 0 ? "pending" : confirmations >= config.confirmationsToFinality ? "final" : "included";
    return {
      transferId: t.transferId,
      chain: t.chain,
      asset: t.asset,
      address: t.address,
      amount: t.amount,
      txHash: t.txHash,
      confirmations,
      finality,
      seenAt: GENESIS + t.includedAt * config.blockTimeMs,
    };
  }

  private chainConfig(chain: string): SimulatedChainConfig {
    const config = this.config.get(chain);
    if (!config) throw new Error(`the simulated chains do not serve ${chain}`);
    return config;
  }

  private family(chain: string): ChainFamily {
    return this.assets.chain(chain)!.family;
  }

  private units(asset: string, amount: string, allowZero = false): bigint {
    const definition = this.assets.get(asset);
    if (!definition) throw new TypeError(`simulated chains: unknown asset ${asset}`);
    const parsed = parseAmount(amount, definition, "amount", { allowZero });
    if (parsed.isErr()) throw new TypeError(`simulated chains: ${asset} amount ${amount}: ${parsed.error.message}`);
    return parsed.value;
  }

  private digest(text: string): Buffer {
    return createHash("sha256").update(`${this.seed}\u0000${text}`).digest();
  }

  private takeFailure(chain: string, transferId: string, config: SimulatedChainConfig): "rejected" | "reverted" | null {
    const forced = this.forcedFailures.get(chain);
    if (forced && forced.count > 0) {
      forced.count--;
      return forced.mode;
    }
    const rate = config.failureRate ?? 0;
    if (rate <= 0) return null;
    const draw = this.digest(`fail:${transferId}`).readUInt32BE(0) / 2 ** 32;
    return draw < rate ? (config.failureMode ?? "rejected") : null;
  }

  /** 8 bytes of inclusion height, then hash bytes, written in the chain's usual form. */
  private txHash(chain: string, includedAt: number, salt: string): string {
    const family = this.family(chain);
    const bytes = Buffer.alloc(family === "solana" ? 64 : 32);
    bytes.writeBigUInt64BE(BigInt(includedAt), 0);
    const filler = Buffer.concat([this.digest(salt), this.digest(`${salt}:2`)]);
    filler.copy(bytes, 8, 0, bytes.length - 8);
    if (family === "solana") return base58.encode(bytes);
    const hex = bytes.toString("hex");
    return family === "evm" ? `0x${hex}` : hex;
  }

  private decodeHeight(chain: string, txHash: string): number {
    const family = this.family(chain);
    let bytes: Uint8Array;
    try {
      bytes =
        family === "solana"
          ? base58.decode(txHash)
          : Buffer.from(family === "evm" ? txHash.slice(2) : txHash, "hex");
    } catch {
      throw new Error(`not a transaction of the simulated ${chain}: ${txHash}`);
    }
    if (bytes.length < 8) throw new Error(`not a transaction of the simulated ${chain}: ${txHash}`);
    return Number(Buffer.from(bytes).readBigUInt64BE(0));
  }

  private address(family: ChainFamily, salt: string): string {
    const d = this.digest(salt);
    switch (family) {
      case "evm":
        return toChecksumAddress(`0x${d.subarray(0, 20).toString("hex")}`);
      case "solana":
        return base58.encode(d.subarray(0, 32));
      case "bitcoin":
        return bech32Address(d.subarray(0, 20));
    }
  }
}

/** A mainnet segwit v0 (P2WPKH) address for a 20-byte program. */
function bech32Address(program: Uint8Array): string {
  return bech32.encode("bc", [0, ...bech32.toWords(program)]);
}
