import { asset, chain, listOf, money } from "../api/common-objects";
import { o } from "../api/response-schema";

/** The ledger's objects: its entries and the balances they sum to. */

export const LedgerEntry = o.named(
  "LedgerEntry",
  o.object(
    {
      id: o.id("le"),
      object: o.literal("ledger_entry"),
      asset: asset(),
      chain: chain(),
      amount: o.signedDecimal({ description: "Signed: positive adds to the book, negative takes from it" }),
      balance_type: o.enum(["available", "reserved", "pending"] as const),
      resource: o.nullable(o.string({ description: "Id of the resource whose transition posted the entry", example: "po_01jd5x3kq8b7m2c9v4n6p0r1s2" })),
      created: o.time(),
    },
    { description: "One entry of the account's double-entry ledger (append-only)" },
  ),
);

export const ledgerEntries = o.anyOf(o.array(o.id("le")), o.array(LedgerEntry), {
  description: "Ids of the ledger entries, oldest first; the entries with `expand[]=ledger_entries`",
});

export const balanceAmounts = {
  available: money("Spendable now"),
  reserved: money("Held by created or executing payouts and working limit orders"),
  pending: money("Inbound, not yet final"),
};

export const Balance = o.named(
  "Balance",
  o.object(
    {
      object: o.literal("balance"),
      asset: asset(),
      ...balanceAmounts,
      chains: o.record(o.object(balanceAmounts), { description: "The same per chain the asset exists on (zeros included)" }),
      as_of: o.time(),
    },
    { description: "An asset's balance across its chains (docs/decisions.md §4)" },
  ),
);

export const BalanceList = listOf("Balance", Balance);
export const LedgerEntryList = listOf("LedgerEntry", LedgerEntry);
