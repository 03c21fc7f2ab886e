import { afterAll, describe, expect, it } from "vitest";
import { runCommand } from "../../src/engine/command";
import { testWorld } from "../support/engine";
import { closeSharedStorage, storageKinds } from "../support/storage";
import { engineDeps } from "../../src/engine/engine";

/**
 * The acceptance test: 200 reservations at once against a balance that covers 100. On a
 * PostgreSQL server (DATABASE_URL) they really run concurrently over a pool of 20 sessions and
 * race for the balance row's lock; memory and PGlite run them one after another.
 */
for (const kind of storageKinds()) {
  describe(`concurrent reservations on ${kind.name}`, () => {
    it("200 reservations against a balance covering 100 accept exactly 100 and end at zero", async () => {
      const w = await testWorld(kind);
      try {
        (await w.engine.testHelpers.fund(w.ctx, { asset: "USDC", chain: "base", amount: "100" }))._unsafeUnwrap();
        const usdc = w.engine.assets.get("USDC")!;
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            runCommand(engineDeps(w.engine), w.ctx, (uow) =>
              uow.ledger.reserve({ accountId: w.accountId, asset: usdc, chain: "base", amount: 1_000_000n, resource: `lo_${i}` }),
            ),
          ),
        );
        const accepted = results.filter((r) => r.isOk());
        const refused = results.filter((r) => r.isErr());
        expect(accepted).toHaveLength(100);
        expect(refused.every((r) => r.isErr() && r.error.code === "insufficient_funds")).toBe(true);

        const balances = await w.harness.inspect.balances(w.accountId);
        const book = (name: string) => balances.find((b) => b.chain === "base" && b.book === name)?.amount;
        expect(book("available")).toBe(0n);
        expect(book("reserved")).toBe(100_000_000n);
        expect(balances.every((b) => b.book.startsWith("counter:") || b.amount >= 0n)).toBe(true);
        expect(await w.harness.inspect.reservations(w.accountId)).toHaveLength(100);
        const entries = await w.harness.inspect.entries(w.accountId);
        expect(entries.reduce((a, e) => a + e.amount, 0n)).toBe(0n);
        expect(entries).toHaveLength(2 + 2 * 100);
      } finally {
        await w.close();
      }
    });
  });
}

afterAll(closeSharedStorage);
