import { asset, chain, FINALITIES, listOf, money, txHash } from "../../api/common-objects";
import { metadataObject } from "../../metadata/metadata";
import { o, type ResponseSchema } from "../../api/response-schema";
import { ledgerEntries } from "../../ledger/ledger-objects";
import { Recipient } from "../recipients/recipient-objects";
import { BATCH_STATUSES } from "./batch-machine";
import { LEG_STATUSES } from "./leg-machine";
import { PAYOUT_STATUSES } from "./payout-machine";

export const PayoutBatch = o.named(
  "PayoutBatch",
  o.object(
    {
      id: o.id("bat"),
      object: o.literal("payout_batch"),
      status: o.enum(BATCH_STATUSES),
      reference: o.nullable(o.string({ example: "march-payroll" })),
      funding: o.object({ asset: asset(), source: o.literal("auto") }),
      leg_count: o.integer({ minimum: 1 }),
      total_amount: money("Sum of the legs' amounts, in the funding asset"),
      counts: o.object(
        Object.fromEntries(PAYOUT_STATUSES.map((s) => [s, o.optional(o.integer({ minimum: 0 }))])) as {
          [K in (typeof PAYOUT_STATUSES)[number]]: ResponseSchema<number> & { optional: true };
        },
        { description: "Payouts of the batch per status" },
      ),
      metadata: metadataObject,
      created: o.time(),
      completed_at: o.nullable(o.time()),
    },
    { description: "Up to 25,000 payouts submitted at once (docs/decisions.md §4)" },
  ),
);

export const PayoutBatchValidation = o.named(
  "PayoutBatchValidation",
  o.object(
    {
      object: o.literal("payout_batch_validation"),
      valid: o.true(),
      leg_count: o.integer({ minimum: 1 }),
      total_amount: o.decimal(),
    },
    { description: "The answer to `dry_run=true`: the batch would be accepted" },
  ),
);

export const PayoutLeg = o.named(
  "PayoutLeg",
  o.object(
    {
      id: o.id("leg"),
      object: o.literal("payout_leg"),
      payout: o.optional(o.id("po", { description: "The leg's payout (in `payout.leg.broadcast` events)" })),
      chain: chain(),
      amount: money("What the recipient receives on this chain"),
      fee: money("The leg's network fee, charged on top"),
      status: o.enum(LEG_STATUSES),
      tx_hash: o.nullable(txHash),
      confirmations: o.integer({ minimum: 0 }),
      finality: o.enum(FINALITIES),
      failure_code: o.nullable(o.string({ example: "transfer_failed" })),
    },
    { description: "One transfer of a payout on one chain; leg amounts sum exactly to the payout's" },
  ),
);

export const Payout = o.named(
  "Payout",
  o.object(
    {
      id: o.id("po"),
      object: o.literal("payout"),
      status: o.enum(PAYOUT_STATUSES),
      amount: money("What the recipient receives"),
      asset: asset(),
      recipient: o.anyOf(o.id("rcp"), Recipient, { description: "The recipient's id; the recipient with `expand[]=recipient`" }),
      reference: o.nullable(o.string({ example: "invoice-1042" })),
      batch: o.nullable(o.anyOf(o.id("bat"), PayoutBatch), { description: "The batch's id (null for a single payout); the batch with `expand[]=batch`" }),
      row: o.nullable(o.integer({ minimum: 0, description: "The payout's row in its batch" })),
      fee: money("Total network fee, charged on top of the amount"),
      legs: o.array(PayoutLeg),
      ledger_entries: ledgerEntries,
      metadata: metadataObject,
      created: o.time(),
      canceled_at: o.nullable(o.time()),
      settled_at: o.nullable(o.time()),
    },
    { description: "Money sent to a recipient, routed across one or more chains" },
  ),
);

export const PayoutList = listOf("Payout", Payout);
export const PayoutBatchList = listOf("PayoutBatch", PayoutBatch);

/** A batch submission's answer: the batch, or with `dry_run=true` its validation. */
export const PayoutBatchOrValidation = o.named("PayoutBatchOrValidation", o.anyOf(PayoutBatch, PayoutBatchValidation));
