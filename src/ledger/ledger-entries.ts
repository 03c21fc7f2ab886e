import type { LedgerEntry } from "./ledger-objects";
import type { Out } from "../api/response-schema";
import type { AssetRegistry } from "../money/assets";
import { formatAmount } from "../money/amount";
import type { LedgerEntryRecord } from "../ports/storage";
import { isoTime } from "../validation/timestamp";
import { isCustomerBook } from "./postings";

/** The ledger entry object of docs/decisions.md §4. */
export type LedgerEntryObject = Out<typeof LedgerEntry>;

/** The account's entries only: counter-account entries stay inside the engine. */
export function presentLedgerEntries(assets: AssetRegistry, entries: readonly LedgerEntryRecord[]): LedgerEntryObject[] {
  return entries
    .filter((e) => isCustomerBook(e.book))
    .map((e) => ({
      id: e.id,
      object: "ledger_entry" as const,
      asset: e.asset,
      chain: e.chain,
      amount: formatAmount(e.amount, assets.get(e.asset)!),
      balance_type: e.book as "available" | "reserved" | "pending",
      resource: e.resource,
      created: isoTime(e.created),
    }));
}
