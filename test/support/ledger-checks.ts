import { expect } from "vitest";
import type { StorageInspector } from "../../src/conformance";

/**
 * The ledger's invariants read through the independent inspector, over `accountIds` (a customer
 * and the house account its postings reach): every posting nets to zero per asset across them,
 * every balance row equals the sum of its entries, and no customer book is negative.
 */
export async function expectLedgerConsistent(inspect: StorageInspector, ...accountIds: string[]): Promise<void> {
  const perPosting = new Map<string, bigint>();
  for (const accountId of accountIds) {
    const entries = await inspect.entries(accountId);
    const perRow = new Map<string, bigint>();
    for (const e of entries) {
      const posting = `${e.postingId}/${e.asset}`;
      perPosting.set(posting, (perPosting.get(posting) ?? 0n) + e.amount);
      const row = `${e.asset}/${e.chain}/${e.book}`;
      perRow.set(row, (perRow.get(row) ?? 0n) + e.amount);
    }
    for (const b of await inspect.balances(accountId)) {
      expect(b.amount, `balance ${accountId} ${b.asset}/${b.chain}/${b.book}`).toBe(perRow.get(`${b.asset}/${b.chain}/${b.book}`) ?? 0n);
      if (!b.book.startsWith("counter:")) expect(b.amount >= 0n, `customer book ${b.asset}/${b.chain}/${b.book} is not negative`).toBe(true);
    }
  }
  for (const [posting, sum] of perPosting) expect(sum, `posting ${posting} nets to zero`).toBe(0n);
}
