import fc from "fast-check";
import { custom } from "viem";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../../adapters/clock";
import { EvmChain } from "../../../../adapters/chains/evm";
import { MemoryStorage } from "../../../../adapters/memory";
import { devPorts } from "../../../../adapters/dev";
import { systemContext, type RequestContext } from "../../../../src/engine/context";
import { type PayrailEngine as Engine, createEngine } from "../../../../src/modules";
import type { ChainAdapter } from "../../../../src/ports/chain";
import { TRANSFER_TOPIC } from "../../../../adapters/chains/evm/evm-deposits";
import { evmWorld, HOT_TOKENS, randomAddress, type EvmWorld } from "../../../support/evm/evm-harness";

const FINALITY = 3;

/** One step of a schedule. */
type Step =
  /** One payer transaction: an output per entry, to one of the step's new intents (the same one possibly twice); several go through the multisend contract. */
  | { kind: "deposit"; payer: 1 | 2 | 3; outputs: { intent: 0 | 1 | 2; amount: number }[] }
  | { kind: "payout"; amount: number }
  | { kind: "mine"; blocks: number }
  | { kind: "fault"; fault: "drop_send" | "lose_answer" | "crash_after_broadcast" }
  | { kind: "restart" }
  | { kind: "reorg"; depth: number; dropPending: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("deposit" as const),
      payer: fc.constantFrom(1 as const, 2 as const, 3 as const),
      outputs: fc.array(fc.record({ intent: fc.constantFrom(0 as const, 1 as const, 2 as const), amount: fc.integer({ min: 1, max: 40 }) }), {
        minLength: 1,
        maxLength: 4,
      }),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("payout" as const), amount: fc.integer({ min: 1, max: 15 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("mine" as const), blocks: fc.integer({ min: 1, max: 3 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("fault" as const),
      fault: fc.constantFrom("drop_send" as const, "lose_answer" as const, "crash_after_broadcast" as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("restart" as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("reorg" as const), depth: fc.integer({ min: 1, max: FINALITY - 1 }), dropPending: fc.boolean() }),
  },
);

/**
 * Schedules random ones reach only now and then, run first every time: one multisend paying two
 * intents (7 USDC and 3) and one paying an intent twice; a reorganisation that loses a deposit
 * still in flight; a crash after a broadcast, whose retry must not send again;
 * a send that never reached the node, then a reorganisation dropping the engine's own
 * transaction, which must be re-sent from its saved bytes.
 */
const EXAMPLES: [Step[]][] = [
  [
    [
      {
        kind: "deposit",
        payer: 1,
        outputs: [
          { intent: 0, amount: 7 },
          { intent: 1, amount: 3 },
        ],
      },
      {
        kind: "deposit",
        payer: 3,
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
      { kind: "deposit", payer: 2, outputs: [{ intent: 0, amount: 5 }] },
      { kind: "mine", blocks: 1 },
      { kind: "reorg", depth: 1, dropPending: true },
    ],
  ],
  [
    [
      { kind: "fault", fault: "crash_after_broadcast" },
      { kind: "payout", amount: 4 },
      { kind: "mine", blocks: 2 },
    ],
  ],
  [
    [
      { kind: "fault", fault: "drop_send" },
      { kind: "payout", amount: 3 },
      { kind: "mine", blocks: 1 },
      { kind: "restart" },
      { kind: "payout", amount: 2 },
      { kind: "mine", blocks: 1 },
      { kind: "reorg", depth: 2, dropPending: true },
      { kind: "fault", fault: "lose_answer" },
      { kind: "payout", amount: 1 },
    ],
  ],
];

/**
 * docs/decisions.md §9's promise under random schedules: payouts and deposits (transactions paying one
 * intent, or several at once through a multisend contract, an intent possibly twice) on the EVM adapter
 * against hardhat in process, with sends that never reach the node, answers lost after the node
 * took the transaction, an engine that crashes right after a broadcast, engine and adapter
 * restarts on the same storage, and reorganisations shallower than finality (blocks replaced,
 * their transactions mined again, or lost: the payers' deposits vanish, the engine's own
 * transactions must be re-sent from their saved bytes). Once everything settles: each recipient holds on chain
 * exactly what its confirmed legs say (nothing sent twice, nothing sent for a failed leg), each
 * intent's credit equals the deposits to its address on the canonical chain, the account's
 * balance is those credits less the confirmed legs and their fees, and no token is created or
 * lost between the hot wallet, the deposit addresses and the recipients (sweeps included).
 */
describe("EVM money under broadcast, crash, retry and reorganisation schedules", () => {
  it("keeps the chain and the ledger in agreement", async () => {
    const w = await evmWorld();
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 14 }), async (steps) => {
        await w.restore();
        await run(w, steps);
      }),
      { numRuns: 10, endOnFailure: true, examples: EXAMPLES },
    );
  }, 240_000);
});

async function run(w: EvmWorld, steps: Step[]): Promise<void> {
  const { node, token } = w;
  await node.setAutomine(false);
  const clock = new ManualClock(Date.now());
  const storage = new MemoryStorage();
  const faults = { dropSends: 0, loseAnswers: 0, crashAfterBroadcast: 0 };
  // the adapter's node, with sends that can fail in either direction
  const transport = custom({
    async request({ method, params }: { method: string; params?: unknown }) {
      if (method === "eth_sendRawTransaction" && faults.dropSends > 0) {
        faults.dropSends--;
        throw new Error("connection reset before the node read the transaction");
      }
      const answer = await node.provider.request({ method, params: params as unknown[] });
      if (method === "eth_sendRawTransaction" && faults.loseAnswers > 0) {
        faults.loseAnswers--;
        throw new Error("connection reset after the node took the transaction");
      }
      return answer;
    },
  });
  const makeAdapter = () =>
    new EvmChain({
      chain: "base",
      transport,
      storage,
      signer: w.signer,
      clock,
      tokens: { USDC: token },
      finalityConfirmations: FINALITY,
      blockTimeMs: 1_000,
      feeRates: { USDC: "3000" },
      chainId: 31337,
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
  const payouts: { id: string; to: string }[] = [];
  /** Heights and snapshots of blocks we mined, to replace recent ones. */
  let snapshots: { height: number; id: string }[] = [];

  const work = async (seconds = 2) => (await engine.testHelpers.advanceClock(testCtx, { seconds }))._unsafeUnwrap();
  const mine = async (blocks: number) => {
    for (let i = 0; i < blocks; i++) {
      snapshots.push({ height: await node.head(), id: await node.snapshot() });
      await node.mine(1);
      await work();
    }
  };

  // the account starts with a credited deposit, so payouts have funds from the first step
  const opening = (await engine.paymentIntents.create(ctx, { amount: "200", asset: "USDC", chains: ["base"] }))._unsafeUnwrap();
  intents.push({ id: opening.id, address: opening.deposit_addresses.base! });
  await node.pay(token, 1, opening.deposit_addresses.base!, 200_000_000n);
  await mine(FINALITY + 1);
  expect((await engine.paymentIntents.retrieve(ctx, opening.id, {}))._unsafeUnwrap().status).toBe("succeeded");
  snapshots = []; // reorganisations stay above the opening deposit

  for (const s of steps) {
    switch (s.kind) {
      case "deposit": {
        const paid = new Map<number, string>();
        for (const o of s.outputs) {
          if (paid.has(o.intent)) continue;
          const pi = (await engine.paymentIntents.create(ctx, { amount: "10", asset: "USDC", chains: ["base"] }))._unsafeUnwrap();
          intents.push({ id: pi.id, address: pi.deposit_addresses.base! });
          paid.set(o.intent, pi.deposit_addresses.base!);
        }
        const outputs = s.outputs.map((o) => ({ address: paid.get(o.intent)!, amount: BigInt(o.amount) * 1_000_000n }));
        if (outputs.length === 1) await node.pay(token, s.payer, outputs[0]!.address, outputs[0]!.amount);
        else await node.payMany(token, w.disperse, s.payer, outputs);
        break;
      }
      case "payout": {
        const to = randomAddress();
        const rcp = (await engine.recipients.create(ctx, { name: "R", chain_addresses: { base: to } }))._unsafeUnwrap();
        const made = await engine.payouts.create(ctx, { amount: String(s.amount), asset: "USDC", recipient: rcp.id });
        if (made.isOk()) payouts.push({ id: made.value.id, to });
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
      case "restart":
        // a new engine process and a new adapter (nothing in memory) on the same storage
        adapter = makeAdapter();
        engine = await start();
        break;
      case "reorg": {
        const head = await node.head();
        const target = snapshots.filter((x) => x.height <= head - s.depth).at(-1);
        if (!target) break;
        await node.revert(target.id);
        snapshots = snapshots.filter((x) => x.height < target.height);
        if (s.dropPending) {
          // the new branch's miners never saw them: payers' deposits are gone, ours must be re-sent
          const pending = await node.provider.request({ method: "eth_getBlockByNumber", params: ["pending", false] });
          for (const hash of pending?.transactions ?? []) await node.provider.request({ method: "hardhat_dropTransaction", params: [hash] });
        }
        await mine(head - target.height + 1); // a longer branch
        break;
      }
    }
  }

  // calm: no more faults; mine and work until nothing is in flight
  faults.dropSends = faults.loseAnswers = faults.crashAfterBroadcast = 0;
  for (let round = 0; round < 40; round++) {
    await mine(1);
    await work(120); // past the send-claim window and the replacement time
    const open = await Promise.all(payouts.map(async (p) => (await engine.payouts.retrieve(ctx, p.id, {}))._unsafeUnwrap().status));
    const pis = await Promise.all(intents.map(async (i) => (await engine.paymentIntents.retrieve(ctx, i.id, {}))._unsafeUnwrap()));
    if (round >= FINALITY + 2 && !open.includes("executing") && !pis.some((p) => p.amount_pending !== "0")) break;
  }
  await mine(2 * FINALITY + 2); // sweeps finish

  const micro = (v: string) => {
    const [i, f = ""] = v.split(".");
    return BigInt(i! + f.padEnd(6, "0"));
  };
  let paidOut = 0n;
  let fees = 0n;
  for (const p of payouts) {
    const doc = (await engine.payouts.retrieve(ctx, p.id, {}))._unsafeUnwrap();
    expect(["settled", "failed"]).toContain(doc.status);
    const confirmed = doc.legs.filter((l) => l.status === "confirmed").reduce((sum, l) => sum + micro(l.amount), 0n);
    expect(await node.tokenBalance(token, p.to)).toBe(confirmed); // once, and only for confirmed legs
    paidOut += confirmed;
    fees += doc.legs.filter((l) => l.status === "confirmed").reduce((sum, l) => sum + micro(l.fee), 0n);
  }
  let credited = 0n;
  let deposited = 0n;
  for (const i of intents) {
    const pi = (await engine.paymentIntents.retrieve(ctx, i.id, {}))._unsafeUnwrap();
    const logs = await node.provider.request({
      method: "eth_getLogs",
      params: [
        { fromBlock: "0x0", toBlock: "latest", address: token, topics: [TRANSFER_TOPIC, null, `0x${i.address.slice(2).toLowerCase().padStart(64, "0")}`] },
      ],
    });
    const onChain = (logs as { data: string }[]).reduce((sum, l) => sum + BigInt(l.data), 0n);
    expect(micro(pi.amount_received)).toBe(onChain); // every canonical deposit credited, nothing else
    expect(pi.amount_pending).toBe("0");
    credited += micro(pi.amount_received);
    deposited += onChain;
  }
  const balance = (await engine.balances.list(ctx))._unsafeUnwrap().data.find((b) => b.asset === "USDC")!;
  expect(micro(balance.available)).toBe(credited - paidOut - fees);
  expect(balance.reserved).toBe("0");
  // conservation on chain: what the hot wallet and the deposit addresses hold
  let custody = await node.tokenBalance(token, w.hot);
  for (const i of intents) custody += await node.tokenBalance(token, i.address);
  expect(custody).toBe(HOT_TOKENS + deposited - paidOut);

  // reconciliation: what the chain holds agrees with the books to the base unit, for the token and
  // for ETH (the gas of every payout, top-up and sweep), now and at every reading while it ran
  const reading = (await engine.reconciliations.run(ctx, { chain: "base" }))._unsafeUnwrap();
  expect(reading.deferred).toEqual([]);
  expect(reading.data.map((r) => [r.asset, r.status, r.difference]).sort()).toEqual([
    ["ETH", "balanced", "0"],
    ["USDC", "balanced", "0"],
  ]);
  const drifts = (await engine.reconciliations.list(ctx, { status: "drift" }))._unsafeUnwrap();
  expect(drifts.data.map((r) => `${r.chain} ${r.asset} ${r.difference}`)).toEqual([]);
}
