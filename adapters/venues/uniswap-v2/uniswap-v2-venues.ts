import { createPublicClient, decodeEventLog, encodeFunctionData, getAddress, type PublicClient, type Transport } from "viem";
import {
  divCeil,
  venueOut,
  type Clock,
  type ConfigurationCheck,
  type PoolHop,
  type StorageAdapter,
  type VenueAdapter,
  type VenueExecution,
  type VenueExecutionResult,
  type VenueSnapshot,
} from "../../../src/ports/public";
import type { EvmChain, HotWalletCallOutcome } from "../../chains/evm";
import { SystemClock } from "../../clock/system-clock";
import { ERC20_ABI, FACTORY_ABI, PAIR_ABI, ROUTER_ABI, UNISWAP_V2_FEE_PPM, ZERO_ADDRESS } from "./uniswap-abi";
import { pairKey, routesFor, type Route } from "./uniswap-routes";
import { UNISWAP_V2_NAMESPACE, UniswapState, toResult, type ExecutionRecord, type PlannedLeg, type StoredLeg, type StoredResult } from "./uniswap-state";

export interface UniswapV2VenuesOptions {
  /**
   * The live EVM chain adapter of the chain the pools are on: its hot wallet swaps, with its
   * nonce sequence and its discipline (signed by its signer port, saved before sent).
   */
  chain: EvmChain;
  /** The same node the chain adapter reads, for the adapter's own reads (reserves, allowances). */
  transport: Transport;
  /** The engine's storage: executions are kept in its adapter state (namespace `uniswap-v2`). */
  storage: StorageAdapter;
  router: string;
  factory: string;
  /** Asset code → ERC-20 on the chain; `ETH` is WETH (swaps of ETH use the router's native-ETH functions). */
  tokens: Record<string, string>;
  /** The pairs to use (asset codes); default every pair of `tokens` the factory has a pool for. */
  pairs?: [string, string][];
  /** Prefix of the venue names. Default `uniswap-v2-<chain>`. */
  name?: string;
  /** Seconds a swap transaction stays valid after it is planned (the router's `deadline`). Default 600. */
  deadlineSeconds?: number;
  /** Confirmations a swap needs before its output is reported. Default 1 (included). */
  confirmations?: number;
  /** How long `execute` waits for its transactions before giving up for now (the engine retries). Default 120 s. */
  waitMs?: number;
  /** How often it looks meanwhile. Default 1 s. */
  pollMs?: number;
  clock?: Clock;
}

/** Gas of a router swap: a base and each pool (Router02 on mainnet: ~105k for one pool, ~160k for two). */
const SWAP_GAS_BASE = 50_000n;
const SWAP_GAS_PER_HOP = 60_000n;
/** How long discovered pairs are trusted before the factory is asked again. */
const PAIRS_TTL_MS = 600_000;
const MAX_UINT256 = 2n ** 256n - 1n;

/** An execution that cannot go on yet (a transaction unmined): the engine calls again with the same id. */
export class ExecutionPending extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExecutionPending";
  }
}

/**
 * Uniswap v2 pools on an EVM chain as venues (issue 20). `snapshot` reads the reserves of every
 * pool a pair's routes use in one multicall at a known block and reports each route as what it
 * is: a constant-product pool (0.3 %), or a route of two pools; the core prices them with its
 * own exact formulas, which are the router's `getAmountsOut` to the base unit. `execute` plans
 * the legs (saved before anything is sent), approves the router once per token, and swaps each
 * leg through Router02 from the hot wallet with `amountOutMin` = the core's bound and a
 * deadline, each transaction made once under an id (`EvmChain.sendCall`: signed, saved, sent;
 * a retry re-sends the same bytes), and reports what each swap's receipt says was received.
 */
export class UniswapV2Venues implements VenueAdapter {
  readonly name: string;
  /** The chain the pools are on: swaps take their input and deliver there (`VenueAdapter.chain`). */
  readonly chain: string;
  private readonly client: PublicClient;
  private readonly state: UniswapState;
  private readonly tokens: Map<string, `0x${string}`>;
  private readonly router: `0x${string}`;
  private readonly factory: `0x${string}`;
  private readonly clock: Clock;
  private pairs: { at: number; byKey: Map<string, `0x${string}`> } | null = null;

  constructor(private readonly options: UniswapV2VenuesOptions) {
    const chain = options.chain.chains[0]!;
    this.chain = chain;
    this.name = options.name ?? `uniswap-v2-${chain}`;
    this.client = createPublicClient({ transport: options.transport }) as PublicClient;
    this.state = new UniswapState(options.storage.adapterState(UNISWAP_V2_NAMESPACE), chain);
    const address = (what: string, a: string) => {
      if (!/^0x[0-9a-fA-F]{40}$/.test(a)) throw new TypeError(`${this.name}: ${what} is not an EVM address`);
      return getAddress(a.toLowerCase());
    };
    this.router = address("router", options.router);
    this.factory = address("factory", options.factory);
    this.tokens = new Map(Object.entries(options.tokens).map(([asset, a]) => [asset, address(`the ${asset} token`, a)]));
    for (const [a, b] of options.pairs ?? []) {
      if (!this.tokens.has(a) || !this.tokens.has(b) || a === b) throw new TypeError(`${this.name}: pair ${a}/${b} needs two configured tokens`);
    }
    this.clock = options.clock ?? new SystemClock();
  }

  async snapshot(from: string, to: string): Promise<VenueSnapshot[]> {
    const routes = await this.routes(from, to);
    if (routes.length === 0) return [];
    const read = await this.read(routes, to);
    const snapshots: VenueSnapshot[] = [];
    for (const route of routes) {
      const networkCost = this.gasInOutput(read, route, to);
      if (networkCost === null) continue; // gas cannot be priced in `to`: not offered this way
      const hops = read.hops(route);
      snapshots.push(
        hops.length === 1 ? { kind: "pool", venue: route.venue, ...hops[0]!, networkCost } : { kind: "route", venue: route.venue, hops, networkCost },
      );
    }
    return snapshots;
  }

  async execute(request: VenueExecution): Promise<VenueExecutionResult> {
    let record = await this.state.get(request.executionId);
    if (!record) record = await this.state.insert(await this.plan(request));
    if (record.result) return toResult(record.result);
    const plan = record.plan!;
    this.hotAddress ??= (await this.options.chain.hotWallet()) as `0x${string}`;
    await this.approve(record);
    const outcomes: (HotWalletCallOutcome | { status: "refused"; reason: string })[] = [];
    for (const leg of plan.legs) {
      const sent = await this.options.chain.sendCall(this.swapCall(record, leg, BigInt(plan.deadline)));
      outcomes.push("rejected" in sent ? { status: "refused", reason: sent.rejected } : { status: "pending" });
    }
    const result = await this.follow(record, outcomes);
    return toResult(await this.state.settle(record.executionId, result));
  }

  /**
   * The deployment against the chain (`VenueAdapter.checkConfiguration`): a contract at the
   * router and the factory, and WETH (the pools' ETH) an ERC-20 of 18 decimals (the chain's own
   * tokens are the chain adapter's to check).
   */
  async checkConfiguration(): Promise<ConfigurationCheck[]> {
    const where = `PAYRAIL_VENUES.uniswap_v2.${this.chain}`;
    const checks: ConfigurationCheck[] = [];
    for (const [field, at] of [
      ["router", this.router],
      ["factory", this.factory],
    ] as const) {
      const code = await this.client.getCode({ address: at });
      checks.push(
        code && code !== "0x"
          ? { subject: `${where}.${field}`, outcome: "ok", message: `${where}.${field}: a contract at ${at}` }
          : { subject: `${where}.${field}`, outcome: "fail", message: `${where}.${field}: no contract at ${at} on ${this.chain}` },
      );
    }
    const weth = this.tokens.get("ETH");
    if (weth) checks.push(...(await this.options.chain.checkToken(`${where}.weth`, "ETH", weth)));
    return checks;
  }

  /** The routes of a pair over the pools that exist. */
  private async routes(from: string, to: string): Promise<Route[]> {
    const pairs = await this.pairMap();
    return routesFor(this.name, [...this.tokens.keys()], from, to, (a, b) => pairs.has(pairKey(a, b)));
  }

  /** Pair addresses by `pairKey`: the configured pairs or every pair of tokens, asked of the factory in one multicall. */
  private async pairMap(): Promise<Map<string, `0x${string}`>> {
    const now = this.clock.now();
    if (this.pairs && now - this.pairs.at < PAIRS_TTL_MS) return this.pairs.byKey;
    const assets = [...this.tokens.keys()].sort();
    const wanted: [string, string][] = this.options.pairs ?? assets.flatMap((a, i) => assets.slice(i + 1).map((b): [string, string] => [a, b]));
    const answers = await this.client.multicall({
      contracts: wanted.map(
        ([a, b]) => ({ address: this.factory, abi: FACTORY_ABI, functionName: "getPair", args: [this.tokens.get(a)!, this.tokens.get(b)!] }) as const,
      ),
      allowFailure: false,
      deployless: true,
    });
    const byKey = new Map<string, `0x${string}`>();
    wanted.forEach(([a, b], i) => {
      const pair = answers[i] as `0x${string}`;
      if (pair.toLowerCase() !== ZERO_ADDRESS) byKey.set(pairKey(a, b), getAddress(pair));
    });
    this.pairs = { at: now, byKey };
    return byKey;
  }

  /**
   * One read at one block: the reserves of every pool the routes use, and of the ETH/`to` pool
   * (to price gas in `to`), in one multicall pinned to the block whose base fee prices the gas.
   */
  private async read(routes: Route[], to: string) {
    const pairs = await this.pairMap();
    const keys = new Set<string>();
    for (const route of routes) for (let i = 1; i < route.path.length; i++) keys.add(pairKey(route.path[i - 1]!, route.path[i]!));
    if (to !== "ETH" && pairs.has(pairKey("ETH", to))) keys.add(pairKey("ETH", to));
    const list = [...keys];
    const block = await this.client.getBlock({ blockTag: "latest" });
    const [reserves, tip] = await Promise.all([
      this.client.multicall({
        contracts: list.map((k) => ({ address: pairs.get(k)!, abi: PAIR_ABI, functionName: "getReserves" }) as const),
        allowFailure: false,
        deployless: true,
        blockNumber: block.number,
      }),
      this.client.estimateMaxPriorityFeePerGas().catch(() => 0n),
    ]);
    const byKey = new Map(list.map((k, i) => [k, reserves[i] as readonly [bigint, bigint, number]]));
    /** The reserves of the a/b pool, `a`'s first (token0 is the lower address). */
    const oriented = (a: string, b: string): [bigint, bigint] => {
      const [r0, r1] = byKey.get(pairKey(a, b))!;
      return BigInt(this.tokens.get(a)!) < BigInt(this.tokens.get(b)!) ? [r0, r1] : [r1, r0];
    };
    return {
      block: block.number,
      gasPrice: (block.baseFeePerGas ?? 0n) + tip,
      hops: (route: Route): PoolHop[] =>
        route.path.slice(1).map((b, i) => {
          const [reserveIn, reserveOut] = oriented(route.path[i]!, b);
          return { reserveIn, reserveOut, feePpm: UNISWAP_V2_FEE_PPM };
        }),
      ethIn: (asset: string): [bigint, bigint] | null => (byKey.has(pairKey("ETH", asset)) ? oriented("ETH", asset) : null),
    };
  }

  /**
   * A route's gas at the block's fees, in base units of `to`, rounded up: wei for ETH, else at
   * the ETH/`to` pool's price (null when there is none: the route is not offered that way).
   */
  private gasInOutput(read: Awaited<ReturnType<UniswapV2Venues["read"]>>, route: Route, to: string): bigint | null {
    const wei = (SWAP_GAS_BASE + SWAP_GAS_PER_HOP * BigInt(route.path.length - 1)) * read.gasPrice;
    if (to === "ETH") return wei;
    const pool = read.ethIn(to);
    if (!pool) return null;
    return divCeil(wei * pool[1], pool[0]);
  }

  /**
   * The plan of a new execution, or its refusal: every leg's venue is one of the pair's routes,
   * the pools pay each leg at least its minimum now, and the hot wallet holds the input.
   */
  private async plan(request: VenueExecution): Promise<ExecutionRecord> {
    const base = { executionId: request.executionId, from: request.from, to: request.to, created: this.clock.now() };
    const refuse = (reason: string): ExecutionRecord => ({ ...base, plan: null, result: { status: "rejected", reason } });
    const routes = new Map((await this.routes(request.from, request.to)).map((r) => [r.venue, r]));
    for (const leg of request.legs) if (!routes.has(leg.venue)) return refuse(`venue ${leg.venue} does not trade ${request.from} for ${request.to}`);
    const now = new Map((await this.snapshot(request.from, request.to)).map((s) => [s.venue, s]));
    for (const leg of request.legs) {
      const snapshot = now.get(leg.venue);
      if (!snapshot || venueOut(snapshot, leg.amountIn) < leg.minAmountOut) return refuse(`price moved at ${leg.venue}`);
    }
    const total = request.legs.reduce((sum, leg) => sum + leg.amountIn, 0n);
    const hot = await this.options.chain.hotWallet();
    const held =
      request.from === "ETH"
        ? await this.client.getBalance({ address: hot as `0x${string}` })
        : await this.client.readContract({ address: this.tokens.get(request.from)!, abi: ERC20_ABI, functionName: "balanceOf", args: [hot as `0x${string}`] });
    if (held < total) return refuse(`the hot wallet holds less ${request.from} than the swap sells`);
    const block = await this.client.getBlock({ blockTag: "latest" });
    const deadline = block.timestamp + BigInt(this.options.deadlineSeconds ?? 600);
    const legs: PlannedLeg[] = request.legs.map((leg, i) => ({
      venue: leg.venue,
      path: routes.get(leg.venue)!.path,
      amountIn: leg.amountIn.toString(),
      minAmountOut: leg.minAmountOut.toString(),
      call: `uniswap-v2:${request.executionId}:${i}`,
    }));
    return { ...base, plan: { legs, deadline: deadline.toString() }, result: null };
  }

  /** Lets the router spend the input token (once per token: an unlimited allowance), mined before any swap is signed. */
  private async approve(record: ExecutionRecord): Promise<void> {
    if (record.from === "ETH") return;
    const token = this.tokens.get(record.from)!;
    const hot = (await this.options.chain.hotWallet()) as `0x${string}`;
    const total = record.plan!.legs.reduce((sum, leg) => sum + BigInt(leg.amountIn), 0n);
    const allowance = await this.client.readContract({ address: token, abi: ERC20_ABI, functionName: "allowance", args: [hot, this.router] });
    if (allowance >= total) return;
    const id = `uniswap-v2:approve:${record.executionId}`;
    const data = encodeFunctionData({ abi: ERC20_ABI, functionName: "approve", args: [this.router, MAX_UINT256] });
    const sent = await this.options.chain.sendCall({ id, kind: "approve", to: token, data, value: 0n, asset: record.from, amount: 0n });
    if ("rejected" in sent) throw new Error(`approving the router for ${record.from} was refused: ${sent.rejected}`);
    const outcome = await this.waitFor(id, 1);
    if (outcome.status !== "mined" || !outcome.success) throw new Error(`approving the router for ${record.from} failed`);
  }

  /** The router call of a leg, the same bytes every time (the plan fixes every argument). */
  private swapCall(record: ExecutionRecord, leg: PlannedLeg, deadline: bigint) {
    const path = leg.path.map((asset) => this.tokens.get(asset)!);
    const amountIn = BigInt(leg.amountIn);
    const min = BigInt(leg.minAmountOut);
    const to = this.hotAddress!;
    const data =
      record.from === "ETH"
        ? encodeFunctionData({ abi: ROUTER_ABI, functionName: "swapExactETHForTokens", args: [min, path, to, deadline] })
        : record.to === "ETH"
          ? encodeFunctionData({ abi: ROUTER_ABI, functionName: "swapExactTokensForETH", args: [amountIn, min, path, to, deadline] })
          : encodeFunctionData({ abi: ROUTER_ABI, functionName: "swapExactTokensForTokens", args: [amountIn, min, path, to, deadline] });
    return { id: leg.call, kind: "swap", to: this.router, data, value: record.from === "ETH" ? amountIn : 0n, asset: record.from, amount: amountIn };
  }

  private hotAddress: `0x${string}` | null = null;

  /** Waits for every sent leg's receipt; the result from the receipts, or a refusal naming why. */
  private async follow(record: ExecutionRecord, sent: { status: string; reason?: string }[]): Promise<StoredResult> {
    const plan = record.plan!;
    const refused = sent.findIndex((s) => s.status === "refused");
    const legs: StoredLeg[] = [];
    let gasCost = 0n;
    let failure: string | null = refused >= 0 ? `${plan.legs[refused]!.venue} refused the swap: ${sent[refused]!.reason}` : null;
    for (let i = 0; i < plan.legs.length; i++) {
      if (sent[i]!.status === "refused") continue;
      const leg = plan.legs[i]!;
      const outcome = await this.waitFor(leg.call, this.options.confirmations ?? 1);
      if (outcome.status !== "mined") {
        failure ??= `the swap at ${leg.venue} was ${outcome.status === "dropped" ? "dropped" : "refused"}`;
        continue;
      }
      gasCost += outcome.gasCost;
      if (!outcome.success) {
        failure ??= `price moved at ${leg.venue}: the swap reverted`;
        continue;
      }
      legs.push({
        venue: leg.venue,
        amountIn: leg.amountIn,
        amountOut: (await this.received(leg, outcome.logs)).toString(),
        txHash: outcome.txHash,
        block: outcome.block,
        path: leg.path,
      });
    }
    // Legs swapped before another failed stay with the platform (VenueSet: the customer's side never moves).
    if (failure) return { status: "rejected", reason: failure };
    return { status: "executed", legs, gasCost: gasCost.toString() };
  }

  /** What a swap delivered: the `Swap` event of its last pool, in the side that is the leg's output. */
  private async received(leg: PlannedLeg, logs: { address: string; topics: string[]; data: string }[]): Promise<bigint> {
    const [a, b] = leg.path.slice(-2) as [string, string];
    const pair = (await this.pairMap()).get(pairKey(a, b))!;
    const outIsToken0 = BigInt(this.tokens.get(b)!) < BigInt(this.tokens.get(a)!);
    for (const log of logs) {
      if (log.address.toLowerCase() !== pair.toLowerCase()) continue;
      try {
        const event = decodeEventLog({ abi: PAIR_ABI, eventName: "Swap", topics: log.topics as [`0x${string}`], data: log.data as `0x${string}` });
        const args = event.args as { amount0Out: bigint; amount1Out: bigint };
        return outIsToken0 ? args.amount0Out : args.amount1Out;
      } catch {
        // another event of the pair (Sync, Transfer)
      }
    }
    throw new Error(`the receipt of ${leg.call} has no Swap event of its last pool`);
  }

  /** Polls a transaction until it is mined with `confirmations`, refused or dropped; throws `ExecutionPending` after `waitMs`. */
  private async waitFor(id: string, confirmations: number): Promise<HotWalletCallOutcome> {
    const until = Date.now() + (this.options.waitMs ?? 120_000);
    for (;;) {
      const outcome = await this.options.chain.callOutcome(id);
      if (outcome.status === "refused" || outcome.status === "dropped") return outcome;
      if (outcome.status === "mined" && (outcome.confirmations >= confirmations || !outcome.success)) return outcome;
      if (Date.now() >= until) throw new ExecutionPending(`${this.name}: transaction ${id} is not mined yet`);
      await new Promise((resolve) => setTimeout(resolve, this.options.pollMs ?? 1_000));
    }
  }
}
