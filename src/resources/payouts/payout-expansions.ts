import { docField, ledgerEntriesField, type Expandable } from "../../lists/expansion";
import { RECIPIENTS, presentRecipient } from "../recipients/recipients-service";
import { BATCHES, presentBatch } from "./batch-doc";

/** What `expand[]` replaces in a payout: its recipient, its batch and its ledger entries. */
export const PAYOUT_EXPANDABLE: Expandable = {
  fields: {
    recipient: docField("recipient", RECIPIENTS, (doc) => presentRecipient(doc)),
    batch: docField("batch", BATCHES, (doc, deps) => presentBatch(deps.assets, doc)),
    ledger_entries: ledgerEntriesField(),
  },
};

export const PAYOUT_EXPAND_PATHS = ["recipient", "batch", "ledger_entries"] as const;
