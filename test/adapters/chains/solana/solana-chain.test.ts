import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SOLANA_NAMESPACE, SolanaChain, associatedTokenAccount } from "../../../../adapters/chains/solana";
import { SolanaState, type SolanaTransactionRecord } from "../../../../adapters/chains/solana/solana-state";
import { MemoryStorage } from "../../../../adapters/memory";
import { stepMachine } from "../../../../src/engine/machine-step";
import type { InboundTransfer, StorageAdapter, TransferStatus } from "../../../../src/ports";
import { legMachine } from "../../../../src/resources/payouts/leg-machine";
import { ATA_RENT, HOT_USDC, type SolanaWorld, randomSolanaAddress, solanaChainOn, solanaSigner, solanaWorld } from "../../../support/solana/solana-harness";

/** What the adapter keeps, read through its own state module (namespace `solana`). */
const solState = <T>(storage: StorageAdapter, fn: (tx: SolanaState) => Promise<T>) =>
  storage.adapterState(SOLANA_NAMESPACE).transaction((tx) => fn(new SolanaState(tx)));
const record = (storage: StorageAdapter, id: string) => solState(storage, (tx) => tx.getTransaction(id)) as Promise<SolanaTransactionRecord>;

/** USDC base units per lamport at the harness's 150 USDC per SOL: lamports × 150e6 / 1e9, rounded up. */
const usdcOfLamports = (lamports: bigint) => (lamports * 150_000_000n + 999_999_999n) / 1_000_000_000n;

/** The Solana adapter's own behaviours beyond the chain suite, on litesvm behind the JSON-RPC server. */
describe("the Solana chain adapter", () => {
  let w: SolanaWorld;
  beforeEach(async () => {
    w = await solanaWorld();
  });
  afterEach(async () => {
    await w.close();
  });

  const follow = async (adapter: SolanaChain, txHash: string, blocks = 8): Promise<TransferStatus> => {
    let status = await adapter.transferStatus("solana", txHash);
    for (let i = 0; i < blocks && status.finality !== "final" && status.failure === null; i++) {
      w.node.mine(1);
      status = await adapter.transferStatus("solana", txHash);
    }
    return status;
  };
  const sent = (answer: { txHash: string } | { rejected: string }) => {
    if (!("txHash" in answer)) throw new Error(`refused: ${answer.rejected}`);
    return answer.txHash;
  };

  it("pays USDC to a fresh address: its ATA is created, and the rent is part of the fee the ledger is told", async () => {
    const { adapter, storage } = solanaChainOn(w);
    const to = await randomSolanaAddress();
    const hotLamports = w.node.balance(w.hot);
    const txHash = sent(await adapter.broadcast({ transferId: "leg_fresh", chain: "solana", asset: "USDC", amount: 2_500_000n, to }));
    const status = await follow(adapter, txHash);
    expect(status).toMatchObject({ finality: "final", failure: null, confirmations: 4 });
    expect(await w.usdcOf(to)).toBe(2_500_000n);
    expect(w.node.tokenAccount(await associatedTokenAccount(to, w.mint))!.owner).toBe(to);
    const spent = hotLamports - w.node.balance(w.hot);
    const landed = w.node.landed.get(txHash)!;
    expect(spent).toBe(BigInt(landed.fee) + ATA_RENT); // the signature, the priority fee, and the new account's rent
    expect((await record(storage, "leg_fresh")).feeLamports).toBe(spent.toString());
    expect(status.feePaid).toBe(usdcOfLamports(spent));
    // the compute-unit limit came from a simulation, and the priority fee from the node's recent ones
    const plan = (await record(storage, "leg_fresh")).plan;
    expect(plan.computeUnits).toBeGreaterThan(landed.unitsConsumed);
    expect(plan.computeUnits).toBeLessThan(200_000);
    expect(landed.priorityMicroLamports).toBe(w.node.recentPriorityFee);
    // the fee schedule quotes the dear case: a new ATA's rent included
    const schedule = await adapter.feeSchedule("solana", "USDC");
    if ("unavailable" in schedule) throw new Error(schedule.unavailable);
    expect(schedule.fixed).toBeGreaterThanOrEqual(usdcOfLamports(ATA_RENT));
  });

  it("pays USDC to an existing ATA without creating one, and SOL as a system transfer", async () => {
    const { adapter, storage } = solanaChainOn(w);
    const to = await randomSolanaAddress();
    await w.pay(to, 1n); // the recipient's ATA exists
    const before = w.node.balance(w.hot);
    const usdc = sent(await adapter.broadcast({ transferId: "leg_existing", chain: "solana", asset: "USDC", amount: 3_000_000n, to }));
    expect(await follow(adapter, usdc)).toMatchObject({ finality: "final" });
    expect(await w.usdcOf(to)).toBe(3_000_001n);
    expect((await record(storage, "leg_existing")).plan).toMatchObject({ createDestination: false });
    expect(before - w.node.balance(w.hot)).toBe(BigInt(w.node.landed.get(usdc)!.fee));

    const solTo = await randomSolanaAddress();
    const lamportsBefore = w.node.balance(w.hot);
    const sol = sent(await adapter.broadcast({ transferId: "leg_sol", chain: "solana", asset: "SOL", amount: 1_000_000_000n, to: solTo }));
    const status = await follow(adapter, sol);
    expect(status).toMatchObject({ finality: "final", failure: null });
    expect(w.node.balance(solTo)).toBe(1_000_000_000n);
    const fee = BigInt(w.node.landed.get(sol)!.fee);
    expect(lamportsBefore - w.node.balance(w.hot)).toBe(1_000_000_000n + fee);
    expect(status.feePaid).toBe(fee); // SOL pays its fee in itself
  });

  it("refuses what the chain will not carry, and answers the same refusal again", async () => {
    const { adapter } = solanaChainOn(w);
    // a fresh account cannot hold less than its rent-exempt minimum
    const tiny = { transferId: "leg_tiny", chain: "solana", asset: "SOL", amount: 1_000n, to: await randomSolanaAddress() };
    const refused = await adapter.broadcast(tiny);
    expect(refused).toMatchObject({ rejected: expect.stringContaining("InsufficientFundsForRent") });
    expect(await adapter.broadcast(tiny)).toEqual(refused);
    const eurc = await adapter.broadcast({ transferId: "leg_eurc", chain: "solana", asset: "EURC", amount: 5n, to: await randomSolanaAddress() });
    expect(eurc).toEqual({ rejected: "no EURC mint is configured on solana" });
    expect(await adapter.feeSchedule("solana", "EURC")).toEqual({ unavailable: "no EURC mint is configured (tokens.EURC of solana in PAYRAIL_CHAINS)" });
    const tooMuch = await adapter.broadcast({ transferId: "leg_much", chain: "solana", asset: "USDC", amount: HOT_USDC + 1n, to: await randomSolanaAddress() });
    expect(tooMuch).toHaveProperty("rejected");
  });

  it("re-sends the same bytes while the blockhash lives, signs again only after it expired unlanded, and pays once", async () => {
    const { adapter, storage } = solanaChainOn(w);
    const to = await randomSolanaAddress();
    w.node.dropSends = true; // every send is lost on the way
    const first = sent(await adapter.broadcast({ transferId: "leg_expiring", chain: "solana", asset: "USDC", amount: 4_000_000n, to }));
    const saved = await record(storage, "leg_expiring");
    expect(saved.attempts).toHaveLength(1);
    expect(saved.attempts[0]!.signature).toBe(first);
    expect(Number(saved.attempts[0]!.lastValidBlockHeight)).toBeGreaterThan(w.node.tip);
    // while the blockhash is valid: the same signed transaction again, never a new one
    for (let i = 0; i < 3; i++) {
      w.node.mine(1);
      expect(await adapter.transferStatus("solana", first)).toMatchObject({ finality: "pending", failure: null });
    }
    expect(w.node.received.filter((s) => s === first).length).toBeGreaterThanOrEqual(4);
    expect((await record(storage, "leg_expiring")).attempts).toHaveLength(1);
    // past lastValidBlockHeight at finalized: it can never land, so it is signed once more
    w.node.mine(w.node.blockhashValidity + w.node.finalityDepth + 1);
    w.node.dropSends = false;
    await adapter.transferStatus("solana", first);
    const again = await record(storage, "leg_expiring");
    expect(again.attempts).toHaveLength(2);
    const second = again.attempts[1]!.signature;
    expect(second).not.toBe(first);
    const status = await follow(adapter, first);
    expect(status).toMatchObject({ finality: "final", failure: null, txHash: second });
    expect(await w.usdcOf(to)).toBe(4_000_000n);
    expect(w.node.landed.has(first)).toBe(false);
    // the expired bytes sent now are refused by the chain: still paid once
    w.node.send(Buffer.from(saved.attempts[0]!.raw, "base64"));
    expect(await w.usdcOf(to)).toBe(4_000_000n);
    // and the leg follows the transaction that carries it
    const leg = stepMachine(
      legMachine,
      { value: "broadcast", context: { txHash: first, confirmations: 0, finality: "pending", failureCode: null } },
      { type: "status", ...status },
    );
    expect(leg.value).toBe("confirmed");
    expect(leg.context.txHash).toBe(second);
  });

  it("a crash between signing and sending: the next process sends the very bytes saved, once", async () => {
    const storage = new MemoryStorage();
    const to = await randomSolanaAddress();
    const transfer = { transferId: "leg_crash", chain: "solana", asset: "USDC", amount: 9_000_000n, to };
    // the first process signs and saves, then its send never reaches the node
    w.onRequest.fn = (method) => {
      if (method === "sendTransaction") throw new Error("killed");
    };
    const first = solanaChainOn(w, { storage }).adapter;
    const txHash = sent(await first.broadcast(transfer));
    expect(w.node.received).toEqual([]);
    expect(w.node.landed.has(txHash)).toBe(false);
    w.onRequest.fn = null;
    // a new process on the same storage: the engine repeats the broadcast
    const second = solanaChainOn(w, { storage }).adapter;
    expect(await second.broadcast(transfer)).toEqual({ txHash });
    expect(w.node.landed.has(txHash)).toBe(true);
    expect(await second.broadcast(transfer)).toEqual({ txHash });
    expect(await follow(second, txHash)).toMatchObject({ finality: "final" });
    expect(await w.usdcOf(to)).toBe(9_000_000n);
    expect((await record(storage, "leg_crash")).attempts).toHaveLength(1);
  });

  it("two processes broadcasting one leg at once make one transaction", async () => {
    const storage = new MemoryStorage();
    const to = await randomSolanaAddress();
    const transfer = { transferId: "leg_race", chain: "solana", asset: "USDC", amount: 1_000_000n, to };
    const [a, b] = [solanaChainOn(w, { storage }).adapter, solanaChainOn(w, { storage }).adapter];
    const answers = await Promise.all([a.broadcast(transfer), b.broadcast(transfer), a.broadcast(transfer)]);
    for (const x of answers) expect(x).toEqual(answers[0]);
    w.node.mine(6);
    expect(await w.usdcOf(to)).toBe(1_000_000n);
  });

  it("a payout dropped with a fork before finality goes back to pending, is sent again, and is paid once", async () => {
    const { adapter } = solanaChainOn(w);
    const to = await randomSolanaAddress();
    const before = w.node.snapshot();
    const txHash = sent(await adapter.broadcast({ transferId: "leg_fork", chain: "solana", asset: "USDC", amount: 6_000_000n, to }));
    w.node.mine(1);
    expect(await adapter.transferStatus("solana", txHash)).toMatchObject({ finality: "included", confirmations: 1 });
    w.node.dropFork(before);
    expect(await w.usdcOf(to)).toBe(0n);
    // the blockhash it was signed with is gone with the fork: it expires, then it is signed again
    let status = await adapter.transferStatus("solana", txHash);
    expect(status).toMatchObject({ finality: "pending", failure: null });
    for (let i = 0; i < 40 && status.finality !== "final"; i++) {
      w.node.mine(1);
      status = await adapter.transferStatus("solana", txHash);
    }
    expect(status).toMatchObject({ finality: "final", failure: null });
    expect(await w.usdcOf(to)).toBe(6_000_000n);
  });

  it("derives deposit addresses along m/44'/501'/i'/0', one per intent, the hot wallet being key 0", async () => {
    const { adapter } = solanaChainOn(w);
    const a = await adapter.depositAddress("solana", "USDC", "pi_a");
    const [again, b] = await Promise.all([adapter.depositAddress("solana", "USDC", "pi_a"), adapter.depositAddress("solana", "USDC", "pi_b")]);
    expect(again).toBe(a);
    expect(new Set([a, b, w.hot]).size).toBe(3);
    expect([a, b].sort()).toEqual([await solanaSigner.address(1), await solanaSigner.address(2)].sort());
    expect(await adapter.hotWallet()).toBe(await solanaSigner.address(0));
  });

  it("credits USDC and SOL deposits only at finalized, reverts one a fork dropped, and sweeps final ones with the hot wallet paying", async () => {
    const { adapter } = solanaChainOn(w);
    const usdcAddress = await adapter.depositAddress("solana", "USDC", "pi_usdc");
    const solAddress = await adapter.depositAddress("solana", "SOL", "pi_sol");
    const forkAddress = await adapter.depositAddress("solana", "USDC", "pi_fork");
    let cursor: string | null = null;
    const latest = new Map<string, InboundTransfer>();
    const read = async () => {
      const answer = await adapter.inboundTransfers("solana", cursor);
      cursor = answer.cursor;
      for (const t of answer.transfers) latest.set(t.transferId, t);
      return answer.transfers;
    };
    await w.pay(usdcAddress, 7_000_000n);
    await w.pay(solAddress, 2_000_000_000n, "SOL");
    const forkAt = w.node.snapshot();
    const forked = await w.pay(forkAddress, 5_000_000n);
    // each payment is a block of its own: the last is only processed, and not read before confirmed
    expect((await read()).map((t) => t.txHash)).not.toContain(forked);
    w.node.mine(1);
    await read();
    const byAddress = (a: string) => [...latest.values()].filter((t) => t.address === a);
    expect(byAddress(usdcAddress)).toMatchObject([{ asset: "USDC", amount: 7_000_000n, finality: "included" }]);
    expect(byAddress(solAddress)).toMatchObject([{ asset: "SOL", amount: 2_000_000_000n, finality: "included" }]);
    expect(byAddress(forkAddress)).toMatchObject([{ txHash: forked, finality: "included" }]);
    // the fork holding the third payment is dropped before finality
    w.node.dropFork(forkAt);
    await read();
    expect(byAddress(forkAddress)).toMatchObject([{ finality: "reverted", confirmations: 0 }]);
    for (let i = 0; i < 8; i++) {
      w.node.mine(1);
      await read();
    }
    expect(byAddress(usdcAddress)).toMatchObject([{ finality: "final", confirmations: 4 }]);
    expect(byAddress(solAddress)).toMatchObject([{ finality: "final" }]);
    expect(byAddress(forkAddress)).toMatchObject([{ finality: "reverted" }]);
    expect(await read()).toEqual([]); // nothing open, nothing changed

    const hotUsdc = await w.usdcOf(w.hot);
    const hotLamports = w.node.balance(w.hot);
    let pending = true;
    for (let i = 0; i < 12 && pending; i++) {
      pending = (await adapter.sweepDeposits()).pending;
      w.node.mine(1);
    }
    expect(pending).toBe(false);
    expect(await w.usdcOf(usdcAddress)).toBe(0n);
    expect(w.node.balance(solAddress)).toBe(0n);
    expect(await w.usdcOf(w.hot)).toBe(hotUsdc + 7_000_000n);
    const fees = [...w.node.landed.values()].filter((l) => l.accountKeys[0] === w.hot && l.slot > forkAt.blocks.length).reduce((s, l) => s + BigInt(l.fee), 0n);
    expect(w.node.balance(w.hot)).toBe(hotLamports + 2_000_000_000n - fees);
    // the sweeps are not deposits
    for (let i = 0; i < 6; i++) {
      w.node.mine(1);
      await read();
    }
    expect(latest.size).toBe(3);
  });

  it("reads every page of signatures of a busy deposit account", async () => {
    const { adapter } = solanaChainOn(w, { signaturesPerCall: 3 }); // a provider capping pages at 3
    const address = await adapter.depositAddress("solana", "USDC", "pi_busy");
    for (let i = 1; i <= 7; i++) await w.pay(address, BigInt(i));
    w.node.mine(1);
    const { transfers } = await adapter.inboundTransfers("solana", null);
    expect(transfers.map((t) => t.amount).sort((a, b) => Number(a - b))).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n]);
    expect(() => solanaChainOn(w, { signaturesPerCall: 1001 })).toThrow("signaturesPerCall must be an integer from 1 to 1000");
  });

  it("credits a deposit whose transaction loads the deposit account from an address lookup table", async () => {
    const { adapter } = solanaChainOn(w);
    const usdcAddress = await adapter.depositAddress("solana", "USDC", "pi_alt");
    const solAddress = await adapter.depositAddress("solana", "SOL", "pi_alt_sol");
    const usdc = await w.pay(usdcAddress, 3_000_000n, "USDC", { viaLookupTable: true });
    const sol = await w.pay(solAddress, 1_500_000_000n, "SOL", { viaLookupTable: true });
    const ata = await associatedTokenAccount(usdcAddress, w.mint);
    expect(w.node.landed.get(usdc)!.loaded.writable).toEqual([ata]); // not among the message's own keys
    expect(w.node.landed.get(sol)!.loaded.writable).toEqual([solAddress]);
    w.node.mine(1);
    const { transfers } = await adapter.inboundTransfers("solana", null);
    expect(transfers.map((t) => ({ address: t.address, asset: t.asset, amount: t.amount, txHash: t.txHash }))).toEqual(
      expect.arrayContaining([
        { address: usdcAddress, asset: "USDC", amount: 3_000_000n, txHash: usdc },
        { address: solAddress, asset: "SOL", amount: 1_500_000_000n, txHash: sol },
      ]),
    );
  });

  it("reads one transaction of mixed assets to several deposit addresses as one deposit per account, each once", async () => {
    const { adapter, storage } = solanaChainOn(w);
    const a = await adapter.depositAddress("solana", "USDC", "pi_mixed_a");
    const b = await adapter.depositAddress("solana", "USDC", "pi_mixed_b");
    // SOL and USDC to a, USDC twice to b (one change of its ATA), in one transaction
    const sig = await w.payMany([
      { owner: a, amount: 2_000_000_000n, asset: "SOL" },
      { owner: a, amount: 7_000_000n },
      { owner: b, amount: 3_000_000n },
      { owner: b, amount: 1_000_000n },
    ]);
    w.node.mine(1);
    const { transfers } = await adapter.inboundTransfers("solana", null);
    const mine = transfers.filter((t) => t.txHash === sig);
    expect(
      mine.map((t) => ({ address: t.address, asset: t.asset, amount: t.amount })).sort((x, y) => (x.address + x.asset < y.address + y.asset ? -1 : 1)),
    ).toEqual(
      [
        { address: a, asset: "SOL", amount: 2_000_000_000n },
        { address: a, asset: "USDC", amount: 7_000_000n },
        { address: b, asset: "USDC", amount: 4_000_000n },
      ].sort((x, y) => (x.address + x.asset < y.address + y.asset ? -1 : 1)),
    );
    expect(new Set(mine.map((t) => t.transferId)).size).toBe(3);
    // another adapter process on the same storage, reading from the start, names them alike
    const again = await solanaChainOn(w, { storage }).adapter.inboundTransfers("solana", null);
    expect(
      again.transfers
        .filter((t) => t.txHash === sig)
        .map((t) => t.transferId)
        .sort(),
    ).toEqual(mine.map((t) => t.transferId).sort());
  });

  it("checks its mints against the node: a mint of other decimals, or no mint at all, and nothing moves", async () => {
    expect((await solanaChainOn(w).adapter.checkConfiguration()).map((c) => [c.outcome, c.message])).toEqual([
      ["ok", `solana: hot wallet ${w.hot}`],
      ["ok", "solana.tokens.USDC: the mint has 6 decimals"],
      ["ok", "solana: gas is priced in SOL"],
      ["ok", "solana: gas is priced in USDC"],
    ]);
    const nine = await randomSolanaAddress();
    w.node.setMint(nine, 9, nine); // a mint of 9 decimals configured as USDC (6)
    const wrong = new SolanaChain({ rpcUrl: w.rpc.url, storage: new MemoryStorage(), signer: solanaSigner, tokens: { USDC: nine }, feeRates: { USDC: "150" } });
    const message = `solana.tokens.USDC: the mint ${nine} has 9 decimals, USDC has 6`;
    expect((await wrong.checkConfiguration()).filter((c) => c.outcome === "fail").map((c) => c.message)).toEqual([message]);
    const to = await randomSolanaAddress();
    await expect(wrong.broadcast({ transferId: "leg_nine", chain: "solana", asset: "USDC", amount: 1n, to })).rejects.toThrow(message);
    await expect(wrong.feeSchedule("solana", "USDC")).rejects.toThrow(message);
    await expect(wrong.inboundTransfers("solana", null)).rejects.toThrow(message);
    const nowhere = await randomSolanaAddress();
    const missing = new SolanaChain({ rpcUrl: w.rpc.url, storage: new MemoryStorage(), signer: solanaSigner, tokens: { USDC: nowhere } });
    expect((await missing.checkConfiguration()).map((c) => [c.outcome, c.message])).toEqual([
      ["ok", `solana: hot wallet ${w.hot}`],
      ["fail", `solana.tokens.USDC: no account at ${nowhere} on solana`],
      ["ok", "solana: gas is priced in SOL"],
      [
        "warning",
        "no price for solana's gas (SOL) in USDC: set fee_rates.USDC of solana in PAYRAIL_CHAINS, or a live venue trading SOL/USDC (PAYRAIL_VENUES); live USDC payouts on solana are refused until then",
      ],
    ]);
  });
});
