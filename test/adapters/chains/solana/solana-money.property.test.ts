import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SolanaChain, associatedTokenAccount } from "../../../../adapters/chains/solana";
import { ManualClock } from "../../../../adapters/clock";
import { devPorts } from "../../../../adapters/dev";
import { MemoryStorage } from "../../../../adapters/memory";
import { type RequestContext, systemContext } from "../../../../src/engine/context";
import { type PayrailEngine as Engine, createEngine } from "../../../../src/modules";
import type { ChainAdapter } from "../../../../src/ports/chain";
import { base64Bytes } from "../../../support/solana/svm-node";
import { HOT_USDC, type SolanaWorld, randomSolanaAddress, solanaSigner, solanaWorld } from "../../../support/solana/solana-harness";

const FINALITY = 4;
const VALIDITY = 8;

/** One step of a schedule. */
type Step =
  /** One payer transaction: an output per entry, to one of the step's new intents (the same one possibly twice). */
  | { kind: "deposit"; outputs: { intent: 0 | 1 | 2; amount: number }[] }
  | { kind: "payout"; amount: number; asset: "USDC" | "SOL"; existing: boolean }
  | { kind: "mine"; blocks: number }
  | { kind: "fault"; fault: "drop_send" | "lose_answer" | "crash_after_broadcast" }
  | { kind: "stall" }
  | { kind: "restart" }
  | { kind: "fork"; depth: number; keepHeld: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("deposit" as const),
      outputs: fc.array(fc.record({ intent: fc.constantFrom(0 as const, 1 as const, 2 as const), amount: fc.integer({ min: 1, max: 40 }) }), {
        minLength: 1,
        maxLength: 4,
      }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("payout" as const),
      amount: fc.integer({ min: 1, max: 15 }),
      asset: fc.constantFrom("USDC" as const, "SOL" as const),
      existing: fc.boolean(),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("mine" as const), blocks: fc.integer({ min: 1, max: 3 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("fault" as const),
      fault: fc.constantFrom("drop_send" as const, "lose_answer" as const, "crash_after_broadcast" as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("stall" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("restart" as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("fork" as const), depth: fc.integer({ min: 1, max: FINALITY - 1 }), keepHeld: fc.boolean() }) },
);

/**
 * Schedules random ones reach only now and then, run first every time: one transaction paying
 * two intents (7 USDC and 3, an exchange's batched withdrawal) and one paying an intent twice; a
 * deposit on a fork dropped before finality; a crash after a broadcast, whose retry must not send again; a send
 * lost until its blockhash expired (signed again, paid once); a payout dropped with a fork.
 */
const EXAMPLES: [Step[]][] = [
  [
    [
      {
        kind: "deposit",
        outputs: [
          { intent: 0, amount: 7 },
          { intent: 1, amount: 3 },
        ],
      },
      {
        kind: "deposit",
        outputs: [
          { intent: 0, amount: 2 },
          { intent: 1, amount: 5 },
          { intent: 0, amount: 4 },
        ],
      },
      { kind: "mine", blocks: 1 },
      { kind: "restart" },
    ],
  ],
  [
    [
      { kind: "fork", depth: 1, keepHeld: true },
      { kind: "fault", fault: "lose_answer" },
      { kind: "payout", amount: 15, asset: "USDC", existing: false },
      { kind: "stall" },
      { kind: "stall" },
      { kind: "fault", fault: "lose_answer" },
      { kind: "payout", amount: 14, asset: "SOL", existing: false },
      { kind: "fault", fault: "lose_answer" },
    ],
  ],
  [
    [
      { kind: "deposit", outputs: [{ intent: 0, amount: 5 }] },
      { kind: "mine", blocks: 1 },
      { kind: "fork", depth: 1, keepHeld: false },
    ],
  ],
  [
    [
      { kind: "fault", fault: "crash_after_broadcast" },
      { kind: "payout", amount: 4, asset: "USDC", existing: false },
      { kind: "mine", blocks: 2 },
    ],
  ],
  [
    [
      { kind: "payout", amount: 3, asset: "USDC", existing: true },
      { kind: "stall" },
      { kind: "restart" },
      { kind: "payout", amount: 2, asset: "SOL", existing: false },
      { kind: "mine", blocks: 1 },
      { kind: "fork", depth: 2, keepHeld: false },
      { kind: "fault", fault: "lose_answer" },
      { kind: "payout", amount: 1, asset: "USDC", existing: false },
    ],
  ],
];

/**
 * The promise of docs/chains.md (Solana) under random schedules: payouts of USDC (to fresh
 * addresses and existing ATAs) and SOL, and USDC deposits (transactions paying one intent, or
 * several at once, an intent possibly twice), on the Solana adapter against litesvm
 * behind the JSON-RPC server, with sends lost before the node read them, answers lost after it
 * took them, sends lost until the blockhash expired, an engine that crashes right after a
 * broadcast, engine and adapter restarts on the same storage, and forks dropped before
 * finality (their transactions lost, or carried to the new leader). Once everything settles:
 * each recipient holds on chain exactly what its confirmed legs say (nothing sent twice,
 * nothing for a failed leg), each intent's credit equals the deposits to its address on the
 * surviving chain, the account's balance is those credits less the confirmed legs and their
 * fees, and no token is created or lost between the hot wallet, the deposit addresses and the
 * recipients (sweeps included).
 */
describe("Solana money under broadcast, crash, expiry and fork schedules", () => {
  it("keeps the chain and the ledger in agreement", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 10 }), async (steps) => {
        const w = await solanaWorld({ finalityDepth: FINALITY, blockhashValidity: VALIDITY });
        try {
          await run(w, steps);
        } finally {
          await w.close();
        }
      }),
      { numRuns: 8, endOnFailure: true, examples: EXAMPLES },
    );
  }, 400_000);
});

async function run(w: SolanaWorld, steps: Step[]): Promise<void> {
  const { node } = w;
  node.holdSends = true; // a transaction lands in the next block built
  const clock = new ManualClock(Date.now());
  const storage = new MemoryStorage();
  const faults = { dropSends: 0, loseAnswers: 0, crashAfterBroadcast: 0, stalled: false };
  w.onRequest.fn = (method, params) => {
    if (method !== "sendTransaction") return;
    if (faults.stalled) throw new Error("the leader never got it");
    if (faults.dropSends > 0) {
      faults.dropSends--;
      throw new Error("connection reset before the node read the transaction");
    }
    if (faults.loseAnswers > 0) {
      faults.loseAnswers--;
      node.send(base64Bytes(String(params[0])));
      throw new Error("connection reset after the node took the transaction");
    }
  };
  const makeAdapter = () =>
    new SolanaChain({
      rpcUrl: w.rpc.url,
      storage,
      signer: solanaSigner,
      clock,
      tokens: { USDC: w.mint },
      finalityConfirmations: FINALITY,
      blockTimeMs: 1_000,
      feeRates: { USDC: "150" },
    });
  let adapter = makeAdapter();
  // the engine's view of the chain: a crash right after a broadcast loses its answer
  const chain = new Proxy({} as ChainAdapter, {
    get(_, prop) {
      if (prop === "broadcast") {
        return async (transfer: Parameters<ChainAdapter["broadcast"]>[0]) => {
          const answer = await adapter.broadcast(transfer);
          if (faults.crashAfterBroadcast > 0) {
            faults.crashAfterBroadcast--;
            throw new Error("the process died after the broadcast");
          }
          return answer;
        };
      }
      const value = Reflect.get(adapter, prop);
      return typeof value === "function" ? value.bind(adapter) : value;
    },
  });
  const ports = devPorts({ clock });
  const start = () => createEngine({ storage, ...ports, chainAdapters: [...(ports.chainAdapters ?? []), chain] });
  let engine: Engine = await start();
  const testAccount = await engine.accounts.create({ name: "Clock" });
  const live = await engine.accounts.create({ name: "Live", livemode: true });
  const ctx: RequestContext = systemContext(live.id, true);
  const testCtx = systemContext(testAccount.id, false);
  const intents: { id: string; address: string }[] = [];
  const payouts: { id: string; to: string; asset: "USDC" | "SOL" }[] = [];
  /** Snapshots of blocks built, to drop recent ones. */
  let snapshots: { slot: number; at: ReturnType<typeof node.snapshot> }[] = [];

  const work = async (seconds = 2) => (await engine.testHelpers.advanceClock(testCtx, { seconds }))._unsafeUnwrap();
  const mine = async (blocks: number) => {
    for (let i = 0; i < blocks; i++) {
      snapshots.push({ slot: node.tip, at: node.snapshot() });
      if (snapshots.length > FINALITY) snapshots.shift();
      node.mine(1);
      await work();
    }
  };

  // the account starts with credited deposits of both assets, so payouts have funds from the first step
  for (const [asset, amount, base] of [
    ["USDC", "200", 200_000_000n],
    ["SOL", "20", 20_000_000_000n],
  ] as const) {
    const opening = (await engine.paymentIntents.create(ctx, { amount, asset, chains: ["solana"] }))._unsafeUnwrap();
    if (asset === "USDC") intents.push({ id: opening.id, address: opening.deposit_addresses.solana! });
    await w.pay(opening.deposit_addresses.solana!, base, asset);
  }
  const existing = await randomSolanaAddress();
  await w.pay(existing, 1n); // a recipient whose ATA exists
  await mine(FINALITY + 2);
  snapshots = []; // forks stay above the opening deposits

  for (const s of steps) {
    switch (s.kind) {
      case "deposit": {
        const paid = new Map<number, string>();
        for (const o of s.outputs) {
          if (paid.has(o.intent)) continue;
          const pi = (await engine.paymentIntents.create(ctx, { amount: "10", asset: "USDC", chains: ["solana"] }))._unsafeUnwrap();
          intents.push({ id: pi.id, address: pi.deposit_addresses.solana! });
          paid.set(o.intent, pi.deposit_addresses.solana!);
        }
        await w.payMany(s.outputs.map((o) => ({ owner: paid.get(o.intent)!, amount: BigInt(o.amount) * 1_000_000n })));
        break;
      }
      case "payout": {
        const to = s.existing && s.asset === "USDC" ? existing : await randomSolanaAddress();
        const rcp = (await engine.recipients.create(ctx, { name: "R", chain_addresses: { solana: to } }))._unsafeUnwrap();
        const made = await engine.payouts.create(ctx, { amount: String(s.amount), asset: s.asset, recipient: rcp.id });
        if (made.isOk()) payouts.push({ id: made.value.id, to, asset: s.asset });
        else expect(["insufficient_funds", "no_route"]).toContain(made.error.code);
        break;
      }
      case "mine":
        await mine(s.blocks);
        break;
      case "fault":
        if (s.fault === "drop_send") faults.dropSends++;
        else if (s.fault === "lose_answer") faults.loseAnswers++;
        else faults.crashAfterBroadcast++;
        break;
      case "stall":
        // every send lost until every blockhash signed before has expired at finalized
        faults.stalled = true;
        await mine(VALIDITY + FINALITY + 2);
        faults.stalled = false;
        break;
      case "restart":
        // a new engine process and a new adapter (nothing in memory) on the same storage
        adapter = makeAdapter();
        engine = await start();
        break;
      case "fork": {
        const target = snapshots.at(-s.depth);
        if (!target) break;
        node.dropFork(target.at, { keepHeld: s.keepHeld });
        snapshots = [];
        await work();
        break;
      }
    }
  }

  // calm: no more faults; build blocks and work until nothing is in flight
  faults.dropSends = faults.loseAnswers = faults.crashAfterBroadcast = 0;
  for (let round = 0; round < 60; round++) {
    await mine(1);
    await work(120); // past the send-claim window
    const open = await Promise.all(payouts.map(async (p) => (await engine.payouts.retrieve(ctx, p.id, {}))._unsafeUnwrap().status));
    const pis = await Promise.all(intents.map(async (i) => (await engine.paymentIntents.retrieve(ctx, i.id, {}))._unsafeUnwrap()));
    if (round >= FINALITY + 2 && !open.includes("executing") && !pis.some((p) => p.amount_pending !== "0")) break;
  }
  await mine(2 * FINALITY + 2); // sweeps finish

  const base = (v: string, decimals: number) => {
    const [i, f = ""] = v.split(".");
    return BigInt(i! + f.padEnd(decimals, "0"));
  };
  const paidOut = { USDC: 0n, SOL: 0n };
  const fees = { USDC: 0n, SOL: 0n };
  for (const p of payouts) {
    const doc = (await engine.payouts.retrieve(ctx, p.id, {}))._unsafeUnwrap();
    expect(["settled", "failed"]).toContain(doc.status);
    const decimals = p.asset === "USDC" ? 6 : 9;
    const confirmed = doc.legs.filter((l) => l.status === "confirmed").reduce((sum, l) => sum + base(l.amount, decimals), 0n);
    // once, and only for confirmed legs
    if (p.asset === "SOL") expect(node.balance(p.to)).toBe(confirmed);
    else if (p.to !== existing) expect(await w.usdcOf(p.to)).toBe(confirmed);
    paidOut[p.asset] += confirmed;
    fees[p.asset] += doc.legs.filter((l) => l.status === "confirmed").reduce((sum, l) => sum + base(l.fee, decimals), 0n);
  }
  const toExisting = payouts.filter((p) => p.to === existing);
  const existingPaid = (await Promise.all(toExisting.map(async (p) => (await engine.payouts.retrieve(ctx, p.id, {}))._unsafeUnwrap()))).reduce(
    (sum, d) => sum + d.legs.filter((l) => l.status === "confirmed").reduce((s2, l) => s2 + base(l.amount, 6), 0n),
    0n,
  );
  expect(await w.usdcOf(existing)).toBe(1n + existingPaid);

  let credited = 0n;
  let deposited = 0n;
  for (const i of intents) {
    const pi = (await engine.paymentIntents.retrieve(ctx, i.id, {}))._unsafeUnwrap();
    const ata = await associatedTokenAccount(i.address, w.mint);
    // what the surviving chain carried into the intent's ATA (sweeps out of it are negative: left out)
    let onChain = 0n;
    for (const l of node.landed.values()) {
      if (l.err !== null) continue;
      const at = l.accountKeys.indexOf(ata);
      if (at < 0) continue;
      const post = BigInt(l.postTokenBalances.find((b) => b.accountIndex === at)?.uiTokenAmount.amount ?? "0");
      const pre = BigInt(l.preTokenBalances.find((b) => b.accountIndex === at)?.uiTokenAmount.amount ?? "0");
      if (post > pre) onChain += post - pre;
    }
    expect(base(pi.amount_received, 6)).toBe(onChain); // every surviving deposit credited, nothing else
    expect(pi.amount_pending).toBe("0");
    credited += base(pi.amount_received, 6);
    deposited += onChain;
  }
  const balances = (await engine.balances.list(ctx))._unsafeUnwrap().data;
  const usdc = balances.find((b) => b.asset === "USDC")!;
  expect(base(usdc.available, 6)).toBe(credited - paidOut.USDC - fees.USDC);
  expect(usdc.reserved).toBe("0");
  const sol = balances.find((b) => b.asset === "SOL")!;
  expect(base(sol.available, 9)).toBe(20_000_000_000n - paidOut.SOL - fees.SOL);
  // conservation on chain: what the hot wallet and the deposit addresses hold of USDC
  let custody = await w.usdcOf(w.hot);
  for (const i of intents) custody += await w.usdcOf(i.address);
  expect(custody).toBe(HOT_USDC + deposited - paidOut.USDC);

  // reconciliation: what the chain holds agrees with the books to the base unit, for USDC and for
  // SOL (every fee and every recipient account's rent the hot wallet paid), now and at every
  // reading while it ran
  const reading = (await engine.reconciliations.run(ctx, { chain: "solana" }))._unsafeUnwrap();
  expect(reading.deferred).toEqual([]);
  expect(reading.data.map((r) => [r.asset, r.status, r.difference]).sort()).toEqual([
    ["SOL", "balanced", "0"],
    ["USDC", "balanced", "0"],
  ]);
  const drifts = (await engine.reconciliations.list(ctx, { status: "drift" }))._unsafeUnwrap();
  expect(drifts.data.map((r) => `${r.chain} ${r.asset} ${r.difference}`)).toEqual([]);
}
