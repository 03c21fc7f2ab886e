import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../adapters/clock";
import { SimulatedChains } from "../../../adapters/chains/simulated";
import type { PayoutObject } from "../../../src/resources/payouts/payout-doc";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

/**
 * Model-based test of payouts (fast-check commands): create (some above the approval threshold),
 * approve, cancel, chain progress, leg failures, and workers that crash holding their work. After
 * every command, through the independent read path: the ledger balances, no customer book is
 * negative, what is reserved is exactly what live legs hold, no payout leaves a terminal state,
 * and every transition emitted exactly its event.
 */
const CHAINS = ["base", "solana"] as const;
const TERMINAL = new Set(["settled", "partially_settled", "failed", "canceled"]);
const FUNDED = 1_000_000_000n; // 1,000 USDC per chain

interface Model {
  payouts: string[];
  /** Terminal status first seen for a payout: it must never change. */
  terminal: Map<string, string>;
}

interface Real {
  w: TestWorld;
  sim: SimulatedChains;
  recipient: string;
}

const micro = (v: string) => {
  const [i, f = ""] = v.split(".");
  return BigInt(i! + f.padEnd(6, "0"));
};

class Create implements fc.AsyncCommand<Model, Real> {
  constructor(readonly amount: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const made = await r.w.engine.payouts.create(r.w.ctx, { amount: String(this.amount), asset: "USDC", recipient: r.recipient });
    if (made.isOk()) m.payouts.push(made.value.id);
    else expect(["insufficient_funds", "insufficient_liquidity"]).toContain(made.error.code);
  }
  toString = () => `Create(${this.amount})`;
}

class Approve implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.payouts.length > 0;
  async run(m: Model, r: Real) {
    const id = m.payouts[this.index % m.payouts.length]!;
    const before = (await r.w.engine.payouts.retrieve(r.w.ctx, id, {}))._unsafeUnwrap().status;
    const result = await r.w.engine.payouts.approve(r.w.ctx, id);
    expect(result.isOk()).toBe(before === "created");
  }
  toString = () => `Approve(#${this.index})`;
}

class Cancel implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.payouts.length > 0;
  async run(m: Model, r: Real) {
    const id = m.payouts[this.index % m.payouts.length]!;
    const before = (await r.w.engine.payouts.retrieve(r.w.ctx, id, {}))._unsafeUnwrap().status;
    const result = await r.w.engine.payouts.cancel(r.w.ctx, id);
    if (before === "created") expect(result._unsafeUnwrap().status).toBe("canceled");
    else expect(result.isErr() && result.error.code).toBe("payout_not_cancelable");
  }
  toString = () => `Cancel(#${this.index})`;
}

class Progress implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_: Model, r: Real) {
    r.w.clock.advance(this.ms);
    await r.w.engine.worker.runDue();
  }
  toString = () => `Progress(${this.ms}ms)`;
}

class FailNext implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly chain: (typeof CHAINS)[number],
    readonly mode: "rejected" | "reverted",
  ) {}
  check = () => true;
  async run(_: Model, r: Real) {
    r.sim.failNext(this.chain, 1, this.mode);
  }
  toString = () => `FailNext(${this.chain}, ${this.mode})`;
}

class Crash implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_: Model, r: Real) {
    // a worker takes everything due and dies: nothing runs until its leases expire
    await r.w.engine.storage.claimDueWork({ now: r.w.clock.now(), limit: 1_000, leaseMs: 60_000, owner: "wrk_crashed" });
  }
  toString = () => "Crash";
}

async function checkAll(m: Model, r: Real) {
  const { inspect } = r.w.harness;
  const entries = await inspect.entries(r.w.accountId);
  const postings = new Map<string, bigint>();
  for (const e of entries) postings.set(e.postingId, (postings.get(e.postingId) ?? 0n) + e.amount);
  for (const net of postings.values()) expect(net).toBe(0n);
  const balances = await inspect.balances(r.w.accountId);
  const sums = new Map<string, bigint>();
  for (const e of entries) sums.set(`${e.asset}/${e.chain}/${e.book}`, (sums.get(`${e.asset}/${e.chain}/${e.book}`) ?? 0n) + e.amount);
  for (const b of balances) {
    expect(b.amount).toBe(sums.get(`${b.asset}/${b.chain}/${b.book}`) ?? 0n);
    if (!b.book.startsWith("counter:")) expect(b.amount >= 0n).toBe(true);
  }

  const payouts: PayoutObject[] = [];
  for (const id of m.payouts) payouts.push((await r.w.engine.payouts.retrieve(r.w.ctx, id, {}))._unsafeUnwrap());
  for (const chain of CHAINS) {
    let held = 0n;
    let sent = 0n;
    for (const p of payouts) {
      for (const leg of p.legs) {
        if (leg.chain !== chain) continue;
        if (leg.status === "pending" || leg.status === "broadcast") held += micro(leg.amount) + micro(leg.fee);
        if (leg.status === "confirmed") sent += micro(leg.amount) + micro(leg.fee);
      }
    }
    const book = (name: string) => balances.find((b) => b.asset === "USDC" && b.chain === chain && b.book === name)?.amount ?? 0n;
    expect(book("reserved")).toBe(held);
    expect(book("available")).toBe(FUNDED - held - sent);
  }

  const events = (await inspect.events(r.w.accountId)).filter((e) => e.type.startsWith("payout."));
  const count = (type: string, id: string) => events.filter((e) => e.type === type && (e.data as { object: { id: string } }).object.id === id).length;
  for (const p of payouts) {
    const previous = m.terminal.get(p.id);
    if (previous) expect(p.status).toBe(previous);
    if (TERMINAL.has(p.status)) m.terminal.set(p.id, p.status);
    expect(count("payout.created", p.id)).toBe(1);
    expect(count("payout.settled", p.id)).toBe(p.status === "settled" ? 1 : 0);
    expect(count("payout.partially_settled", p.id)).toBe(p.status === "partially_settled" ? 1 : 0);
    expect(count("payout.failed", p.id)).toBe(p.status === "failed" ? 1 : 0);
    for (const leg of p.legs) {
      const sentOnce = leg.tx_hash !== null ? 1 : 0;
      expect(count("payout.leg.broadcast", leg.id)).toBe(sentOnce);
    }
    if (p.status === "settled") expect(p.legs.every((l) => l.status === "confirmed")).toBe(true);
    if (p.status === "failed" || p.status === "canceled") expect(p.legs.every((l) => l.status === "failed")).toBe(true);
  }
}

class CheckAll implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  run = checkAll;
  toString = () => "check";
}

const commands = [
  fc.integer({ min: 1, max: 1_500 }).map((a) => new Create(a)),
  fc.integer({ min: 1, max: 1_500 }).map((a) => new Create(a)),
  fc.nat().map((i) => new Approve(i)),
  fc.nat().map((i) => new Cancel(i)),
  fc.integer({ min: 100, max: 8_000 }).map((ms) => new Progress(ms)),
  fc.integer({ min: 100, max: 8_000 }).map((ms) => new Progress(ms)),
  fc.tuple(fc.constantFrom(...CHAINS), fc.constantFrom("rejected" as const, "reverted" as const)).map(([c, m]) => new FailNext(c, m)),
  fc.constant(new Crash()),
];

for (const kind of storageKinds()) {
  describe(`payouts model on ${kind.name}`, () => {
    it("keeps the ledger balanced and every payout's story exact under random commands", async () => {
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { maxCommands: 20 }), async (cmds) => {
          const clock = new ManualClock();
          const sim = new SimulatedChains({
            clock,
            chains: { base: { liquidity: { USDC: "1200" } }, solana: { liquidity: { USDC: "1200" } } },
          });
          const w = await testWorld(kind, { clock, chainAdapters: [sim] });
          try {
            (await w.engine.accounts.setPolicy(w.accountId, { approval_threshold: { USDC: "700" } }))._unsafeUnwrap();
            for (const chain of CHAINS) (await w.engine.testHelpers.fund(w.ctx, { asset: "USDC", chain, amount: "1000" }))._unsafeUnwrap();
            const recipient = (
              await w.engine.recipients.create(w.ctx, {
                name: "R",
                chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", solana: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" },
              })
            )._unsafeUnwrap().id;
            const model: Model = { payouts: [], terminal: new Map() };
            await fc.asyncModelRun(
              () => ({ model, real: { w, sim, recipient } }),
              [...cmds, new Progress(120_000), new Progress(120_000)].flatMap((c) => [c, new CheckAll()]),
            );
          } finally {
            await w.close();
          }
        }),
        { numRuns: kind.name === "memory" ? 60 : 12 },
      );
    });
  });
}

afterAll(closeSharedStorage);
