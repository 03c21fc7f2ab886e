import { getAddress } from "viem";
import { SystemClock } from "../../clock/system-clock";
import { ConfigurationGate, ConfigurationMismatch, gasPriceChecks, hotWalletCheck, noGasPrice } from "../configuration-checks";
import {
  AssetRegistry,
  divCeil,
  ratioOfPrice,
  type ChainAdapter,
  type ChainInfo,
  type ChainObservation,
  type ChainHoldings,
  type ConfigurationCheck,
  type FeeSchedule,
  type HoldingsRequest,
  type FeeUnavailable,
  type InboundTransfer,
  type OutboundTransfer,
  type TransferStatus,
  type Ratio,
} from "../../../src/ports/public";
import { DEFAULT_REPLACE_AFTER_MS, EVM_CHAIN_DEFAULTS, type EvmChainDefaults, type EvmChainOptions } from "./evm-config";
import type { EvmContext } from "./evm-context";
import { EvmDeposits } from "./evm-deposits";
import { EvmHoldings } from "./evm-holdings";
import { EvmRpc, ExecutionReverted } from "./evm-rpc";
import { EvmSender } from "./evm-sender";
import { EVM_NAMESPACE, EvmState } from "./evm-state";
import { EvmSweeps, transferData } from "./evm-sweeps";

/** A contract call the hot wallet makes once under an id (`EvmChain.sendCall`). */
export interface HotWalletCall {
  /** Chosen by the caller, unique on this chain among every transaction the adapter makes (payout legs use leg ids). */
  id: string;
  /** What it does, kept with the record (`swap`, `approve`). */
  kind: string;
  to: string;
  /** Call data, 0x-prefixed hex. */
  data: string;
  /** Wei sent with it. */
  value: bigint;
  /** The asset it spends and how much, base units (kept with the record, for the operator). */
  asset: string;
  amount: bigint;
}

export type HotWalletCallOutcome =
  | { status: "unknown" | "pending" }
  | { status: "refused" | "dropped"; reason: string }
  | {
      status: "mined";
      txHash: string;
      /** The block that carried it. */
      block: number;
      /** False when the transaction reverted. */
      success: boolean;
      confirmations: number;
      logs: { address: string; topics: string[]; data: string }[];
      /** What the hot wallet paid for gas, wei. */
      gasCost: bigint;
    };

/** Gas of a plain value transfer. */
const VALUE_TRANSFER_GAS = 21_000n;
/** Gas assumed for a token transfer when it cannot be estimated (the hot wallet holds none yet). */
const TOKEN_TRANSFER_GAS = 65_000n;
/** An address no one holds tokens at, to estimate a transfer to a fresh recipient (the dear case). */
const PROBE_RECIPIENT = "0x000000000000000000000000000000000000fee5";
/** `decimals()` and `symbol()` of an ERC-20. */
const DECIMALS_CALL = "0x313ce567";
const SYMBOL_CALL = "0x95d89b41";

/** A `symbol()` answer: an ABI string, or a bytes32 (older tokens); null when it is neither. */
function decodeSymbol(answer: string): string | null {
  const hex = answer.slice(2);
  if (hex.length === 64) return Buffer.from(hex, "hex").toString("utf8").replace(/\0+$/, "") || null;
  if (hex.length < 128) return null;
  const length = Number(BigInt(`0x${hex.slice(64, 128)}`));
  if (length > 64 || hex.length < 128 + length * 2) return null;
  return Buffer.from(hex.slice(128, 128 + length * 2), "hex").toString("utf8");
}

/** Whether a token's symbol names the asset: the code itself, a wrapped `W…` form, or the code with a suffix (`USDC.e`). */
function symbolNames(symbol: string, asset: string): boolean {
  const s = symbol.toUpperCase().replace(/[^A-Z0-9]/g, "");
  return s === asset || s === `W${asset}` || s.startsWith(asset);
}

/** How long a token transfer's gas estimate is reused. */
const GAS_ESTIMATE_TTL_MS = 600_000;

/**
 * One EVM chain, live (docs/decisions.md §9), on viem: payout legs are ERC-20 `transfer` calls or
 * native value transfers from the hot wallet (key 0 of the signer), each made once under its
 * leg id (`evm-sender.ts`); deposit addresses are keys 1 and up, one per intent and chain, never
 * reused; deposits are read from `Transfer` logs and value transfers with reorganisations found
 * by block hashes (`evm-deposits.ts`) and swept to the hot wallet (`evm-sweeps.ts`). A leg's
 * network fee is its estimated gas at the chain's current EIP-1559 fees, converted into the
 * payout asset at a configured rate or through the venues. Everything it keeps is in the
 * engine's storage, in its adapter state (namespace `evm`, laid out by `evm-state.ts`), so
 * engine processes on one database share it.
 */
export class EvmChain implements ChainAdapter {
  readonly name: string;
  readonly chains: readonly string[];
  private readonly ctx: EvmContext;
  private readonly sender: EvmSender;
  private readonly deposits: EvmDeposits;
  private readonly sweeps: EvmSweeps;
  private readonly holdingsReader: EvmHoldings;
  private readonly assets: AssetRegistry;
  private readonly defaults: EvmChainDefaults;
  private readonly gasEstimates = new Map<string, { gas: bigint; at: number }>();
  private hot: Promise<string> | null = null;
  /** Where the chain's observations go (`observe`): nowhere until an engine asks. */
  private reporter: (observation: ChainObservation) => void = () => undefined;
  private chainIdChecked: Promise<number> | null = null;
  private readonly gate = new ConfigurationGate(() => this.checkNode());

  constructor(private readonly options: EvmChainOptions) {
    const assets = options.assets ?? AssetRegistry.withDefaults();
    const chain = assets.chain(options.chain);
    if (!chain || chain.family !== "evm") throw new TypeError(`${options.chain} is not an EVM chain of the asset registry`);
    this.assets = assets;
    this.defaults = EVM_CHAIN_DEFAULTS[options.chain] ?? {
      chainId: null,
      blockTimeMs: 2_000,
      finalityConfirmations: 12,
      gasAsset: { code: "ETH", decimals: 18 },
    };
    const finality = options.finalityConfirmations ?? this.defaults.finalityConfirmations;
    if (!Number.isInteger(finality) || finality < 1) throw new TypeError(`${options.chain}: finality_confirmations must be a positive integer`);
    const tokens = new Map<string, string>();
    for (const [asset, address] of Object.entries(options.tokens)) {
      const definition = assets.get(asset);
      if (!definition || !definition.chains.includes(options.chain)) throw new TypeError(`${options.chain}: ${asset} is not an asset of this chain`);
      if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new TypeError(`${options.chain}: the ${asset} token address is not an EVM address`);
      tokens.set(asset, getAddress(address.toLowerCase()));
    }
    const gasAsset = assets.get(this.defaults.gasAsset.code);
    const nativeAsset = gasAsset && gasAsset.chains.includes(options.chain) ? gasAsset.code : null;
    for (const [asset, price] of Object.entries(options.feeRates ?? {})) {
      if (!assets.get(asset)) throw new TypeError(`${options.chain}: fee rate for unknown asset ${asset}`);
      ratioOfPrice(price, 18, 6); // refuses a malformed price now, not at the first payout
    }
    this.name = `evm:${options.chain}`;
    this.chains = [options.chain];
    const rpc = new EvmRpc(options.transport);
    const state = options.storage.adapterState(EVM_NAMESPACE);
    this.ctx = {
      chain: options.chain,
      rpc,
      signer: options.signer,
      clock: options.clock ?? new SystemClock(),
      finalityConfirmations: finality,
      blockTimeMs: options.blockTimeMs ?? this.defaults.blockTimeMs,
      replaceAfterMs: options.replaceAfterMs ?? DEFAULT_REPLACE_AFTER_MS,
      tokens,
      nativeAsset,
      transaction: <T>(fn: (tx: EvmState) => Promise<T>) => state.transaction((tx) => fn(new EvmState(tx))),
      hotWallet: () => this.hotWallet(),
      chainId: () => this.chainId(),
      report: (o) => this.reporter(o),
    };
    this.sender = new EvmSender(this.ctx);
    this.deposits = new EvmDeposits(this.ctx, options.maxBlocksPerRead ?? 500, options.startBlock ?? null);
    this.sweeps = new EvmSweeps(this.ctx, this.sender, this.deposits);
    this.holdingsReader = new EvmHoldings(this.ctx, this.deposits);
  }

  observe(report: (observation: ChainObservation) => void): void {
    this.reporter = report;
  }

  async describe(): Promise<ChainInfo> {
    return { blockTimeMs: this.ctx.blockTimeMs, confirmationsToFinality: this.ctx.finalityConfirmations };
  }

  async feeSchedule(_chain: string, asset: string): Promise<FeeSchedule | FeeUnavailable> {
    await this.verified();
    if (asset !== this.ctx.nativeAsset && !this.ctx.tokens.has(asset)) {
      return { unavailable: `no ${asset} token is configured (tokens.${asset} of ${this.ctx.chain} in PAYRAIL_CHAINS)` };
    }
    const rate = await this.gasRate(asset);
    if (!rate) return { unavailable: noGasPrice(this.ctx.chain, this.defaults.gasAsset.code, asset) };
    const gas = await this.transferGas(asset);
    const block = await this.ctx.rpc.block("latest");
    const tip = await this.ctx.rpc.maxPriorityFeePerGas();
    const wei = gas * ((block?.baseFeePerGas ?? 0n) + tip);
    return { fixed: divCeil(wei * rate.num, rate.den), proportionalPpm: 0n, perTransferCap: null };
  }

  async liquidity(_chain: string, asset: string): Promise<bigint> {
    await this.verified();
    const hot = await this.hotWallet();
    if (asset === this.ctx.nativeAsset) {
      const balance = await this.ctx.rpc.balance(hot, "pending");
      const fees = await this.sender.currentFees();
      const reserve = VALUE_TRANSFER_GAS * 2n * fees.maxFeePerGas; // what sending it needs in gas
      return balance > reserve ? balance - reserve : 0n;
    }
    const token = this.ctx.tokens.get(asset);
    if (!token) return 0n;
    return this.ctx.rpc.tokenBalance(token, hot, "pending");
  }

  async broadcast(transfer: OutboundTransfer): Promise<{ txHash: string } | { rejected: string }> {
    await this.verified();
    const hot = await this.hotWallet();
    const to = getAddress(transfer.to.toLowerCase());
    const native = transfer.asset === this.ctx.nativeAsset;
    const token = this.ctx.tokens.get(transfer.asset);
    const base = { transferId: transfer.transferId, kind: "payout", keyIndex: 0, from: hot, to, asset: transfer.asset, amount: transfer.amount };
    if (!native && !token) {
      const record = await this.sender.refuse(
        { ...base, call: { to: hot, data: "0x", value: 0n } },
        `no ${transfer.asset} token is configured on ${this.ctx.chain}`,
      );
      return record.status === "rejected" ? { rejected: record.reason ?? "refused" } : { txHash: record.attempts[0]!.txHash };
    }
    const call = native ? { to, data: "0x", value: transfer.amount } : { to: token!, data: transferData(to, transfer.amount), value: 0n };
    const { record } = await this.sender.send({ ...base, call });
    if (record.status === "rejected") return { rejected: record.reason ?? "refused" };
    return { txHash: record.attempts[0]!.txHash };
  }

  async transferStatus(_chain: string, txHash: string): Promise<TransferStatus> {
    const record = await this.ctx.transaction((tx) => tx.findTransactionByHash(this.ctx.chain, txHash));
    if (record) {
      const { gasCost, ...status } = await this.sender.status(record);
      if (gasCost === undefined || status.failure !== null) return status;
      // what the hot wallet paid, in the payout asset: the leg's fee beyond it is the house's margin
      const rate = await this.gasRate(record.asset).catch(() => null);
      return { ...status, feePaid: rate ? divCeil(gasCost * rate.num, rate.den) : null };
    }
    // not one of ours (or made before this storage): read the receipt alone
    const receipt = await this.ctx.rpc.receipt(txHash);
    if (!receipt) return { confirmations: 0, finality: "pending", failure: null };
    const confirmations = (await this.ctx.rpc.blockNumber()) - receipt.blockNumber + 1;
    const final = confirmations >= this.ctx.finalityConfirmations;
    return {
      confirmations,
      finality: final ? "final" : "included",
      failure: final && receipt.status === "reverted" ? "transaction reverted" : null,
    };
  }

  async depositAddress(_chain: string, _asset: string, intentId: string): Promise<string> {
    const ctx = this.ctx;
    const wallet = await this.hotWallet();
    const key = `${ctx.chain}:${intentId}`;
    const known = await ctx.transaction((tx) => tx.getAddress(wallet, key));
    if (known) return known.address;
    await this.verified(); // a new address only on the chain the settings name
    const head = await ctx.rpc.blockNumber();
    return ctx.transaction(async (tx) => {
      const again = await tx.getAddress(wallet, key);
      if (again) return again.address;
      const index = await tx.takeSequence(`address_index:${wallet.toLowerCase()}`, 1);
      const address = await ctx.signer.address(index);
      await tx.insertAddress({ wallet, key, index, address, chain: ctx.chain, fromBlock: head, created: ctx.clock.now() });
      return address;
    });
  }

  async inboundTransfers(_chain: string, cursor: string | null): Promise<{ transfers: InboundTransfer[]; cursor: string }> {
    await this.verified();
    return this.deposits.read(cursor);
  }

  async sweepDeposits(): Promise<{ pending: boolean }> {
    await this.verified();
    return this.sweeps.run();
  }

  /** What the wallet's addresses hold of an asset, read from the node (`ChainAdapter.holdings`, `evm-holdings.ts`). */
  async holdings(request: HoldingsRequest): Promise<ChainHoldings | null> {
    await this.verified();
    return this.holdingsReader.read(request);
  }

  /**
   * The configuration against the node (`ChainAdapter.checkConfiguration`): its chain id against
   * `chainId` or the chain's own, each token's code, `decimals()` and `symbol()` against its
   * asset, and a price for gas in each payout asset (`fee_rates`, else the venues).
   */
  async checkConfiguration(): Promise<ConfigurationCheck[]> {
    const checks = await this.checkNode();
    const assets = [...(this.ctx.nativeAsset ? [this.ctx.nativeAsset] : []), ...this.ctx.tokens.keys()];
    checks.push(...(await gasPriceChecks(this.ctx.chain, this.defaults.gasAsset.code, assets, (asset) => this.gasRate(asset))));
    return checks;
  }

  /**
   * An ERC-20 at `token` against the asset it stands for (`subject` names the setting): a
   * contract is there, its `decimals()` is the asset's (`fail` otherwise: every amount would be
   * off by powers of ten), and its `symbol()`, where it has one, names the asset (a `warning`
   * otherwise: bridged tokens carry other symbols). The Uniswap v2 venues check theirs with it.
   */
  async checkToken(subject: string, asset: string, token: string): Promise<ConfigurationCheck[]> {
    const rpc = this.ctx.rpc;
    const definition = this.assets.get(asset);
    if (!definition) return [{ subject, outcome: "fail", message: `${subject}: ${asset} is not an asset of the registry` }];
    if ((await rpc.code(token)) === "0x") return [{ subject, outcome: "fail", message: `${subject}: no contract at ${token} on ${this.ctx.chain}` }];
    // a revert or an empty answer is a contract without decimals(); a node that did not answer is no verdict (thrown)
    const reverted = (e: unknown) => {
      if (e instanceof ExecutionReverted) return null;
      throw e;
    };
    const decimals = await rpc
      .call({ to: token, data: DECIMALS_CALL })
      .then((answer) => (answer.length >= 66 ? Number(BigInt(answer.slice(0, 66))) : null), reverted);
    const checks: ConfigurationCheck[] = [
      decimals === null
        ? { subject: `${subject}: decimals()`, outcome: "fail", message: `${subject}: ${token} answers no decimals() (not an ERC-20 token?)` }
        : decimals !== definition.decimals
          ? {
              subject: `${subject}: decimals()`,
              outcome: "fail",
              message: `${subject}: decimals() of ${token} is ${decimals}, ${asset} has ${definition.decimals}`,
            }
          : { subject: `${subject}: decimals()`, outcome: "ok", message: `${subject}: decimals() is ${decimals}` },
    ];
    const symbol = await rpc.call({ to: token, data: SYMBOL_CALL }).then(decodeSymbol, reverted);
    if (symbol !== null) {
      checks.push(
        symbolNames(symbol, asset)
          ? { subject: `${subject}: symbol()`, outcome: "ok", message: `${subject}: symbol() is ${symbol}` }
          : {
              subject: `${subject}: symbol()`,
              outcome: "warning",
              message: `${subject}: symbol() of ${token} is ${JSON.stringify(symbol)}, not ${asset} (a bridged token, or the wrong contract?)`,
            },
      );
    }
    return checks;
  }

  /**
   * A contract call from the hot wallet, made once under `call.id` with the payouts' discipline
   * (`evm-sender.ts`): the nonce from the counter payouts use, the transaction estimated, signed
   * and saved before it is sent, a repeated call re-sending the same bytes. A revert at
   * estimation is a refusal, saved and answered again. For adapters that act with this chain's
   * hot wallet (the Uniswap v2 venues' approvals and swaps): one wallet, one nonce sequence.
   */
  async sendCall(call: HotWalletCall): Promise<{ txHash: string } | { rejected: string }> {
    await this.verified();
    const hot = await this.hotWallet();
    const { record } = await this.sender.send({
      transferId: call.id,
      kind: call.kind,
      keyIndex: 0,
      from: hot,
      to: getAddress(call.to.toLowerCase()),
      asset: call.asset,
      amount: call.amount,
      call: { to: getAddress(call.to.toLowerCase()), data: call.data, value: call.value },
    });
    if (record.status === "rejected") return { rejected: record.reason ?? "refused" };
    return { txHash: record.attempts[0]!.txHash };
  }

  /**
   * Where a call of `sendCall` stands: `unknown` when none was made under the id; `refused`;
   * `pending` until mined (re-sent if the node lost it, replaced when stuck, as payouts are);
   * `dropped` when its nonce went to another transaction; `mined` with the receipt's outcome,
   * logs and gas cost (wei), and its confirmations.
   */
  async callOutcome(id: string): Promise<HotWalletCallOutcome> {
    const record = await this.ctx.transaction((tx) => tx.getTransaction(this.ctx.chain, id));
    if (!record) return { status: "unknown" };
    if (record.status === "rejected") return { status: "refused", reason: record.reason ?? "refused" };
    const status = await this.sender.status(record);
    if (status.confirmations === 0) return status.failure ? { status: "dropped", reason: status.failure } : { status: "pending" };
    const txHash = status.txHash ?? record.attempts[0]!.txHash;
    const receipt = await this.ctx.rpc.receipt(txHash);
    if (!receipt) return { status: "pending" }; // reorganised away a moment ago
    return {
      status: "mined",
      txHash,
      block: receipt.blockNumber,
      success: receipt.status === "success",
      confirmations: status.confirmations,
      logs: receipt.logs,
      gasCost: receipt.fee,
    };
  }

  /** The hot wallet (key 0). */
  hotWallet(): Promise<string> {
    this.hot ??= this.options.signer.address(0).then((a) => getAddress(a.toLowerCase()));
    return this.hot;
  }

  private chainId(): Promise<number> {
    this.chainIdChecked ??= this.ctx.rpc.chainId().then(
      (id) => {
        const expected = this.options.chainId ?? this.defaults.chainId;
        if (expected !== null && id !== expected) throw new ConfigurationMismatch(this.chainIdMismatch(id, expected));
        return id;
      },
      (e: unknown) => {
        this.chainIdChecked = null;
        throw e;
      },
    );
    return this.chainIdChecked;
  }

  private chainIdMismatch(id: number, expected: number): string {
    return this.options.chainId !== undefined
      ? `${this.ctx.chain}: the node serves chain id ${id}, chain_id is ${expected}`
      : `${this.ctx.chain}: the node serves chain id ${id}, ${this.ctx.chain} is ${expected} (set chain_id to use another network)`;
  }

  /** The node's chain id, the tokens and the hot wallet: what the adapter refuses to work without (`verified`). */
  private async checkNode(): Promise<ConfigurationCheck[]> {
    const chain = this.ctx.chain;
    const subject = `${chain}: chain id`;
    const id = await this.ctx.rpc.chainId();
    const expected = this.options.chainId ?? this.defaults.chainId;
    const checks: ConfigurationCheck[] = [
      expected === null
        ? { subject, outcome: "warning", message: `${chain}: the node serves chain id ${id}; set chain_id so that no other network is ever used` }
        : id !== expected
          ? { subject, outcome: "fail", message: this.chainIdMismatch(id, expected) }
          : { subject, outcome: "ok", message: `${chain}: chain id ${id}` },
    ];
    for (const [asset, token] of this.ctx.tokens) checks.push(...(await this.checkToken(`${chain}.tokens.${asset}`, asset, token)));
    const hot = await this.hotWallet();
    checks.push(hotWalletCheck(chain, hot, await this.ctx.transaction((tx) => tx.claimHotWallet(chain, hot))));
    return checks;
  }

  /** Resolves once the node's chain id and the tokens checked out (`checkNode`, once per process; `ConfigurationGate`). */
  private verified(): Promise<void> {
    return this.gate.passed();
  }

  /** Base units of `asset` per wei of gas: 1 for the native asset, else a configured rate or the venues'. */
  private async gasRate(asset: string): Promise<Ratio | null> {
    if (asset === this.ctx.nativeAsset) return { num: 1n, den: 1n };
    const decimals = this.assets.get(asset)!.decimals;
    const configured = this.options.feeRates?.[asset];
    if (configured) return ratioOfPrice(configured, this.defaults.gasAsset.decimals, decimals);
    return (await this.options.pricer?.(this.defaults.gasAsset.code, asset)) ?? null;
  }

  /** Gas of one transfer of `asset` to a recipient that held none of it before (the dear case). */
  private async transferGas(asset: string): Promise<bigint> {
    if (asset === this.ctx.nativeAsset) return VALUE_TRANSFER_GAS;
    const now = this.ctx.clock.now();
    const cached = this.gasEstimates.get(asset);
    if (cached && now - cached.at < GAS_ESTIMATE_TTL_MS) return cached.gas;
    let gas = TOKEN_TRANSFER_GAS;
    try {
      const hot = await this.hotWallet();
      gas = await this.ctx.rpc.estimateGas({ from: hot, to: this.ctx.tokens.get(asset)!, data: transferData(PROBE_RECIPIENT, 1n), value: 0n });
    } catch {
      // no balance to estimate with yet: the usual cost of a transfer to a fresh holder
    }
    this.gasEstimates.set(asset, { gas, at: now });
    return gas;
  }
}
