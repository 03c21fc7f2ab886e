import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../adapters/clock";
import { SimulatedChains } from "../../../adapters/chains/simulated";
import { provided } from "../../../src/engine/engine";
import type { InboundTransfer } from "../../../src/ports/chain";
import { paymentIntentsModule } from "../../../src/resources/payment-intents";
import type { PaymentIntentObject, SettlementObject } from "../../../src/resources/payment-intents/payment-intent-doc";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

/**
 * Model-based test of deposits: payers pay random amounts on supported and unsupported chains,
 * blocks are mined, the tip is reorganised to random depths, time passes, and notifications
 * reach the engine duplicated, late (stale snapshots) and out of order. After every command the
 * chain's truth is delivered once more, and then: every deposit is recorded once; what is
 * credited equals the final deposits that count; what is pending equals the ones in flight;
 * nothing is credited twice; and the ledger balances with no negative customer book.
 */
const CHAINS = ["base", "solana", "ethereum"] as const; // ethereum is never an intent's chain here
const micro = (v: string) => {
  const [i, f = ""] = v.split(".");
  return BigInt(i! + f.padEnd(6, "0"));
};

interface Real {
  w: TestWorld;
  sim: SimulatedChains;
  intents: string[];
  /** Snapshots held back, delivered later (stale by then). */
  delayed: InboundTransfer[];
  seed: number;
  /** What the engine last said of each settlement: its finality and status only move forward. */
  seen: Map<string, { finality: number; status: number }>;
}

const FINALITY_RANK: Record<string, number> = { pending: 0, included: 1, final: 2, reverted: 3 };
const STATUS_RANK: Record<string, number> = { not_credited: 0, pending: 0, credited: 1, reversed: 2 };
type Model = Record<string, never>;

async function truth(r: Real): Promise<InboundTransfer[]> {
  const all: InboundTransfer[] = [];
  for (const chain of CHAINS) all.push(...(await r.sim.inboundTransfers(chain, null)).transfers);
  return all;
}

function shuffle<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let x = seed || 1;
  for (let i = out.length - 1; i > 0; i--) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

class Pay implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly intent: number,
    readonly chain: (typeof CHAINS)[number],
    readonly amount: bigint,
  ) {}
  check = () => true;
  async run(_: Model, r: Real) {
    const id = r.intents[this.intent % r.intents.length]!;
    const pi = (await r.w.engine.paymentIntents.retrieve(r.w.ctx, id, {}))._unsafeUnwrap();
    const address = pi.deposit_addresses[this.chain] ?? pi.deposit_addresses.base!; // ethereum pays the base address
    await r.sim.pay({ chain: this.chain, asset: "USDC", address, amount: this.amount });
  }
  toString = () => `Pay(#${this.intent}, ${this.chain}, ${this.amount})`;
}

class Mine implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly chain: (typeof CHAINS)[number],
    readonly blocks: number,
  ) {}
  check = () => true;
  async run(_: Model, r: Real) {
    await r.sim.advance(this.chain, this.blocks);
  }
  toString = () => `Mine(${this.chain}, ${this.blocks})`;
}

class Reorg implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly chain: (typeof CHAINS)[number],
    readonly depth: number,
  ) {}
  check = () => true;
  async run(_: Model, r: Real) {
    await r.sim.reorg(this.chain, this.depth);
  }
  toString = () => `Reorg(${this.chain}, ${this.depth})`;
}

/**
 * News from the network: `now` delivers the present state, duplicated and shuffled; `hold` keeps
 * a copy of the present to deliver later; `late` delivers only what was held, now stale.
 */
class Chaos implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly seed: number,
    readonly mode: "now" | "hold" | "late",
  ) {}
  check = () => true;
  async run(_: Model, r: Real) {
    const present = await truth(r);
    if (this.mode === "hold") {
      r.delayed.push(...present);
      return;
    }
    const batch = this.mode === "late" ? r.delayed.splice(0, r.delayed.length) : [...present, ...present.filter((_, i) => (i + this.seed) % 2 === 0)];
    await provided(r.w.engine, paymentIntentsModule).deposits.ingest(shuffle(batch, this.seed));
  }
  toString = () => `Chaos(${this.seed}, ${this.mode})`;
}

class Wait implements fc.AsyncCommand<Model, Real> {
  constructor(readonly seconds: number) {}
  check = () => true;
  async run(_: Model, r: Real) {
    r.w.clock.advance(this.seconds * 1000);
    await r.w.engine.worker.runDue();
  }
  toString = () => `Wait(${this.seconds}s)`;
}

/** Whatever arrived, stale or not, a settlement never goes back: not in finality, not in credit. */
async function checkForward(r: Real) {
  for (const id of r.intents) {
    const pi = (await r.w.engine.paymentIntents.retrieve(r.w.ctx, id, { expand: ["settlements"] }))._unsafeUnwrap();
    for (const s of pi.settlements as SettlementObject[]) {
      const now = { finality: FINALITY_RANK[s.finality]!, status: STATUS_RANK[s.status]! };
      const before = r.seen.get(s.id);
      if (before) {
        expect(now.finality).toBeGreaterThanOrEqual(before.finality);
        expect(now.status).toBeGreaterThanOrEqual(before.status);
      }
      r.seen.set(s.id, now);
    }
  }
}

async function checkAll(_: Model, r: Real) {
  await checkForward(r);
  // the truth arrives once more, as the watcher would bring it (held news stays held)
  await provided(r.w.engine, paymentIntentsModule).deposits.ingest(await truth(r));
  await checkForward(r);
  const sent = await truth(r);
  const { inspect } = r.w.harness;
  let received = 0n;
  let pending = 0n;
  for (const id of r.intents) {
    const pi = (await r.w.engine.paymentIntents.retrieve(r.w.ctx, id, { expand: ["settlements"] }))._unsafeUnwrap() as PaymentIntentObject & {
      settlements: SettlementObject[];
    };
    const addresses = new Set(Object.values(pi.deposit_addresses));
    const mine = sent.filter((t) => addresses.has(t.address));
    // every deposit recorded exactly once, as the chain has it now
    expect(pi.settlements.map((s) => s.tx_hash).sort()).toEqual(mine.map((t) => t.txHash).sort());
    const credited = pi.settlements.filter((s) => s.reason === null);
    for (const s of credited) {
      const t = mine.find((m) => m.txHash === s.tx_hash)!;
      expect(pi.chains).toContain(t.chain);
      expect(t.seenAt).toBeLessThan(Date.parse(pi.expires_at));
      expect(s.finality).toBe(t.finality);
    }
    const finalSum = credited.filter((s) => s.finality === "final").reduce((a, s) => a + micro(s.amount), 0n);
    const flying = credited.filter((s) => s.finality === "pending" || s.finality === "included").reduce((a, s) => a + micro(s.amount), 0n);
    expect(micro(pi.amount_received)).toBe(finalSum);
    expect(micro(pi.amount_pending)).toBe(flying);
    if (pi.status === "succeeded") expect(finalSum >= (micro(pi.amount) * 99n) / 100n).toBe(true);
    if (finalSum >= micro(pi.amount) && pi.status !== "expired") expect(pi.status).toBe("succeeded");
    received += finalSum;
    pending += flying;
  }
  const entries = await inspect.entries(r.w.accountId);
  const postings = new Map<string, bigint>();
  for (const e of entries) postings.set(e.postingId, (postings.get(e.postingId) ?? 0n) + e.amount);
  for (const net of postings.values()) expect(net).toBe(0n);
  const balances = await inspect.balances(r.w.accountId);
  for (const b of balances) if (!b.book.startsWith("counter:")) expect(b.amount >= 0n).toBe(true);
  const sum = (book: string) => balances.filter((b) => b.asset === "USDC" && b.book === book).reduce((a, b) => a + b.amount, 0n);
  // nothing is spent here, so nothing is ever short: the books are exactly the deposits
  expect(sum("available")).toBe(received);
  expect(sum("pending")).toBe(pending);
}

class CheckAll implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  run = checkAll;
  toString = () => "check";
}

const chain = fc.constantFrom(...CHAINS);
const commands = [
  fc.tuple(fc.nat(), chain, fc.bigInt({ min: 1n, max: 60_000_000n })).map(([i, c, a]) => new Pay(i, c, a)),
  fc.tuple(fc.nat(), chain, fc.bigInt({ min: 1n, max: 60_000_000n })).map(([i, c, a]) => new Pay(i, c, a)),
  fc.tuple(chain, fc.integer({ min: 1, max: 12 })).map(([c, b]) => new Mine(c, b)),
  fc.tuple(chain, fc.integer({ min: 1, max: 12 })).map(([c, b]) => new Mine(c, b)),
  fc.tuple(chain, fc.integer({ min: 1, max: 15 })).map(([c, d]) => new Reorg(c, d)),
  fc.tuple(chain, fc.integer({ min: 1, max: 15 })).map(([c, d]) => new Reorg(c, d)),
  fc.tuple(fc.nat(), fc.constantFrom("now" as const, "hold" as const, "late" as const)).map(([s, m]) => new Chaos(s, m)),
  fc.tuple(fc.nat(), fc.constantFrom("now" as const, "hold" as const, "late" as const)).map(([s, m]) => new Chaos(s, m)),
  fc.tuple(fc.nat(), fc.constantFrom("now" as const, "hold" as const, "late" as const)).map(([s, m]) => new Chaos(s, m)),
  fc.integer({ min: 1, max: 200 }).map((s) => new Wait(s)),
];

for (const kind of storageKinds()) {
  describe(`deposits model on ${kind.name}`, () => {
    it("credits exactly the final deposits that count, once, under duplicated, late and reordered news and reorgs", async () => {
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { maxCommands: 30 }), fc.integer({ min: 1, max: 100 }), async (cmds, amount) => {
          const clock = new ManualClock();
          const sim = new SimulatedChains({ clock });
          const w = await testWorld(kind, { clock, chainAdapters: [sim] });
          try {
            const intents: string[] = [];
            for (const [i, tolerance] of ["0", "0.01"].entries()) {
              const pi = await w.engine.paymentIntents.create(w.ctx, {
                amount: String(amount + i * 7),
                asset: "USDC",
                chains: ["base", "solana"],
                tolerance,
                expires_in: 300 + i * 600,
              });
              intents.push(pi._unsafeUnwrap().id);
            }
            await fc.asyncModelRun(
              () => ({ model: {}, real: { w, sim, intents, delayed: [], seed: amount, seen: new Map() } }),
              [...cmds].flatMap((c) => [c, new CheckAll()]),
            );
          } finally {
            await w.close();
          }
        }),
        { numRuns: kind.name === "memory" ? 200 : 15 },
      );
    });
  });
}

afterAll(closeSharedStorage);
