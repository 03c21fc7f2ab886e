import fc from "fast-check";
import { err, ok, type Result } from "neverthrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../src/engine/command";
import { systemContext } from "../../src/engine/context";
import { engineDeps } from "../../src/engine/engine";
import type { UnitOfWork } from "../../src/engine/unit-of-work";
import type { ApiError } from "../../src/errors";
import type { PostRequest, Refusal, ReserveRequest } from "../../src/ledger/ledger";
import { COUNTER, transfer } from "../../src/ledger/postings";
import type { Book, LedgerEntryRecord } from "../../src/ports/storage";
import { testWorld, type TestWorld } from "../support/engine";
import { closeSharedStorage, storageKinds } from "../support/storage";

/**
 * The ledger's bulk paths (`postMany`, `reserveMany`: what a 25,000-leg batch reserves through)
 * against the one-at-a-time calls they stand for: the same requests, bulk in one account and one
 * by one in a twin account funded alike, leave the same balances, the same entries per request
 * and the same reservations; a shortage refuses the bulk call at the index where the one-by-one
 * run first failed, and the bulk call then leaves nothing behind.
 */
const CHAINS = ["base", "solana"] as const;
const BOOKS: Book[] = ["available", "reserved", "pending", COUNTER.external];

const chain = fc.constantFrom(...CHAINS);
const funding = fc.record({ base: fc.bigInt({ min: 0n, max: 2_000n }), solana: fc.bigInt({ min: 0n, max: 2_000n }) });
const reserves = fc.array(fc.tuple(chain, fc.bigInt({ min: 1n, max: 400n })), { minLength: 0, maxLength: 30 });
const postings = fc.array(
  fc.tuple(chain, fc.constantFrom(...BOOKS), fc.constantFrom(...BOOKS), fc.bigInt({ min: 1n, max: 400n })).filter(([, from, to]) => from !== to),
  { minLength: 0, maxLength: 30 },
);

for (const kind of storageKinds()) {
  describe(`the ledger's bulk paths on ${kind.name}`, () => {
    let world: TestWorld;
    beforeAll(async () => {
      world = await testWorld(kind);
    });
    afterAll(() => world.close());
    const runs = kind.name === "memory" ? 120 : 20;

    /** Two fresh accounts funded alike: one for the bulk call, one for the calls one by one. */
    async function twins(funds: Record<(typeof CHAINS)[number], bigint>): Promise<[string, string]> {
      const ids: string[] = [];
      for (const name of ["bulk", "single"]) {
        const id = (await world.engine.accounts.create({ name })).id;
        for (const c of CHAINS) {
          if (funds[c] > 0n) (await command(id, (uow) => uow.ledger.fund(id, "USDC", c, funds[c], null)))._unsafeUnwrap();
        }
        ids.push(id);
      }
      return [ids[0]!, ids[1]!];
    }

    function command<T>(accountId: string, fn: (uow: UnitOfWork) => Promise<Result<T, ApiError>>) {
      return runCommand(engineDeps(world.engine), systemContext(accountId, false), fn);
    }

    /** Runs `one` for each request in order, in one command; the first refusal rolls back, with its index. */
    function oneByOne<R, T>(accountId: string, requests: R[], one: (uow: UnitOfWork, r: R) => Promise<Result<T, ApiError>>) {
      let failed = -1;
      return command(accountId, async (uow) => {
        const out: T[] = [];
        for (const [i, r] of requests.entries()) {
          const made = await one(uow, r);
          if (made.isErr()) {
            failed = i;
            return err(made.error);
          }
          out.push(made.value);
        }
        return ok(out);
      }).then((r) => ({ result: r, failed }));
    }

    /** Runs a bulk call in one command; a refusal rolls back, with its index. */
    function bulk<T>(accountId: string, call: (uow: UnitOfWork) => Promise<Result<T, Refusal>>) {
      let refusal: Refusal | null = null;
      return command(accountId, async (uow) => {
        const made = await call(uow);
        if (made.isErr()) {
          refusal = made.error;
          return err(made.error.error);
        }
        return ok(made.value);
      }).then((r) => ({ result: r, refusal: refusal as Refusal | null }));
    }

    /**
     * When the calls one by one were refused: the bulk call was refused at the same index and left
     * the account as it was (true). Otherwise the bulk call was not refused either (false).
     */
    async function refusedAlike(
      many: { refusal: Refusal | null },
      single: { result: Result<unknown, ApiError>; failed: number },
      accountId: string,
      before: Awaited<ReturnType<typeof state>>,
    ): Promise<boolean> {
      if (single.result.isOk()) {
        expect(many.refusal).toBeNull();
        return false;
      }
      expect(many.refusal?.index).toBe(single.failed);
      expect(many.refusal?.error.code).toBe("insufficient_funds");
      expect(await state(accountId)).toEqual(before);
      return true;
    }

    async function state(accountId: string) {
      const { inspect } = world.harness;
      return {
        balances: (await inspect.balances(accountId)).map((b) => `${b.chain}/${b.book}=${b.amount}`).sort(),
        entries: (await inspect.entries(accountId)).map(shape).sort(),
        reservations: (await inspect.reservations(accountId))
          .sort((a, b) => (a.id < b.id ? -1 : 1))
          .map((r) => `${r.chain} ${r.amount} ${r.remaining} ${r.status} ${r.resource}`),
      };
    }

    it("reserveMany equals reserve one by one, and a refusal leaves nothing", async () => {
      const usdc = engineDeps(world.engine).assets.get("USDC")!;
      await fc.assert(
        fc.asyncProperty(funding, reserves, async (funds, wanted) => {
          const [a, b] = await twins(funds);
          const request =
            (accountId: string) =>
            ([c, amount]: (typeof wanted)[number], i: number): ReserveRequest => ({ accountId, asset: usdc, chain: c, amount, resource: `po_${i}` });
          const before = await state(a);
          const many = await bulk(a, (uow) => uow.ledger.reserveMany(wanted.map(request(a))));
          const single = await oneByOne(b, wanted.map(request(b)), (uow, r) => uow.ledger.reserve(r));
          if (await refusedAlike(many, single, a, before)) return;
          const made = many.result._unsafeUnwrap();
          const one = single.result._unsafeUnwrap();
          expect(made.map((m) => [m.reservation.chain, m.reservation.amount, m.reservation.resource])).toEqual(one.map((r) => [r.chain, r.amount, r.resource]));
          // each reservation's own posting: available to reserved, amount for amount
          for (const [i, m] of made.entries()) {
            expect(m.entries.map(shape)).toEqual([
              `${m.reservation.chain} available -${wanted[i]![1]} 0 po_${i}`,
              `${m.reservation.chain} reserved ${wanted[i]![1]} 1 po_${i}`,
            ]);
            expect(new Set(m.entries.map((e) => e.postingId)).size).toBe(1);
          }
          expect(new Set(made.flatMap((m) => m.entries.map((e) => e.postingId))).size).toBe(made.length);
          expect(await state(a)).toEqual(await state(b));
        }),
        { numRuns: runs },
      );
    });

    it("postMany equals post one by one, and a refusal leaves nothing", async () => {
      await fc.assert(
        fc.asyncProperty(funding, postings, async (funds, wanted) => {
          const [a, b] = await twins(funds);
          const request =
            (accountId: string) =>
            ([c, from, to, amount]: (typeof wanted)[number], i: number): PostRequest => ({
              accountId,
              resource: `pi_${i}`,
              transition: "move",
              lines: transfer("USDC", c, from, to, amount),
            });
          const before = await state(a);
          const many = await bulk(a, (uow) => uow.ledger.postMany(wanted.map(request(a))));
          const single = await oneByOne(b, wanted.map(request(b)), (uow, r) => uow.ledger.post(r));
          if (await refusedAlike(many, single, a, before)) return;
          expect(many.result._unsafeUnwrap().map((entries) => entries.map(shape))).toEqual(single.result._unsafeUnwrap().map((entries) => entries.map(shape)));
          expect(await state(a)).toEqual(await state(b));
        }),
        { numRuns: runs },
      );
    });
  });
}

/** An entry without what differs between twin accounts (ids, the account). */
function shape(e: LedgerEntryRecord): string {
  return `${e.chain} ${e.book} ${e.amount} ${e.line} ${e.resource}`;
}

afterAll(closeSharedStorage);
