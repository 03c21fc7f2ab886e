import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { LedgerInvariantError } from "../../src/ledger/ledger";
import { COUNTER, transfer } from "../../src/ledger/postings";
import type { LedgerEntryRecord } from "../../src/ports/storage";
import { runCommand } from "../../src/engine/command";
import type { ApiError } from "../../src/errors";
import type { Result } from "neverthrow";
import { testWorld, type TestWorld } from "../support/engine";
import { closeSharedStorage, storageKinds } from "../support/storage";
import type { UnitOfWork } from "../../src/engine/unit-of-work";
import { engineDeps } from "../../src/engine/engine";

const CHAINS = ["base", "solana"] as const;
type Chain = (typeof CHAINS)[number];
type Books = { available: bigint; reserved: bigint; pending: bigint };

interface Model {
  books: Record<Chain, Books>;
  reservations: { id: string | null; chain: Chain; remaining: bigint; resolved: boolean }[];
  funds: { chain: Chain; amount: bigint; entries: LedgerEntryRecord[] }[];
  /** (resource, transition) of every posting made: each may post once only. */
  transitions: { resource: string; transition: string }[];
  seq: number;
}

interface Real {
  world: TestWorld;
}

const usdc = () => ({ code: "USDC", decimals: 6, stablecoin: true, chains: ["base", "solana"] });

async function command<T>(real: Real, fn: (uow: UnitOfWork) => Promise<Result<T, ApiError>>) {
  return runCommand(engineDeps(real.world.engine), real.world.ctx, fn);
}

class Fund implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly chain: Chain,
    readonly amount: bigint,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const entries = (await command(r, (uow) => uow.ledger.fund(r.world.accountId, "USDC", this.chain, this.amount, null)))._unsafeUnwrap();
    m.books[this.chain].available += this.amount;
    m.funds.push({ chain: this.chain, amount: this.amount, entries });
  }
  toString = () => `Fund(${this.chain}, ${this.amount})`;
}

class Reserve implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly chain: Chain,
    readonly amount: bigint,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const result = await command(r, (uow) =>
      uow.ledger.reserve({ accountId: r.world.accountId, asset: usdc(), chain: this.chain, amount: this.amount, resource: "lo_test" }),
    );
    if (m.books[this.chain].available >= this.amount) {
      const reservation = result._unsafeUnwrap();
      m.books[this.chain].available -= this.amount;
      m.books[this.chain].reserved += this.amount;
      m.reservations.push({ id: reservation.id, chain: this.chain, remaining: this.amount, resolved: false });
    } else {
      expect(result.isErr() && result.error.code).toBe("insufficient_funds");
    }
  }
  toString = () => `Reserve(${this.chain}, ${this.amount})`;
}

class Capture implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly index: number,
    readonly percent: bigint,
    readonly final: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.reservations.length > 0;
  async run(m: Model, r: Real) {
    const res = m.reservations[this.index % m.reservations.length]!;
    const amount = (res.remaining * this.percent) / 100n;
    const transition = `capture:${m.seq++}`;
    const attempt = command(r, (uow) => uow.ledger.capture(r.world.accountId, res.id!, amount, COUNTER.outbound, { transition, final: this.final }));
    if (res.resolved) {
      await expect(attempt).rejects.toBeInstanceOf(LedgerInvariantError);
      return;
    }
    (await attempt)._unsafeUnwrap();
    m.transitions.push({ resource: "lo_test", transition });
    const books = m.books[res.chain];
    books.reserved -= this.final ? res.remaining : amount;
    if (this.final) books.available += res.remaining - amount;
    res.remaining = this.final ? 0n : res.remaining - amount;
    res.resolved = res.remaining === 0n;
  }
  toString = () => `Capture(#${this.index}, ${this.percent}%, final=${this.final})`;
}

class Release implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.reservations.length > 0;
  async run(m: Model, r: Real) {
    const res = m.reservations[this.index % m.reservations.length]!;
    const attempt = command(r, (uow) => uow.ledger.release(r.world.accountId, res.id!));
    if (res.resolved) {
      // a reservation resolves once: the second resolution is refused and changes nothing
      await expect(attempt).rejects.toBeInstanceOf(LedgerInvariantError);
      return;
    }
    (await attempt)._unsafeUnwrap();
    m.books[res.chain].reserved -= res.remaining;
    m.books[res.chain].available += res.remaining;
    res.remaining = 0n;
    res.resolved = true;
  }
  toString = () => `Release(#${this.index})`;
}

class InboundPending implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly chain: Chain,
    readonly amount: bigint,
    readonly settle: boolean,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const lines = this.settle
      ? transfer("USDC", this.chain, "pending", "available", this.amount)
      : transfer("USDC", this.chain, COUNTER.inbound, "pending", this.amount);
    const transition = `inbound:${m.seq++}`;
    const result = await command(r, (uow) => uow.ledger.post({ accountId: r.world.accountId, resource: "pi_test", transition, lines }));
    const books = m.books[this.chain];
    if (result.isOk()) m.transitions.push({ resource: "pi_test", transition });
    if (!this.settle) {
      result._unsafeUnwrap();
      books.pending += this.amount;
    } else if (books.pending >= this.amount) {
      result._unsafeUnwrap();
      books.pending -= this.amount;
      books.available += this.amount;
    } else {
      expect(result.isErr() && result.error.code).toBe("insufficient_funds");
    }
  }
  toString = () => `Inbound(${this.chain}, ${this.amount}, settle=${this.settle})`;
}

class ReverseFund implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.funds.length > 0;
  async run(m: Model, r: Real) {
    const fund = m.funds[this.index % m.funds.length]!;
    const result = await command(r, (uow) => uow.ledger.reverse(r.world.accountId, fund.entries, null, "reverse"));
    if (m.books[fund.chain].available >= fund.amount) {
      result._unsafeUnwrap();
      m.books[fund.chain].available -= fund.amount;
    } else {
      expect(result.isErr() && result.error.code).toBe("insufficient_funds");
    }
  }
  toString = () => `ReverseFund(#${this.index})`;
}

/** A transition that posted already, posted again (a retried step): refused, and nothing moves. */
class RepeatTransition implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.transitions.length > 0;
  async run(m: Model, r: Real) {
    const { resource, transition } = m.transitions[this.index % m.transitions.length]!;
    const lines = transfer("USDC", "base", COUNTER.external, "available", 1n);
    await expect(command(r, (uow) => uow.ledger.post({ accountId: r.world.accountId, resource, transition, lines }))).rejects.toThrow();
  }
  toString = () => `RepeatTransition(#${this.index})`;
}

const amount = fc.bigInt({ min: 1n, max: 1_000n });
const chain = fc.constantFrom(...CHAINS);
const fund = fc.tuple(chain, fc.bigInt({ min: 1n, max: 5_000n })).map(([c, a]) => new Fund(c, a));
const reserve = fc.tuple(chain, amount).map(([c, a]) => new Reserve(c, a));
// funding and reserving are listed twice so most runs reach reservations worth resolving
const commands = [
  fund,
  fund,
  reserve,
  reserve,
  fc.tuple(fc.nat(), fc.bigInt({ min: 0n, max: 100n }), fc.boolean()).map(([i, p, f]) => new Capture(i, p, f)),
  fc.nat().map((i) => new Release(i)),
  fc.tuple(chain, amount, fc.boolean()).map(([c, a, s]) => new InboundPending(c, a, s)),
  fc.nat().map((i) => new ReverseFund(i)),
  fc.nat().map((i) => new RepeatTransition(i)),
];

/**
 * The ledger's invariants (docs/decisions.md §4: double entry), read through the independent read
 * path: every posting nets to zero, each balance is the sum of its entries and no customer book is
 * below zero, the books and reservations are the model's.
 */
async function checkInvariants(m: Model, r: Real) {
  const { inspect } = r.world.harness;
  const entries = await inspect.entries(r.world.accountId);
  expect(entries.reduce((a, e) => a + e.amount, 0n)).toBe(0n);
  const postings = new Map<string, bigint>();
  for (const e of entries) postings.set(e.postingId, (postings.get(e.postingId) ?? 0n) + e.amount);
  for (const net of postings.values()) expect(net).toBe(0n);

  const balances = await inspect.balances(r.world.accountId);
  const sums = new Map<string, bigint>();
  for (const e of entries) sums.set(`${e.chain}/${e.book}`, (sums.get(`${e.chain}/${e.book}`) ?? 0n) + e.amount);
  for (const b of balances) {
    expect(b.amount).toBe(sums.get(`${b.chain}/${b.book}`) ?? 0n);
    if (!b.book.startsWith("counter:")) expect(b.amount >= 0n).toBe(true);
  }
  for (const c of CHAINS) {
    for (const book of ["available", "reserved", "pending"] as const) {
      expect(balances.find((b) => b.chain === c && b.book === book)?.amount ?? 0n).toBe(m.books[c][book]);
    }
  }
  const stored = new Map((await inspect.reservations(r.world.accountId)).map((x) => [x.id, x]));
  for (const res of m.reservations) {
    const row = stored.get(res.id!)!;
    expect(row.remaining).toBe(res.remaining);
    expect(row.status).toBe(res.resolved ? "resolved" : "active");
  }
  const reservedSum = m.reservations.filter((x) => !x.resolved).reduce((a, x) => a + x.remaining, 0n);
  expect(reservedSum).toBe(m.books.base.reserved + m.books.solana.reserved);
}

for (const kind of storageKinds()) {
  describe(`ledger invariants on ${kind.name}`, () => {
    it("postings net to zero, no customer book goes negative, reservations resolve once", async () => {
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { maxCommands: 25 }), async (cmds) => {
          const world = await testWorld(kind);
          try {
            const model: Model = {
              books: { base: zero(), solana: zero() },
              reservations: [],
              funds: [],
              transitions: [],
              seq: 0,
            };
            const real: Real = { world };
            await fc.asyncModelRun(() => ({ model, real }), [...cmds].flatMap((c) => [c, new CheckAll()]) as Iterable<fc.AsyncCommand<Model, Real>>);
          } finally {
            await world.close();
          }
        }),
        { numRuns: kind.name === "memory" ? 150 : 30 },
      );
    });
  });
}

class CheckAll implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  run = checkInvariants;
  toString = () => "check";
}

function zero(): Books {
  return { available: 0n, reserved: 0n, pending: 0n };
}

afterAll(closeSharedStorage);
