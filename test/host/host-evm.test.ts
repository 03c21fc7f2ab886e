import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak256 } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MnemonicSigner } from "../../adapters/chains/evm";
import { EvmTestNode, TEST_MNEMONIC, httpNode } from "../support/evm/evm-node";
import { randomAddress } from "../support/evm/evm-harness";
import { hardhatNode, hostProcess, rpcProxy, stopChild } from "../support/evm/processes";

const LIVE_KEY = "sk_live_hostevmtest0123456789";
const units = (whole: number) => BigInt(whole) * 1_000_000n;

/**
 * docs/decisions.md §9 end to end: `payrail serve` as its own process, wired from PAYRAIL_CHAINS,
 * PAYRAIL_SIGNER_MNEMONIC and PAYRAIL_LIVE_API_KEY, against `hardhat node` on loopback (mining a
 * block every 250 ms), through HTTP on the live key.
 */
describe("the host on a live EVM chain (hardhat node on loopback)", () => {
  let node: Awaited<ReturnType<typeof hardhatNode>>;
  let proxy: Awaited<ReturnType<typeof rpcProxy>>;
  let chain: EvmTestNode;
  let token: string;
  let hot: string;
  let dataDir: string;
  let host: Awaited<ReturnType<typeof hostProcess>> | null = null;

  const env = () => ({
    PAYRAIL_DATA_DIR: dataDir,
    PAYRAIL_CHAINS: JSON.stringify({
      base: { rpc_url: proxy.url, finality_confirmations: 2, block_time_ms: 250, tokens: { USDC: token }, fee_rates: { USDC: "3000" }, chain_id: 31337 },
    }),
    PAYRAIL_SIGNER_MNEMONIC: TEST_MNEMONIC,
    PAYRAIL_LIVE_API_KEY: LIVE_KEY,
    PAYRAIL_SEND_CLAIM_SECONDS: "2",
  });
  const call = async (method: string, path: string, body?: unknown, idempotencyKey?: string) => {
    const res = await fetch(`${host!.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${LIVE_KEY}`,
        "content-type": "application/json",
        ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const get = async (path: string) => (await call("GET", path)).body;
  const until = async <T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 90_000): Promise<T> => {
    const started = Date.now();
    for (;;) {
      const v = await read();
      if (ok(v)) return v;
      if (Date.now() - started > timeoutMs) throw new Error(`${what}: still ${JSON.stringify(v)} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const sweptOf = (address: string) =>
    until(
      `sweep of ${address}`,
      () => chain.tokenBalance(token, address),
      (b) => b === 0n,
    );

  beforeAll(async () => {
    node = await hardhatNode();
    proxy = await rpcProxy(node.url);
    chain = new EvmTestNode(httpNode(node.url));
    hot = await new MnemonicSigner(TEST_MNEMONIC).address(0);
    token = await chain.deployToken("USDC", 6);
    await chain.mint(token, hot, units(1_000_000));
    await chain.setBalance(hot, 100n * 10n ** 18n);
    for (const payer of [1, 2]) await chain.mint(token, await chain.account(payer), units(1_000_000));
    await chain.provider.request({ method: "evm_setIntervalMining", params: [250] });
    dataDir = await mkdtemp(join(tmpdir(), "payrail-host-evm-"));
    host = await hostProcess(env());
  }, 180_000);

  afterAll(async () => {
    if (host) await stopChild(host.child, "SIGTERM");
    await proxy?.close();
    await node?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("prints no key material, and refuses test helpers to the live key", async () => {
    expect(host!.output()).not.toContain(TEST_MNEMONIC.split(" ").slice(0, 3).join(" "));
    expect(host!.output()).not.toContain(LIVE_KEY);
    expect(host!.output()).toContain(hot);
    const helper = await call("POST", "/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "1" });
    expect(helper.status).toBe(404);
  });

  it("credits an on-chain deposit at finality, sweeps it, then a reorganisation reverses a second one", async () => {
    const pi = (await call("POST", "/v1/payment_intents", { amount: "100", asset: "USDC", chains: ["base"] })).body;
    const address = pi.deposit_addresses.base;
    const tx = await chain.pay(token, 1, address, units(100));
    const paid = await until(
      "intent paid",
      () => get(`/v1/payment_intents/${pi.id}?expand[]=settlements`),
      (p) => p.status === "succeeded",
    );
    expect(paid).toMatchObject({ amount_received: "100" });
    expect(paid.settlements[0]).toMatchObject({ tx_hash: tx, finality: "final", status: "credited" });
    expect((await get("/v1/balances")).data.find((b: any) => b.asset === "USDC")).toMatchObject({ available: "100" });
    await sweptOf(address);

    // the second deposit is credited, then the branch holding it is replaced by a longer one
    const pi2 = (await call("POST", "/v1/payment_intents", { amount: "7", asset: "USDC", chains: ["base"] })).body;
    await chain.provider.request({ method: "evm_setIntervalMining", params: [0] });
    const snapshot = await chain.snapshot();
    await chain.pay(token, 2, pi2.deposit_addresses.base, units(7));
    await chain.mine(3);
    await until(
      "second intent paid",
      () => get(`/v1/payment_intents/${pi2.id}`),
      (p) => p.status === "succeeded",
    );
    await chain.revert(snapshot);
    await chain.mine(8);
    await chain.provider.request({ method: "evm_setIntervalMining", params: [250] });
    const reverted = await until(
      "second intent reverted",
      () => get(`/v1/payment_intents/${pi2.id}`),
      (p) => p.status === "reverted",
    );
    expect(reverted.amount_received).toBe("0");
    expect((await get("/v1/balances")).data.find((b: any) => b.asset === "USDC")).toMatchObject({ available: "100", pending: "0" });
  }, 240_000);

  it("pays out on chain: the leg's tx_hash is a real transaction and the recipient gains exactly the amount", async () => {
    const to = randomAddress();
    const rcp = (await call("POST", "/v1/recipients", { name: "Onchain", chain_addresses: { base: to } })).body;
    const payout = (await call("POST", "/v1/payouts", { amount: "30", asset: "USDC", recipient: rcp.id }, "host-evm-po-1")).body;
    expect(payout.legs?.[0]?.tx_hash, JSON.stringify(payout)).toMatch(/^0x[0-9a-f]{64}$/);
    const settled = await until(
      "payout settled",
      () => get(`/v1/payouts/${payout.id}`),
      (p) => p.status === "settled",
    );
    const mined = await chain.provider.request({ method: "eth_getTransactionReceipt", params: [settled.legs[0].tx_hash] });
    expect(mined.status).toBe("0x1");
    expect(await chain.tokenBalance(token, to)).toBe(units(30));
  }, 180_000);

  it("fails a leg to a reverting token and releases its reservation", async () => {
    await chain.tokenCall(token, "setReverting", [true]);
    try {
      const before = (await get("/v1/balances")).data.find((b: any) => b.asset === "USDC");
      const rcp = (await call("POST", "/v1/recipients", { name: "Refused", chain_addresses: { base: randomAddress() } })).body;
      const payout = (await call("POST", "/v1/payouts", { amount: "5", asset: "USDC", recipient: rcp.id }, "host-evm-po-2")).body;
      expect(payout.id, JSON.stringify(payout)).toMatch(/^po_/);
      const failed = await until(
        "payout failed",
        () => get(`/v1/payouts/${payout.id}`),
        (p) => p.status === "failed",
      );
      expect(failed.legs[0].status).toBe("failed");
      const after = (await get("/v1/balances")).data.find((b: any) => b.asset === "USDC");
      expect(after).toMatchObject({ available: before.available, reserved: "0" });
    } finally {
      await chain.tokenCall(token, "setReverting", [false]);
    }
  }, 180_000);

  it("sends exactly once when the host is killed between signing and sending, and restarted", async () => {
    const to = randomAddress();
    const rcp = (await call("POST", "/v1/recipients", { name: "Crash", chain_addresses: { base: to } })).body;
    const held = proxy.hold();
    const creating = call("POST", "/v1/payouts", { amount: "12.5", asset: "USDC", recipient: rcp.id, reference: "crash-1" }, "host-evm-crash").catch(
      () => null,
    );
    const raw = await held; // signed and saved; the node has not got it
    await stopChild(host!.child, "SIGKILL");
    await creating;
    proxy.release();
    expect(await chain.provider.request({ method: "eth_getTransactionByHash", params: [keccak256(raw as `0x${string}`)] })).toBeNull();

    host = await hostProcess(env());
    const listed = await until(
      "payout listed",
      () => get("/v1/payouts?search=crash-1"),
      (l) => l.data.length === 1,
    );
    const settled = await until(
      "payout settled",
      () => get(`/v1/payouts/${listed.data[0].id}`),
      (p) => p.status === "settled",
    );
    expect(settled.legs[0].tx_hash).toBe(keccak256(raw as `0x${string}`)); // the very bytes signed before the crash
    expect(await chain.tokenBalance(token, to)).toBe(12_500_000n);
  }, 240_000);
});
