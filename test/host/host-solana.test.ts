import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getBase58Decoder, getTransactionDecoder } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_MNEMONIC } from "../support/evm/evm-node";
import { hostProcess, stopChild } from "../support/evm/processes";
import { HOT_USDC, type SolanaWorld, randomSolanaAddress, solanaWorld } from "../support/solana/solana-harness";
import { base64Bytes } from "../support/solana/svm-node";

const LIVE_KEY = "sk_live_hostsolanatest0123456";
const units = (whole: number) => BigInt(whole) * 1_000_000n;
const signatureOf = (base64: string) => getBase58Decoder().decode(Object.values(getTransactionDecoder().decode(base64Bytes(base64)).signatures)[0]!);

/**
 * Solana live end to end: `payrail serve` as its own process, wired from PAYRAIL_CHAINS naming
 * the litesvm-backed JSON-RPC server (a block every 250 ms), PAYRAIL_SIGNER_MNEMONIC and
 * PAYRAIL_LIVE_API_KEY, through HTTP on the live key: a deposit credited at finalized and swept,
 * a USDC payout to a fresh address, and a host killed between signing and sending.
 */
describe("the host on live Solana (litesvm behind JSON-RPC on loopback)", () => {
  let chain: SolanaWorld;
  let dataDir: string;
  let blocks: NodeJS.Timeout;
  let host: Awaited<ReturnType<typeof hostProcess>> | null = null;

  const env = () => ({
    PAYRAIL_DATA_DIR: dataDir,
    PAYRAIL_CHAINS: JSON.stringify({
      solana: {
        rpc_url: chain.rpc.url,
        commitment: "confirmed",
        finality_confirmations: chain.node.finalityDepth,
        block_time_ms: 250,
        tokens: { USDC: chain.mint },
        fee_rates: { USDC: "150" },
      },
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

  beforeAll(async () => {
    chain = await solanaWorld({ blockhashValidity: 150 }); // as on mainnet: a restart fits in the blockhash's life
    blocks = setInterval(() => chain.node.mine(1), 250);
    dataDir = await mkdtemp(join(tmpdir(), "payrail-host-solana-"));
    host = await hostProcess(env());
  }, 180_000);

  afterAll(async () => {
    clearInterval(blocks);
    if (host) await stopChild(host.child, "SIGTERM");
    await chain?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("prints the Solana hot wallet and no key material", () => {
    expect(host!.output()).not.toContain(TEST_MNEMONIC.split(" ").slice(0, 3).join(" "));
    expect(host!.output()).not.toContain(LIVE_KEY);
    expect(host!.output()).toContain(chain.hot);
  });

  it("credits a USDC deposit at finalized and sweeps it; pays USDC to a fresh address; the ledger equals the chain", async () => {
    const pi = (await call("POST", "/v1/payment_intents", { amount: "100", asset: "USDC", chains: ["solana"] })).body;
    const address = pi.deposit_addresses.solana;
    const sig = await chain.pay(address, units(100));
    const paid = await until(
      "intent paid",
      () => get(`/v1/payment_intents/${pi.id}?expand[]=settlements`),
      (p) => p.status === "succeeded",
    );
    expect(paid).toMatchObject({ amount_received: "100" });
    expect(paid.settlements[0]).toMatchObject({ tx_hash: sig, finality: "final", status: "credited" });
    await until(
      "sweep",
      () => chain.usdcOf(address),
      (b) => b === 0n,
    );
    expect(await chain.usdcOf(chain.hot)).toBe(HOT_USDC + units(100));

    const to = await randomSolanaAddress();
    const rcp = (await call("POST", "/v1/recipients", { name: "Onchain", chain_addresses: { solana: to } })).body;
    const payout = (await call("POST", "/v1/payouts", { amount: "30", asset: "USDC", recipient: rcp.id }, "host-sol-po-1")).body;
    expect(payout.legs?.[0]?.tx_hash, JSON.stringify(payout)).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const settled = await until(
      "payout settled",
      () => get(`/v1/payouts/${payout.id}`),
      (p) => p.status === "settled",
    );
    expect(chain.node.landed.get(settled.legs[0].tx_hash)?.err).toBeNull();
    expect(await chain.usdcOf(to)).toBe(units(30));
    const balance = (await get("/v1/balances")).data.find((b: { asset: string }) => b.asset === "USDC");
    // ledger = chain: the customer's balance and the fees it paid are what came in less what went out
    const custody = (await chain.usdcOf(chain.hot)) - HOT_USDC;
    expect(custody).toBe(units(70));
    expect(BigInt(Math.round((Number(balance.available) + Number(settled.fee)) * 1e6))).toBe(custody);
  }, 180_000);

  it("sends exactly once when the host is killed between signing and sending, and restarted", async () => {
    const to = await randomSolanaAddress();
    const rcp = (await call("POST", "/v1/recipients", { name: "Crash", chain_addresses: { solana: to } })).body;
    let release: () => void = () => undefined;
    const held = new Promise<string>((resolve) => {
      chain.onRequest.fn = (method, params) => {
        if (method !== "sendTransaction") return;
        resolve(String(params[0]));
        return new Promise<void>((_, reject) => {
          release = () => reject(new Error("dropped"));
        });
      };
    });
    const creating = call("POST", "/v1/payouts", { amount: "12.5", asset: "USDC", recipient: rcp.id, reference: "crash-1" }, "host-sol-crash").catch(
      () => null,
    );
    const raw = await held; // signed and saved; the node has not got it
    await stopChild(host!.child, "SIGKILL");
    await creating;
    chain.onRequest.fn = null;
    release();
    const signature = signatureOf(raw);
    expect(chain.node.landed.has(signature)).toBe(false);

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
    expect(settled.legs[0].tx_hash).toBe(signature); // the very bytes signed before the crash
    expect(await chain.usdcOf(to)).toBe(12_500_000n);
  }, 240_000);

  it("after a crash outlasting the blockhash, signs once more and still pays once", async () => {
    const to = await randomSolanaAddress();
    const rcp = (await call("POST", "/v1/recipients", { name: "Long crash", chain_addresses: { solana: to } })).body;
    let release: () => void = () => undefined;
    const held = new Promise<string>((resolve) => {
      chain.onRequest.fn = (method, params) => {
        if (method !== "sendTransaction") return;
        resolve(String(params[0]));
        return new Promise<void>((_, reject) => {
          release = () => reject(new Error("dropped"));
        });
      };
    });
    const creating = call("POST", "/v1/payouts", { amount: "4", asset: "USDC", recipient: rcp.id, reference: "crash-2" }, "host-sol-crash-2").catch(() => null);
    const raw = await held;
    await stopChild(host!.child, "SIGKILL");
    await creating;
    chain.onRequest.fn = null;
    release();
    chain.node.mine(chain.node.blockhashValidity + chain.node.finalityDepth + 1); // the saved transaction can never land now
    host = await hostProcess(env());
    const listed = await until(
      "payout listed",
      () => get("/v1/payouts?search=crash-2"),
      (l) => l.data.length === 1,
    );
    const settled = await until(
      "payout settled",
      () => get(`/v1/payouts/${listed.data[0].id}`),
      (p) => p.status === "settled",
    );
    expect(settled.legs[0].tx_hash).not.toBe(signatureOf(raw)); // signed again, with a live blockhash
    expect(chain.node.landed.has(signatureOf(raw))).toBe(false);
    chain.node.send(base64Bytes(raw)); // the expired bytes, arriving late, are refused
    expect(chain.node.landed.has(signatureOf(raw))).toBe(false);
    expect(await chain.usdcOf(to)).toBe(4_000_000n);
  }, 240_000);
});
