import { encodeFunctionData, getAddress, http, parseTransaction } from "viem";
import { inspect } from "node:util";
import { beforeEach, describe, expect, it } from "vitest";
import { EvmChain, MnemonicSigner, parseChainsConfig } from "../../../../adapters/chains/evm";
import { EVM_NAMESPACE, EvmState } from "../../../../adapters/chains/evm/evm-state";
import type { ChainObservation, StorageAdapter } from "../../../../src/ports";
import { MemoryStorage } from "../../../../adapters/memory";
import { ManualClock } from "../../../../adapters/clock";
import { SimulatedVenues } from "../../../../adapters/venues/simulated";
import { stepMachine } from "../../../../src/engine/machine-step";
import { AssetRegistry } from "../../../../src/money/assets";
import { legMachine } from "../../../../src/resources/payouts/leg-machine";
import { venueGasPricer } from "../../../../src/quoting/gas-pricer";
import { TEST_MNEMONIC } from "../../../support/evm/evm-node";
import { evmChainOn, evmWorld, randomAddress, type EvmWorld } from "../../../support/evm/evm-harness";
import { testTokenArtifact } from "../../../support/evm/evm-node";

/** What the adapter keeps, read through its own state module (the adapter-state seam, namespace `evm`). */
const evmState = <T>(storage: StorageAdapter, fn: (tx: EvmState) => Promise<T>) =>
  storage.adapterState(EVM_NAMESPACE).transaction((tx) => fn(new EvmState(tx)));

const encodeSetReverting = () => encodeFunctionData({ abi: testTokenArtifact().abi, functionName: "setReverting", args: [true] } as never);

/** The EVM adapter's own behaviours beyond the chain suite, on hardhat in process. */
describe("the EVM chain adapter", () => {
  let w: EvmWorld;
  beforeEach(async () => {
    w = await evmWorld();
    await w.restore();
  });

  it("replaces a transaction stuck past replaceAfterMs with higher fees on the same nonce, and the replacement carries the leg", async () => {
    const { adapter, clock, storage } = evmChainOn(w, { replaceAfterMs: 60_000 });
    const seen: ChainObservation[] = [];
    adapter.observe((o) => seen.push(o));
    await w.node.setAutomine(false);
    const to = randomAddress();
    const sent = await adapter.broadcast({ transferId: "leg_stuck", chain: "base", asset: "USDC", amount: 7n, to });
    if (!("txHash" in sent)) throw new Error(sent.rejected);
    expect(await adapter.transferStatus("base", sent.txHash)).toMatchObject({ finality: "pending", failure: null });
    clock.advance(61_000);
    expect(await adapter.transferStatus("base", sent.txHash)).toMatchObject({ finality: "pending" });
    const record = (await evmState(storage, (tx) => tx.getTransaction("base", "leg_stuck")))!;
    expect(record.attempts).toHaveLength(2);
    const [first, second] = record.attempts.map((a) => parseTransaction(a.raw as `0x${string}`));
    expect(second!.nonce).toBe(first!.nonce);
    expect(second!.maxFeePerGas! * 100n).toBeGreaterThanOrEqual(first!.maxFeePerGas! * 110n);
    expect(second!.maxPriorityFeePerGas! * 100n).toBeGreaterThanOrEqual(first!.maxPriorityFeePerGas! * 110n);
    // reported for the metrics (payrail_chain_transactions_rescued_total)
    expect(seen).toEqual([{ type: "transaction_rescued", chain: "base", action: "replaced" }]);
    await w.node.mine(3);
    const status = await adapter.transferStatus("base", sent.txHash);
    expect(status).toMatchObject({ finality: "final", failure: null, txHash: record.attempts[1]!.txHash });
    expect(await w.node.tokenBalance(w.token, to)).toBe(7n);
    // the leg follows the transaction that carries it
    const leg = stepMachine(
      legMachine,
      { value: "broadcast", context: { txHash: sent.txHash, confirmations: 0, finality: "pending", failureCode: null } },
      { type: "status", ...status },
    );
    expect(leg.value).toBe("confirmed");
    expect(leg.context.txHash).toBe(record.attempts[1]!.txHash);
  });

  it("fails a transaction whose nonce another transaction took (dropped), and a mined revert only once final", async () => {
    const { adapter, storage } = evmChainOn(w);
    const seen: ChainObservation[] = [];
    adapter.observe((o) => seen.push(o));
    await w.node.setAutomine(false);
    const sent = await adapter.broadcast({ transferId: "leg_dropped", chain: "base", asset: "USDC", amount: 5n, to: randomAddress() });
    if (!("txHash" in sent)) throw new Error(sent.rejected);
    await w.node.provider.request({ method: "hardhat_dropTransaction", params: [sent.txHash] });
    // the operator's own transaction from the hot wallet takes the nonce
    const record = (await evmState(storage, (tx) => tx.getTransaction("base", "leg_dropped")))!;
    await w.node.provider.request({ method: "hardhat_impersonateAccount", params: [w.hot] });
    await w.node.provider.request({
      method: "eth_sendTransaction",
      params: [{ from: w.hot, to: w.hot, value: "0x0", nonce: `0x${record.nonce!.toString(16)}` }],
    });
    await w.node.mine(1);
    expect(await adapter.transferStatus("base", sent.txHash)).toMatchObject({ failure: "dropped: the nonce was used by another transaction" });
    expect(seen).toEqual([{ type: "transaction_rescued", chain: "base", action: "dropped" }]);

    // the estimate passes, then the token refuses at execution: mined reverted, a failure once final
    const second = await adapter.broadcast({ transferId: "leg_reverted", chain: "base", asset: "USDC", amount: 5n, to: randomAddress() });
    if (!("txHash" in second)) throw new Error(second.rejected);
    // setReverting(true) with a far higher tip: mined before our transfer in the same block
    await w.node.provider.request({
      method: "eth_sendTransaction",
      params: [{ from: await w.node.account(0), to: w.token, data: encodeSetReverting(), maxPriorityFeePerGas: "0x174876e800", maxFeePerGas: "0x2540be4000" }],
    });
    await w.node.mine(1);
    expect(await adapter.transferStatus("base", second.txHash)).toMatchObject({ finality: "included", failure: null });
    await w.node.mine(2);
    expect(await adapter.transferStatus("base", second.txHash)).toMatchObject({ finality: "final", failure: "transaction reverted" });
  });

  it("heals its nonces after a reorganisation deeper than finality: a final transfer is sent again, a failed one's nonce gets a no-op", async () => {
    const { adapter, storage } = evmChainOn(w);
    const snapshot = await w.node.snapshot();
    const toA = randomAddress();
    const a = await adapter.broadcast({ transferId: "leg_deep_a", chain: "base", asset: "USDC", amount: 11n, to: toA });
    if (!("txHash" in a)) throw new Error(a.rejected);
    // a second transfer mined reverted (the token refuses after the estimate), failing its leg
    await w.node.setAutomine(false);
    const toB = randomAddress();
    const b = await adapter.broadcast({ transferId: "leg_deep_b", chain: "base", asset: "USDC", amount: 12n, to: toB });
    if (!("txHash" in b)) throw new Error(b.rejected);
    await w.node.provider.request({
      method: "eth_sendTransaction",
      params: [{ from: await w.node.account(0), to: w.token, data: encodeSetReverting(), maxPriorityFeePerGas: "0x174876e800", maxFeePerGas: "0x2540be4000" }],
    });
    await w.node.mine(4);
    expect(await adapter.transferStatus("base", a.txHash)).toMatchObject({ finality: "final", failure: null });
    expect(await adapter.transferStatus("base", b.txHash)).toMatchObject({ finality: "final", failure: "transaction reverted" });
    // a branch without any of it
    await w.node.revert(snapshot);
    await w.node.setAutomine(true);
    await w.node.mine(6);
    expect(await w.node.tokenBalance(w.token, toA)).toBe(0n);
    // the next send first heals: A again (the engine booked it), a no-op on B's nonce, then C
    const toC = randomAddress();
    const c = await adapter.broadcast({ transferId: "leg_deep_c", chain: "base", asset: "USDC", amount: 13n, to: toC });
    if (!("txHash" in c)) throw new Error(c.rejected);
    await w.node.mine(3);
    expect(await w.node.tokenBalance(w.token, toA)).toBe(11n);
    expect(await w.node.tokenBalance(w.token, toB)).toBe(0n);
    expect(await w.node.tokenBalance(w.token, toC)).toBe(13n);
    expect(await adapter.transferStatus("base", c.txHash)).toMatchObject({ finality: "final", failure: null });
    const gap = await evmState(storage, async (tx) => (await tx.listTransactionsFrom("base", w.hot, 0)).filter((r) => r.kind === "gap"));
    expect(gap).toHaveLength(1);
  });

  it("refuses what it cannot send, remembering the refusal: an unconfigured asset, a reverting token", async () => {
    const { adapter } = evmChainOn(w);
    const eurc = { transferId: "leg_eurc", chain: "base", asset: "EURC", amount: 1n, to: randomAddress() };
    expect(await adapter.broadcast(eurc)).toEqual({ rejected: "no EURC token is configured on base" });
    expect(await adapter.broadcast(eurc)).toEqual({ rejected: "no EURC token is configured on base" });
    expect(await adapter.feeSchedule("base", "EURC")).toEqual({ unavailable: "no EURC token is configured (tokens.EURC of base in PAYRAIL_CHAINS)" });
    await w.node.tokenCall(w.token, "setReverting", [true]);
    const usdc = { transferId: "leg_refused", chain: "base", asset: "USDC", amount: 1n, to: randomAddress() };
    const refused = await adapter.broadcast(usdc);
    expect(refused).toHaveProperty("rejected");
    expect((refused as { rejected: string }).rejected).toMatch(/revert/i);
    await w.node.tokenCall(w.token, "setReverting", [false]);
    expect(await adapter.broadcast(usdc)).toEqual(refused); // the first answer, not a send
  });

  it("pays out and receives the native asset: value transfers, deposits seen in blocks, swept without a top-up", async () => {
    const { adapter } = evmChainOn(w);
    const to = randomAddress();
    const sent = await adapter.broadcast({ transferId: "leg_eth", chain: "base", asset: "ETH", amount: 10n ** 15n, to });
    expect(sent).toHaveProperty("txHash");
    await w.node.mine(3);
    const hash = (sent as { txHash: string }).txHash;
    const receipt = await w.node.provider.request({ method: "eth_getTransactionReceipt", params: [hash] });
    // what the hot wallet paid for gas, reported in the payout asset (here the gas asset itself)
    expect(await adapter.transferStatus("base", hash)).toMatchObject({
      finality: "final",
      feePaid: BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice),
    });
    expect(await w.node.balance(to)).toBe(10n ** 15n);

    const address = await adapter.depositAddress("base", "ETH", "pi_eth");
    const first = await adapter.inboundTransfers("base", null);
    await w.node.send({ from: await w.node.account(2), to: address, value: 3n * 10n ** 16n });
    await w.node.mine(3);
    const { transfers } = await adapter.inboundTransfers("base", first.cursor);
    expect(transfers).toEqual([expect.objectContaining({ asset: "ETH", address, amount: 3n * 10n ** 16n, finality: "final", confirmations: 4 })]);
    const hotBefore = await w.node.balance(w.hot);
    for (let i = 0; i < 8 && (await adapter.sweepDeposits()).pending; i++) await w.node.mine(1);
    const left = await w.node.balance(address);
    const gained = (await w.node.balance(w.hot)) - hotBefore;
    expect(left).toBeLessThan(10n ** 15n); // only gas dust stays behind
    expect(gained + left).toBeLessThan(3n * 10n ** 16n); // the sweep paid its own gas: nothing from the hot wallet
    expect(gained).toBeGreaterThan(3n * 10n ** 16n - 10n ** 15n);
  });

  it("states a leg's network fee as estimated gas at current fees, at the configured rate or the venues' price", async () => {
    const { adapter } = evmChainOn(w);
    const schedule = async (on: EvmChain, asset: string) => {
      const answer = await on.feeSchedule("base", asset);
      if ("unavailable" in answer) throw new Error(answer.unavailable);
      return answer;
    };
    const eth = await schedule(adapter, "ETH");
    expect(eth.fixed).toBeGreaterThan(0n);
    expect(eth.fixed % 21_000n).toBe(0n); // 21,000 gas at a price in wei
    const usdc = await schedule(adapter, "USDC");
    // configured: 1 ETH = 3000 USDC; a token transfer costs more gas than a value transfer
    expect(usdc.fixed).toBeGreaterThan((eth.fixed * 3000n * 10n ** 6n) / 10n ** 18n);
    const clock = new ManualClock(Date.now());
    const viaVenues = new EvmChain({
      chain: "base",
      transport: w.node.transport,
      storage: new MemoryStorage(),
      signer: w.signer,
      clock,
      tokens: { USDC: w.token },
      pricer: venueGasPricer([new SimulatedVenues({ clock })]),
      chainId: 31337,
    });
    expect((await schedule(viaVenues, "USDC")).fixed).toBeGreaterThan(0n);
    const unpriced = new EvmChain({
      chain: "base",
      transport: w.node.transport,
      storage: new MemoryStorage(),
      signer: w.signer,
      tokens: { USDC: w.token },
      chainId: 31337,
    });
    // no rate, no venues: no candidate, and the payout's refusal can say which setting is missing
    expect(await unpriced.feeSchedule("base", "USDC")).toEqual({
      unavailable: "no price for base's gas (ETH) in USDC: set fee_rates.USDC of base in PAYRAIL_CHAINS, or a live venue trading ETH/USDC (PAYRAIL_VENUES)",
    });
  });

  it("derives deposit addresses from index 1 upward, one per intent and chain, never reused", async () => {
    const { adapter, storage } = evmChainOn(w);
    const signer = new MnemonicSigner(TEST_MNEMONIC);
    const a = await adapter.depositAddress("base", "USDC", "pi_a");
    const b = await adapter.depositAddress("base", "ETH", "pi_b");
    expect(a).toBe(await signer.address(1));
    expect(b).toBe(await signer.address(2));
    expect(await adapter.depositAddress("base", "USDC", "pi_a")).toBe(a);
    const polygon = new EvmChain({ chain: "polygon", transport: w.node.transport, storage, signer, tokens: {}, chainId: 31337 });
    expect(await polygon.depositAddress("polygon", "USDC", "pi_a")).toBe(await signer.address(3));
  });
});

describe("the EVM adapter checks its configuration against the node", () => {
  let w: EvmWorld;
  beforeEach(async () => {
    w = await evmWorld();
    await w.restore();
  });
  const on = (options: { tokens: Record<string, string>; chainId?: number; feeRates?: Record<string, string> }) =>
    new EvmChain({ chain: "base", transport: w.node.transport, storage: new MemoryStorage(), signer: w.signer, ...options });

  it("passes a matching chain id and token, and warns of what it cannot price gas in", async () => {
    const checks = await on({ tokens: { USDC: w.token }, chainId: 31337 }).checkConfiguration();
    expect(checks.map((c) => [c.outcome, c.message])).toEqual([
      ["ok", "base: chain id 31337"],
      ["ok", "base.tokens.USDC: decimals() is 6"],
      ["ok", "base.tokens.USDC: symbol() is USDC"],
      ["ok", `base: hot wallet ${w.hot}`],
      ["ok", "base: gas is priced in ETH"],
      [
        "warning",
        "no price for base's gas (ETH) in USDC: set fee_rates.USDC of base in PAYRAIL_CHAINS, or a live venue trading ETH/USDC (PAYRAIL_VENUES); live USDC payouts on base are refused until then",
      ],
    ]);
  });

  it("fails a token whose decimals() is not its asset's, and then prices, sends and credits nothing", async () => {
    // a contract of 18 decimals configured for a 6-decimal asset: quotes were 10^12 times what the pool pays
    const wrong = getAddress(await w.node.deployToken("USDC", 18));
    await w.node.mint(wrong, w.hot, 10n ** 24n);
    const adapter = on({ tokens: { USDC: wrong }, chainId: 31337, feeRates: { USDC: "3000" } });
    const failed = (await adapter.checkConfiguration()).filter((c) => c.outcome === "fail");
    expect(failed.map((c) => c.message)).toEqual([`base.tokens.USDC: decimals() of ${wrong} is 18, USDC has 6`]);
    const to = randomAddress();
    for (const call of [
      () => adapter.feeSchedule("base", "USDC"),
      () => adapter.liquidity("base", "USDC"),
      () => adapter.broadcast({ transferId: "leg_wrong_decimals", chain: "base", asset: "USDC", amount: 1_000_000n, to }),
      () => adapter.depositAddress("base", "USDC", "pi_wrong_decimals"),
      () => adapter.inboundTransfers("base", null),
    ]) {
      await expect(call()).rejects.toThrow(`base.tokens.USDC: decimals() of ${wrong} is 18, USDC has 6`);
    }
    expect(await w.node.tokenBalance(wrong, to)).toBe(0n);
  });

  it("fails a node of another chain, a token address without a contract, and warns of a symbol that names another asset", async () => {
    const euro = getAddress(await w.node.deployToken("EURO", 6));
    const checks = await on({ tokens: { USDC: euro, EURC: "0x00000000000000000000000000000000000000e5" } }).checkConfiguration();
    expect(checks.filter((c) => c.outcome !== "ok").map((c) => [c.outcome, c.message])).toEqual([
      ["fail", "base: the node serves chain id 31337, base is 8453 (set chain_id to use another network)"],
      ["warning", `base.tokens.USDC: symbol() of ${euro} is "EURO", not USDC (a bridged token, or the wrong contract?)`],
      ["fail", "base.tokens.EURC: no contract at 0x00000000000000000000000000000000000000E5 on base"],
      expect.arrayContaining(["warning"]),
      expect.arrayContaining(["warning"]),
    ]);
    expect((await on({ tokens: {}, chainId: 1 }).checkConfiguration())[0]!.message).toBe("base: the node serves chain id 31337, chain_id is 1");
  });

  it("fails a signer whose hot wallet is not the one its storage was used with (another mnemonic, valid but not the one)", async () => {
    const storage = new MemoryStorage();
    const first = new EvmChain({ chain: "base", transport: w.node.transport, storage, signer: w.signer, tokens: {}, chainId: 31337 });
    expect((await first.checkConfiguration()).find((c) => c.subject === "base: hot wallet")).toMatchObject({ outcome: "ok" });
    const other = new MnemonicSigner("legal winner thank year wave sausage worth useful legal winner thank yellow");
    const second = new EvmChain({ chain: "base", transport: w.node.transport, storage, signer: other, tokens: {}, chainId: 31337 });
    const wallet = (await second.checkConfiguration()).find((c) => c.subject === "base: hot wallet");
    expect(wallet).toMatchObject({ outcome: "fail" });
    expect(wallet!.message).toBe(
      `base: the signer's hot wallet is ${await other.address(0)}, but this storage's is ${w.hot} (another mnemonic, or a mistyped one that is still valid?)`,
    );
    await expect(second.depositAddress("base", "USDC", "pi_other_wallet")).rejects.toThrow("the signer's hot wallet is");
  });
});

describe("errors of an unreachable node", () => {
  it("name the call, never the RPC URL (it often carries a provider's key)", async () => {
    const storage = new MemoryStorage();
    const adapter = new EvmChain({
      chain: "base",
      transport: http("http://127.0.0.1:9/v2/provider-key-s3cr3t", { retryCount: 0, timeout: 2_000 }),
      storage,
      signer: new MnemonicSigner(TEST_MNEMONIC),
      tokens: {},
    });
    const thrown = await adapter.inboundTransfers("base", null).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(thrown?.message).toMatch(/^eth_chainId: /); // the first call: the node's chain id, checked before anything is read
    expect(`${thrown?.message} ${String(thrown?.stack)} ${JSON.stringify(thrown)}`).not.toContain("s3cr3t");
    expect((thrown as Error & { cause?: unknown }).cause).toBeUndefined();
  });
});

describe("the mnemonic signer", () => {
  it("derives m/44'/60'/0'/0/i and never shows the mnemonic", async () => {
    const signer = new MnemonicSigner(TEST_MNEMONIC);
    expect(await signer.address(0)).toBe("0x9858EfFD232B4033E47d90003D41EC34EcaEda94"); // the BIP-44 vector of this mnemonic
    for (const shown of [String(signer), JSON.stringify({ signer }), inspect(signer)]) {
      expect(shown).not.toContain("abandon");
    }
    // a bad checksum and a misspelt word are refused (test/adapters/chains/mnemonic.test.ts has both families)
    expect(() => new MnemonicSigner(TEST_MNEMONIC.replace(/about$/, "abandon"))).toThrow("fails its BIP-39 checksum");
  });
});

describe("PAYRAIL_CHAINS", () => {
  const assets = AssetRegistry.withDefaults();
  it("reads chains, tokens and settings, and refuses mistakes by name", () => {
    expect(
      parseChainsConfig(
        '{"base": {"rpc_url": "http://127.0.0.1:8545", "finality_confirmations": 2, "tokens": {"USDC": "0x0000000000000000000000000000000000000001"}}}',
        assets,
      ),
    ).toEqual({
      base: { rpc_url: "http://127.0.0.1:8545", finality_confirmations: 2, tokens: { USDC: "0x0000000000000000000000000000000000000001" } },
    });
    const refused = (text: string) => {
      try {
        parseChainsConfig(text, assets);
        return "accepted";
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(refused("{")).toMatch(/not valid JSON/);
    expect(refused('{"solana": {"rpc_url": "http://x"}}')).toMatch(/only EVM chains/);
    expect(refused('{"base": {"rpc_url": "ftp://x"}}')).toMatch(/rpc_url/);
    expect(refused('{"base": {"rpc_url": "http://x", "finality": 2}}')).toMatch(/finality is not a setting/);
    expect(refused('{"base": {"rpc_url": "http://x", "finality_confirmations": 0}}')).toMatch(/finality_confirmations/);
    expect(refused('{"mars": {"rpc_url": "http://x"}}')).toMatch(/unknown chain/);
  });
});
