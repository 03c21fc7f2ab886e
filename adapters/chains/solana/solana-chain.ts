import { address as toAddress } from "@solana/kit";
import { SystemClock } from "../../clock/system-clock";
import { ConfigurationGate, gasPriceChecks, hotWalletCheck, noGasPrice } from "../configuration-checks";
import {
  AssetRegistry,
  divCeil,
  ratioOfPrice,
  type ChainAdapter,
  type ChainInfo,
  type ChainHoldings,
  type ChainObservation,
  type ConfigurationCheck,
  type HoldingsRequest,
  type FeeSchedule,
  type FeeUnavailable,
  type InboundTransfer,
  type OutboundTransfer,
  type Ratio,
  type TransferStatus,
} from "../../../src/ports/public";
import { associatedTokenAccount } from "./solana-addresses";
import { SOLANA_DEFAULTS, type SolanaChainOptions } from "./solana-config";
import type { SolanaContext, SolanaToken } from "./solana-context";
import { SolanaDeposits } from "./solana-deposits";
import { SolanaHoldings } from "./solana-holdings";
import { type SignatureStatus, SolanaRpc } from "./solana-rpc";
import { type SolanaRequest, SolanaSender } from "./solana-sender";
import { SOLANA_NAMESPACE, SolanaState, type SolanaTransactionRecord, type SolanaWatchRecord } from "./solana-state";
import { SolanaSweeps } from "./solana-sweeps";

/** One signature's fee, in lamports. */
const SIGNATURE_LAMPORTS = 5_000n;
/** Compute units a payout asks for, for the fee estimate: a token transfer creating the ATA (the dear case), a SOL transfer. */
const TOKEN_UNITS = 40_000n;
const SOL_UNITS = 1_000n;
/** The SPL Token program, which this adapter's transfers go through (its mints are owned by it). */
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
/** Bytes of an SPL token account: its rent-exempt minimum is what creating a recipient's ATA costs. */
const TOKEN_ACCOUNT_BYTES = 165;

/**
 * Solana, live, on `@solana/kit` and the SPL Token program client (`@solana-program/token`):
 * payout legs are SOL transfers or SPL `TransferChecked` from the hot wallet (key 0 of the
 * signer, the fee payer of everything), creating the recipient's associated token account when
 * it is missing (its rent is part of the leg's network fee); every transaction carries a
 * compute-unit limit from a simulation and a priority fee from the node's recent ones, and is
 * made once under its leg id (`solana-sender.ts`). Deposit addresses are keys 1 and up, one per
 * intent; deposits are read per watched account (`solana-deposits.ts`) and swept to the hot
 * wallet (`solana-sweeps.ts`). Everything it keeps is in the engine's storage, in its adapter
 * state (namespace `solana`, laid out by `solana-state.ts`).
 */
export class SolanaChain implements ChainAdapter {
  readonly name: string;
  readonly chains: readonly string[];
  private readonly ctx: SolanaContext;
  private readonly sender: SolanaSender;
  private readonly deposits: SolanaDeposits;
  private readonly sweeps: SolanaSweeps;
  private readonly holdingsReader: SolanaHoldings;
  private readonly assets: AssetRegistry;
  private readonly commitment: "confirmed" | "finalized";
  private readonly reserveLamports: bigint;
  private hot: Promise<string> | null = null;
  private rent: Promise<bigint> | null = null;
  private readonly gate = new ConfigurationGate(() => this.checkMints());
  /** Where the chain's observations go (`observe`): nowhere until an engine asks. */
  private reporter: (observation: ChainObservation) => void = () => undefined;

  constructor(private readonly options: SolanaChainOptions) {
    const assets = options.assets ?? AssetRegistry.withDefaults();
    const chainName = options.chain ?? "solana";
    const chain = assets.chain(chainName);
    if (!chain || chain.family !== "solana") throw new TypeError(`${chainName} is not a Solana chain of the asset registry`);
    if (!/^https?:\/\/\S+$/.test(options.rpcUrl)) throw new TypeError(`${chainName}: rpc_url must be an http(s) URL`);
    const finality = options.finalityConfirmations ?? SOLANA_DEFAULTS.finalityConfirmations;
    if (!Number.isInteger(finality) || finality < 1) throw new TypeError(`${chainName}: finality_confirmations must be a positive integer`);
    const perCall = options.signaturesPerCall ?? 1000;
    if (!Number.isInteger(perCall) || perCall < 1 || perCall > 1000) throw new TypeError(`${chainName}: signaturesPerCall must be an integer from 1 to 1000`);
    const commitment = options.commitment ?? "confirmed";
    if (commitment !== "confirmed" && commitment !== "finalized") throw new TypeError(`${chainName}: commitment must be "confirmed" or "finalized"`);
    const tokens = new Map<string, SolanaToken>();
    for (const [asset, mint] of Object.entries(options.tokens)) {
      const definition = assets.get(asset);
      if (!definition || !definition.chains.includes(chainName)) throw new TypeError(`${chainName}: ${asset} is not an asset of this chain`);
      try {
        toAddress(mint);
      } catch {
        throw new TypeError(`${chainName}: the ${asset} mint is not a Solana address`);
      }
      tokens.set(asset, { mint, decimals: definition.decimals });
    }
    for (const [asset, price] of Object.entries(options.feeRates ?? {})) {
      const definition = assets.get(asset);
      if (!definition) throw new TypeError(`${chainName}: fee rate for unknown asset ${asset}`);
      ratioOfPrice(price, SOLANA_DEFAULTS.gasAsset.decimals, definition.decimals); // refuses a malformed price now
    }
    const sol = assets.get(SOLANA_DEFAULTS.gasAsset.code);
    this.assets = assets;
    this.commitment = commitment;
    this.reserveLamports = options.reserveLamports ?? SOLANA_DEFAULTS.reserveLamports;
    this.name = `solana:${chainName}`;
    this.chains = [chainName];
    const state = options.storage.adapterState(SOLANA_NAMESPACE);
    this.ctx = {
      chain: chainName,
      rpc: new SolanaRpc(options.rpcUrl, options.signaturesPerCall ?? 1000),
      signer: options.signer,
      clock: options.clock ?? new SystemClock(),
      finalityConfirmations: finality,
      tokens,
      nativeAsset: sol && sol.chains.includes(chainName) ? sol.code : null,
      priorityFee: {
        min: options.priorityFee?.min ?? SOLANA_DEFAULTS.priorityFee.min,
        max: options.priorityFee?.max ?? SOLANA_DEFAULTS.priorityFee.max,
      },
      transaction: <T>(fn: (tx: SolanaState) => Promise<T>) => state.transaction((tx) => fn(new SolanaState(tx))),
      hotWallet: () => this.hotWallet(),
      report: (o) => this.reporter(o),
    };
    this.sender = new SolanaSender(this.ctx);
    this.deposits = new SolanaDeposits(this.ctx);
    this.sweeps = new SolanaSweeps(this.ctx, this.sender);
    this.holdingsReader = new SolanaHoldings(this.ctx);
  }

  observe(report: (observation: ChainObservation) => void): void {
    this.reporter = report;
  }

  async describe(): Promise<ChainInfo> {
    return { blockTimeMs: this.options.blockTimeMs ?? SOLANA_DEFAULTS.blockTimeMs, confirmationsToFinality: this.ctx.finalityConfirmations };
  }

  /** One signature, the priority fee at today's price, and for a token the rent of the recipient's new ATA (the dear case). */
  async feeSchedule(_chain: string, asset: string): Promise<FeeSchedule | FeeUnavailable> {
    await this.gate.passed();
    const token = this.ctx.tokens.get(asset);
    if (asset !== this.ctx.nativeAsset && !token) {
      return { unavailable: `no ${asset} mint is configured (tokens.${asset} of ${this.ctx.chain} in PAYRAIL_CHAINS)` };
    }
    const rate = await this.gasRate(asset);
    if (!rate) return { unavailable: noGasPrice(this.ctx.chain, SOLANA_DEFAULTS.gasAsset.code, asset) };
    const price = await this.priorityPrice();
    const units = token ? TOKEN_UNITS : SOL_UNITS;
    let lamports = SIGNATURE_LAMPORTS + divCeil(price * units, 1_000_000n);
    if (token) lamports += await this.ataRent();
    return { fixed: divCeil(lamports * rate.num, rate.den), proportionalPpm: 0n, perTransferCap: null };
  }

  async liquidity(_chain: string, asset: string): Promise<bigint> {
    await this.gate.passed();
    const hot = await this.hotWallet();
    if (asset === this.ctx.nativeAsset) {
      const balance = await this.ctx.rpc.balance(hot, this.commitment);
      return balance > this.reserveLamports ? balance - this.reserveLamports : 0n;
    }
    const token = this.ctx.tokens.get(asset);
    if (!token) return 0n;
    return (await this.ctx.rpc.tokenBalance(await associatedTokenAccount(hot, token.mint), this.commitment)) ?? 0n;
  }

  async broadcast(transfer: OutboundTransfer): Promise<{ txHash: string } | { rejected: string }> {
    await this.gate.passed();
    const record = await this.sendPayout(transfer);
    if (record.status === "rejected") return { rejected: record.reason ?? "refused" };
    return { txHash: record.attempts[0]!.signature };
  }

  async transferStatus(chain: string, txHash: string): Promise<TransferStatus> {
    const record = await this.ctx.transaction((tx) => tx.findTransactionBySignature(txHash));
    return this.statusOf(chain, txHash, record);
  }

  /** Many transfers' statuses: their records in one storage transaction, every attempt's status in one RPC call (256 a call). */
  async transferStatusMany(chain: string, txHashes: readonly string[]): Promise<TransferStatus[]> {
    const records = await this.ctx.transaction(async (tx) => Promise.all(txHashes.map((h) => tx.findTransactionBySignature(h))));
    const signatures = [...new Set(records.flatMap((r) => (r ? r.attempts.map((a) => a.signature) : [])))];
    const statuses = signatures.length > 0 ? await this.ctx.rpc.statuses(signatures) : [];
    const known = new Map(signatures.map((s, i) => [s, statuses[i]!] as const));
    const out: TransferStatus[] = [];
    for (const [i, h] of txHashes.entries()) out.push(await this.statusOf(chain, h, records[i], known));
    return out;
  }

  private async statusOf(
    _chain: string,
    txHash: string,
    record: SolanaTransactionRecord | undefined,
    known?: ReadonlyMap<string, SignatureStatus | null>,
  ): Promise<TransferStatus> {
    if (!record) {
      // not one of ours (or made before this storage): the node's status alone
      const [s] = await this.ctx.rpc.statuses([txHash]);
      if (!s) return { confirmations: 0, finality: "pending", failure: null };
      const final = s.confirmationStatus === "finalized";
      return {
        confirmations: final ? this.ctx.finalityConfirmations : Math.min(s.confirmations ?? 0, this.ctx.finalityConfirmations - 1),
        finality: final ? "final" : "included",
        failure: final && s.err !== null ? "transaction failed" : null,
      };
    }
    const { feeLamports, ...status } = await this.sender.status(record, known);
    if (feeLamports === undefined || status.failure !== null) return status;
    // what the hot wallet paid (fees, and the rent of an ATA it created), in the payout asset
    const rate = await this.gasRate(record.asset).catch(() => null);
    return { ...status, feePaid: rate ? divCeil(feeLamports * rate.num, rate.den) : null };
  }

  async depositAddress(_chain: string, _asset: string, intentId: string): Promise<string> {
    const ctx = this.ctx;
    const known = await ctx.transaction((tx) => tx.getAddress(intentId));
    if (known) return known.address;
    await this.gate.passed(); // a new address only when the mints checked out
    return ctx
      .transaction(async (tx) => {
        const index = await tx.takeAddressIndex(); // locks the counter: a concurrent call for the intent waits here
        const again = await tx.getAddress(intentId);
        if (again) throw new AddressMadeMeanwhile(again.address);
        const owner = await ctx.signer.address(index);
        const watches: SolanaWatchRecord[] = [];
        if (ctx.nativeAsset) watches.push({ account: owner, owner, keyIndex: index, asset: ctx.nativeAsset, until: null });
        for (const [asset, token] of ctx.tokens) {
          watches.push({ account: await associatedTokenAccount(owner, token.mint), owner, keyIndex: index, asset, until: null });
        }
        await tx.insertAddress({ intentId, index, address: owner, created: ctx.clock.now() }, watches);
        return owner;
      })
      .catch((e: unknown) => {
        if (e instanceof AddressMadeMeanwhile) return e.address; // rolled back: the index is not used
        throw e;
      });
  }

  async inboundTransfers(_chain: string, cursor: string | null): Promise<{ transfers: InboundTransfer[]; cursor: string }> {
    await this.gate.passed();
    return this.deposits.read(cursor);
  }

  async sweepDeposits(): Promise<{ pending: boolean }> {
    await this.gate.passed();
    return this.sweeps.run();
  }

  /** What the engine's accounts hold of an asset, read at one slot (`ChainAdapter.holdings`, `solana-holdings.ts`). */
  async holdings(request: HoldingsRequest): Promise<ChainHoldings | null> {
    await this.gate.passed();
    return this.holdingsReader.read(request);
  }

  /**
   * The configuration against the node (`ChainAdapter.checkConfiguration`): each mint exists, is
   * the SPL Token program's, and has its asset's decimals; and gas (SOL) has a price in each
   * payout asset (`fee_rates`, else the venues).
   */
  async checkConfiguration(): Promise<ConfigurationCheck[]> {
    const checks = await this.checkMints();
    const assets = [...(this.ctx.nativeAsset ? [this.ctx.nativeAsset] : []), ...this.ctx.tokens.keys()];
    checks.push(...(await gasPriceChecks(this.ctx.chain, SOLANA_DEFAULTS.gasAsset.code, assets, (asset) => this.gasRate(asset))));
    return checks;
  }

  /** The hot wallet (key 0): the fee payer of every transaction, and the source of payouts. */
  hotWallet(): Promise<string> {
    this.hot ??= this.options.signer.address(0);
    return this.hot;
  }

  private async sendPayout(transfer: OutboundTransfer) {
    const hot = await this.hotWallet();
    const base = {
      transferId: transfer.transferId,
      kind: "payout" as const,
      asset: transfer.asset,
      amount: transfer.amount.toString(),
      to: transfer.to,
      signers: [0],
    };
    if (transfer.asset === this.ctx.nativeAsset) {
      return this.sender.send({
        ...base,
        plan: { type: "sol", from: hot, to: transfer.to, lamports: transfer.amount.toString(), computeUnits: 0, microLamports: "0" },
      });
    }
    const token = this.ctx.tokens.get(transfer.asset);
    const plan: SolanaRequest["plan"] = { type: "sol", from: hot, to: hot, lamports: "0", computeUnits: 0, microLamports: "0" };
    if (!token) return this.sender.refuse({ ...base, plan }, `no ${transfer.asset} mint is configured on ${this.ctx.chain}`);
    const existing = await this.ctx.transaction((tx) => tx.getTransaction(transfer.transferId));
    if (existing) return this.sender.send({ ...base, plan: existing.plan });
    const destination = await associatedTokenAccount(transfer.to, token.mint);
    return this.sender.send({
      ...base,
      plan: {
        type: "token",
        mint: token.mint,
        decimals: token.decimals,
        owner: hot,
        source: await associatedTokenAccount(hot, token.mint),
        destinationOwner: transfer.to,
        destination,
        createDestination: !(await this.ctx.rpc.accountExists(destination, this.commitment)),
        amount: transfer.amount.toString(),
        computeUnits: 0,
        microLamports: "0",
      },
    });
  }

  /** Each mint against its asset, and the hot wallet: what the adapter refuses to work without (`ConfigurationGate`). */
  private async checkMints(): Promise<ConfigurationCheck[]> {
    const hot = await this.hotWallet();
    const checks: ConfigurationCheck[] = [hotWalletCheck(this.ctx.chain, hot, await this.ctx.transaction((tx) => tx.claimHotWallet(hot)))];
    for (const [asset, token] of this.ctx.tokens) {
      const subject = `${this.ctx.chain}.tokens.${asset}`;
      const mint = await this.ctx.rpc.mint(token.mint);
      if (!mint) checks.push({ subject, outcome: "fail", message: `${subject}: no account at ${token.mint} on ${this.ctx.chain}` });
      else if (mint.program !== TOKEN_PROGRAM) {
        const what = mint.program === TOKEN_2022_PROGRAM ? "a Token-2022 mint" : `owned by ${mint.program}, not a mint`;
        checks.push({ subject, outcome: "fail", message: `${subject}: ${token.mint} is ${what}; payouts go through the SPL Token program` });
      } else if (mint.decimals !== token.decimals) {
        checks.push({ subject, outcome: "fail", message: `${subject}: the mint ${token.mint} has ${mint.decimals} decimals, ${asset} has ${token.decimals}` });
      } else checks.push({ subject, outcome: "ok", message: `${subject}: the mint has ${mint.decimals} decimals` });
    }
    return checks;
  }

  /** Base units of `asset` per lamport: 1 for SOL, else a configured rate or the venues'. */
  private async gasRate(asset: string): Promise<Ratio | null> {
    if (asset === this.ctx.nativeAsset) return { num: 1n, den: 1n };
    const definition = this.assets.get(asset);
    if (!definition) return null;
    const configured = this.options.feeRates?.[asset];
    if (configured) return ratioOfPrice(configured, SOLANA_DEFAULTS.gasAsset.decimals, definition.decimals);
    return (await this.options.pricer?.(SOLANA_DEFAULTS.gasAsset.code, asset)) ?? null;
  }

  private async priorityPrice(): Promise<bigint> {
    const hot = await this.hotWallet();
    const recent = (await this.ctx.rpc.recentPriorityFees([hot])).filter((f) => f > 0n).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const price = recent.length > 0 ? recent[Math.floor(recent.length * 0.75)]! : 0n;
    const { min, max } = this.ctx.priorityFee;
    return price < min ? min : price > max ? max : price;
  }

  private ataRent(): Promise<bigint> {
    this.rent ??= this.ctx.rpc.rentExemption(TOKEN_ACCOUNT_BYTES).catch((e: unknown) => {
      this.rent = null;
      throw e;
    });
    return this.rent;
  }
}

/** Another call made the intent's address while this one waited for the counter: roll back, answer theirs. */
class AddressMadeMeanwhile extends Error {
  constructor(readonly address: string) {
    super("made meanwhile");
  }
}
