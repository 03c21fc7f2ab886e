import { asset, chain, listOf, txHash } from "../../api/common-objects";
import { o } from "../../api/response-schema";
import { RECONCILIATION_STATUSES } from "./reconciliation-doc";

const signed = (description: string) => o.signedDecimal({ description: `${description}; may be negative`, example: "-3" });

const summaryFields = {
  id: o.id("rec"),
  object: o.literal("reconciliation"),
  livemode: o.boolean(),
  chain: chain(),
  asset: asset(),
  status: o.enum(RECONCILIATION_STATUSES, { description: "`drift` when the chain and the books disagree: see `difference`" }),
  on_chain: signed("What the engine's addresses on the chain hold of the asset: the hot wallet and every deposit address"),
  in_books: signed("What the ledger says they should hold (its parts are in `explanation.in_books`)"),
  difference: signed("`on_chain − in_books`: positive, the chain holds money the books do not know of; negative, money left that the books still count"),
  created: o.time(),
};

/** A reconciliation as lists show it (docs/decisions.md §12). */
export const ReconciliationSummary = o.named(
  "ReconciliationSummary",
  o.object(summaryFields, { description: "One reading of a chain's holdings of one asset against the books" }),
);

/** A reconciliation with what explains its difference. */
export const Reconciliation = o.named(
  "Reconciliation",
  o.object(
    {
      ...summaryFields,
      explanation: o.object(
        {
          read_at: o.string({ description: "Where the chain was read: a block number (EVM), a slot (Solana), a height (the simulations)" }),
          on_chain: o.object({
            hot_wallet: o.object({ address: o.string(), amount: signed("What it holds") }),
            deposit_addresses: signed("What every deposit address holds, in all"),
          }),
          in_books: o.object(
            {
              balances: signed("Every account's available, reserved and pending (customers and the house)"),
              operator_fees: signed("Network fees customers paid, which the operator holds on chain until spent"),
              unallocated: signed("Deposits credited to no account (after expiry, another asset or chain), held for the payer"),
              off_chain: signed("What was booked without touching the chain (test funding, venues off chain), taken back out"),
              network_fees_paid: signed("What the engine's own transactions paid the network in this asset, taken out"),
              in_flight: signed("Legs the chain carried that the books still hold reserved until final, taken out"),
              float: signed("The operator's own funds: what the first reading found beyond the books, and differences accepted since"),
            },
            { description: "The parts `in_books` sums" },
          ),
          addresses: o.array(
            o.object({ address: o.string(), holds: signed("What the address holds"), deposits_read: signed("What the deposits read on it account for") }),
            { description: "Deposit addresses holding more than the deposits the engine read on them: money it never credited" },
          ),
          transactions: o.array(
            o.object({
              tx_hash: txHash,
              address: o.string({ description: "The engine's address it moved money into or out of" }),
              amount: signed("Positive into the address, negative out of it"),
              read_at: o.nullable(o.string({ description: "Its block or slot" })),
            }),
            { description: "Transfers in or out of the engine's addresses that the engine neither made nor read: what explains a difference" },
          ),
          opening: o.boolean({ description: "The first reading of this chain and asset: what the chain held beyond the books became the float" }),
          accepted: o.nullable(
            o.object({ at: o.time(), reason: o.string() }, { description: "The operator accepted the difference as the float's (a top-up of the hot wallet)" }),
          ),
        },
        { description: "What the figures are made of, and what may explain a difference" },
      ),
    },
    { description: "One reading of a chain's holdings of one asset against the books, with what explains the difference" },
  ),
);

export const ReconciliationList = listOf("ReconciliationSummary", ReconciliationSummary);
