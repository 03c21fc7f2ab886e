import { asset, chain, FINALITIES, listOf, money, txHash } from "../../api/common-objects";
import { o, type NamedSchema, type Out, type ResponseSchema } from "../../api/response-schema";
import { ledgerEntries } from "../../ledger/ledger-objects";
import { PAYMENT_INTENT_STATUSES } from "./payment-intent-machine";
import { metadataObject } from "../../metadata/metadata";

/** The settlement's `payment_intent` refers back to its intent; declared lazily (the two are mutually recursive). */
const paymentIntentRef: ResponseSchema<PaymentIntentObject> = { json: { $ref: "#/components/schemas/PaymentIntent" } };

export const Settlement = o.named(
  "Settlement",
  o.object(
    {
      id: o.id("stl"),
      object: o.literal("settlement"),
      payment_intent: o.anyOf(o.id("pi"), paymentIntentRef, {
        description: "The payment intent's id; the payment intent with `expand[]=settlements.payment_intent`",
      }),
      chain: chain(),
      asset: asset(),
      amount: o.decimal(),
      tx_hash: txHash,
      confirmations: o.integer({ minimum: 0 }),
      finality: o.enum(FINALITIES),
      status: o.enum(["pending", "credited", "reversed", "not_credited"] as const),
      reason: o.nullable(o.enum(["unsupported_chain", "unsupported_asset", "after_expiry"] as const, { description: "Why a deposit was not credited" })),
      unrecovered: money('What a reversal could not take back (the account had spent it); "0" otherwise'),
      created: o.time(),
    },
    { description: "One deposit to a payment intent's address and what the ledger did with it" },
  ),
);

const paymentIntentShape = o.object(
  {
    id: o.id("pi"),
    object: o.literal("payment_intent"),
    status: o.enum(PAYMENT_INTENT_STATUSES),
    amount: o.decimal(),
    asset: asset(),
    amount_received: money("Credited at finality"),
    amount_pending: money("Seen on chain and credited as pending, not yet final"),
    amount_excess: money("What was received beyond `amount`"),
    tolerance: o.decimal({ description: "Fraction of `amount` a short payment may miss and still succeed" }),
    chains: o.array(chain()),
    reference: o.nullable(o.string({ example: "order-881" })),
    deposit_addresses: o.record(o.string(), { description: "The address to pay per chain" }),
    settlements: o.anyOf(o.array(o.id("stl")), o.array(Settlement), { description: "Settlement ids; the settlements with `expand[]=settlements`" }),
    ledger_entries: ledgerEntries,
    expires_at: o.time(),
    metadata: metadataObject,
    created: o.time(),
  },
  { description: "A request to be paid an amount on chain (docs/decisions.md §4)" },
);
/** The payment intent object (an interface: it and its settlements refer to each other). */
export interface PaymentIntentObject extends Out<typeof paymentIntentShape> {}
export const PaymentIntent: NamedSchema<PaymentIntentObject> = o.named("PaymentIntent", paymentIntentShape);

export const PaymentIntentList = listOf("PaymentIntent", PaymentIntent);
