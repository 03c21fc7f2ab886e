import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak256 } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_MNEMONIC, httpNode } from "../support/evm/evm-node";
import { hardhatNode, hostProcess, rpcProxy, stopChild } from "../support/evm/processes";
import { buildUniswapWorld, type UniswapWorld } from "../support/evm/uniswap-world";

const LIVE_KEY = "sk_live_hostuniswaptest0123456";
const E6 = 10n ** 6n;

/**
 * Issue 20 end to end: `payrail serve` as its own process, wired from PAYRAIL_CHAINS and
 * PAYRAIL_VENUES against `hardhat node` carrying the published Uniswap v2 contracts (a block
 * every 250 ms), through HTTP on the live key: quotes from the pools, a swap settling on chain,
 * and a kill -9 between signing and sending a swap.
 */
describe("the host with live Uniswap v2 venues (hardhat node on loopback)", () => {
  let node: Awaited<ReturnType<typeof hardhatNode>>;
  let proxy: Awaited<ReturnType<typeof rpcProxy>>;
  let w: UniswapWorld;
  let dataDir: string;
  let host: Awaited<ReturnType<typeof hostProcess>> | null = null;

  const env = () => {
    const { ETH: _weth, ...tokens } = w.tokens;
    return {
      PAYRAIL_DATA_DIR: dataDir,
      PAYRAIL_CHAINS: JSON.stringify({ ethereum: { rpc_url: proxy.url, finality_confirmations: 2, block_time_ms: 250, tokens, chain_id: 31337 } }),
      PAYRAIL_VENUES: JSON.stringify({ uniswap_v2: { ethereum: { router: w.router, factory: w.factory } } }),
      PAYRAIL_SIGNER_MNEMONIC: TEST_MNEMONIC,
      PAYRAIL_LIVE_API_KEY: LIVE_KEY,
      PAYRAIL_SEND_CLAIM_SECONDS: "2",
    };
  };
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
  const balance = async (asset: string) => (await get("/v1/balances")).data.find((b: any) => b.asset === asset);

  beforeAll(async () => {
    node = await hardhatNode();
    proxy = await rpcProxy(node.url);
    w = await buildUniswapWorld(httpNode(node.url));
    await w.node.provider.request({ method: "evm_setIntervalMining", params: [250] });
    dataDir = await mkdtemp(join(tmpdir(), "payrail-host-uniswap-"));
    host = await hostProcess(env());
    // a real deposit of 10,000 USDC funds the live account; it is swept to the hot wallet
    const pi = (await call("POST", "/v1/payment_intents", { amount: "10000", asset: "USDC", chains: ["ethereum"] }, "deposit")).body;
    const address = pi.deposit_addresses.ethereum;
    await w.node.pay(w.tokens.USDC!, 1, address, 10_000n * E6);
    await until(
      "deposit credited",
      () => balance("USDC"),
      (b) => b?.available === "10000",
    );
    await until(
      "deposit swept",
      () => w.balance("USDC", address),
      (b) => b === 0n,
    );
  }, 240_000);

  afterAll(async () => {
    if (host) await stopChild(host.child, "SIGTERM");
    await proxy?.close();
    await node?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("quotes from the pools with venues and weights, equal to the router's answer, and settles a swap on chain as the ledger says", async () => {
    const q = (await call("POST", "/v1/quotes", { from: { asset: "USDC", amount: "1000" }, to: { asset: "USDT" } })).body;
    expect(q.venues.length).toBeGreaterThan(0);
    for (const v of q.venues) expect(v.name).toMatch(/^uniswap-v2-ethereum:/);
    // the direct pool alone at this size (the route pays two fees and more gas): the amount is the
    // router's own answer, less the gas priced through the pools (stablecoins: no platform fee)
    const [, out] = await w.amountsOut(1_000n * E6, ["USDC", "USDT"]);
    expect(q.venues).toEqual([
      {
        name: "uniswap-v2-ethereum:USDC-USDT",
        weight: "1",
        from_amount: "1000",
        to_amount: `${out / E6}.${(out % E6).toString().padStart(6, "0")}`.replace(/\.?0+$/, ""),
      },
    ]);
    expect(Number(q.network_fee)).toBeGreaterThan(0);
    expect(BigInt(Math.round((Number(q.to.amount) + Number(q.network_fee)) * 1e6))).toBe(out);
    const hot = { usdc: await w.balance("USDC", w.hot), usdt: await w.balance("USDT", w.hot) };
    const sw = (await call("POST", "/v1/swaps", { quote: q.id, destination_chain: "ethereum" }, "swap-1")).body;
    const done = await until(
      "swap settled",
      () => get(`/v1/swaps/${sw.id}`),
      (s) => s.status !== "executing",
    );
    expect(done).toMatchObject({ status: "settled", to: { amount: q.to.amount } });
    expect(hot.usdc - (await w.balance("USDC", w.hot))).toBe(1_000n * E6);
    const received = (await w.balance("USDT", w.hot)) - hot.usdt;
    expect(received >= BigInt(Math.round(Number(q.to.amount) * 1e6))).toBe(true);
    expect(await balance("USDC")).toMatchObject({ available: "9000", reserved: "0" });
    expect(await balance("USDT")).toMatchObject({ available: q.to.amount });
  }, 180_000);

  it("kill -9 between signing and sending a swap: restarted, the same transaction is sent once and the books balance", async () => {
    const q = (await call("POST", "/v1/quotes", { from: { asset: "USDC", amount: "2000" }, to: { asset: "USDT" }, ttl: 600 })).body;
    const before = { usdc: await w.balance("USDC", w.hot), usdt: await balance("USDT") };
    const held = proxy.hold();
    const sw = (await call("POST", "/v1/swaps", { quote: q.id, destination_chain: "ethereum" }, "swap-crash")).body;
    expect(sw.status).toBe("executing");
    const raw = await held; // signed and saved; the node has not got it
    await stopChild(host!.child, "SIGKILL");
    proxy.release();
    expect(await w.node.provider.request({ method: "eth_getTransactionByHash", params: [keccak256(raw as `0x${string}`)] })).toBeNull();

    host = await hostProcess(env());
    const done = await until(
      "swap settled after the restart",
      () => get(`/v1/swaps/${sw.id}`),
      (s) => s.status !== "executing",
    );
    expect(done.status).toBe("settled");
    const mined = await w.node.provider.request({ method: "eth_getTransactionReceipt", params: [keccak256(raw as `0x${string}`)] });
    expect(mined?.status).toBe("0x1"); // the very bytes signed before the crash
    expect(before.usdc - (await w.balance("USDC", w.hot))).toBe(2_000n * E6); // swapped once
    expect(await balance("USDC")).toMatchObject({ available: "7000", reserved: "0" });
    const usdt = await balance("USDT");
    expect(BigInt(Math.round(Number(usdt.available) * 1e6)) - BigInt(Math.round(Number(before.usdt.available) * 1e6))).toBe(
      BigInt(Math.round(Number(q.to.amount) * 1e6)),
    );
  }, 240_000);
});
