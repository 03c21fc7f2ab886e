import { ERROR_CATALOGUE, type ErrorCode } from "../errors";
import { EVENT_TYPES } from "../events/catalogue";
import { REPORT_TYPES } from "../resources/reports/report-doc";
import { SCOPES } from "../resources/api-keys/api-key-schemas";
import { o, type NamedSchema, type Out, type ResponseSchema } from "./response-schema";

/**
 * Every object the /v1 API answers, as response schemas (DECISIONS.md §1–§5). The presenters'
 * return types are derived from these (`RecipientObject = Out<typeof Recipient>`), and the
 * OpenAPI document's components are these, so what the document promises is what the code
 * answers.
 */

/** Asset codes and chain names: the document's `AssetCode` and `ChainName` list the registry's. */
export const ASSET_CODE = "AssetCode";
export const CHAIN_NAME = "ChainName";
const asset = (description = "Asset code of the registry (DECISIONS.md §1)"): ResponseSchema<string> => ({
  json: { $ref: `#/components/schemas/${ASSET_CODE}`, description },
});
const chain = (description = "Chain name of the registry (DECISIONS.md §1)"): ResponseSchema<string> => ({
  json: { $ref: `#/components/schemas/${CHAIN_NAME}`, description },
});

const FINALITIES = ["pending", "included", "final", "reverted"] as const;
const money = (description: string) => o.decimal({ description });
const txHash = o.string({ description: "The transaction's hash on its chain", example: "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060" });

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

const ledgerEntries = o.anyOf(o.array(o.id("le")), o.array(LedgerEntry), {
  description: "Ids of the ledger entries, oldest first; the entries with `expand[]=ledger_entries`",
});

const balanceAmounts = {
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
    { description: "An asset's balance across its chains (DECISIONS.md §4)" },
  ),
);

export const Recipient = o.named(
  "Recipient",
  o.object(
    {
      id: o.id("rcp"),
      object: o.literal("recipient"),
      name: o.string({ example: "Ada Lovelace" }),
      chain_addresses: o.record(o.string({ example: "0x52908400098527886E0F7030069857D2E4169EE7" }), {
        description: "The recipient's address per chain",
      }),
      screening: o.boolean({ description: "Whether the screening provider is asked about the recipient" }),
      screening_status: o.enum(["not_screened", "pending", "cleared", "flagged"] as const, {
        description: "A flagged recipient cannot be paid (402 recipient_blocked)",
      }),
      created: o.time(),
    },
    { description: "Someone payouts go to" },
  ),
);

export const DeletedRecipient = o.named(
  "DeletedRecipient",
  o.object({ id: o.id("rcp"), object: o.literal("recipient"), deleted: o.true() }),
);

const PAYOUT_STATUS_VALUES = ["created", "executing", "settled", "partially_settled", "failed", "canceled"] as const;

export const PayoutBatch = o.named(
  "PayoutBatch",
  o.object(
    {
      id: o.id("bat"),
      object: o.literal("payout_batch"),
      status: o.enum(["processing", "completed"] as const),
      reference: o.nullable(o.string({ example: "march-payroll" })),
      funding: o.object({ asset: asset(), source: o.literal("auto") }),
      leg_count: o.integer({ minimum: 1 }),
      total_amount: money("Sum of the legs' amounts, in the funding asset"),
      counts: o.object(
        Object.fromEntries(PAYOUT_STATUS_VALUES.map((s) => [s, o.optional(o.integer({ minimum: 0 }))])) as {
          [K in (typeof PAYOUT_STATUS_VALUES)[number]]: ResponseSchema<number> & { optional: true };
        },
        { description: "Payouts of the batch per status" },
      ),
      created: o.time(),
      completed_at: o.nullable(o.time()),
    },
    { description: "Up to 25,000 payouts submitted at once (DECISIONS.md §4)" },
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
      status: o.enum(["pending", "broadcast", "confirmed", "failed"] as const),
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
      status: o.enum(PAYOUT_STATUS_VALUES),
      amount: money("What the recipient receives"),
      asset: asset(),
      recipient: o.anyOf(o.id("rcp"), Recipient, { description: "The recipient's id; the recipient with `expand[]=recipient`" }),
      reference: o.nullable(o.string({ example: "invoice-1042" })),
      batch: o.nullable(o.anyOf(o.id("bat"), PayoutBatch), { description: "The batch's id (null for a single payout); the batch with `expand[]=batch`" }),
      row: o.nullable(o.integer({ minimum: 0, description: "The payout's row in its batch" })),
      fee: money("Total network fee, charged on top of the amount"),
      legs: o.array(PayoutLeg),
      ledger_entries: ledgerEntries,
      created: o.time(),
      canceled_at: o.nullable(o.time()),
      settled_at: o.nullable(o.time()),
    },
    { description: "Money sent to a recipient, routed across one or more chains" },
  ),
);

const conversionSide = o.object({ asset: asset(), amount: o.decimal() });

export const Quote = o.named(
  "Quote",
  o.object(
    {
      id: o.id("qt"),
      object: o.literal("quote"),
      from: conversionSide,
      to: conversionSide,
      rate: o.decimal({ description: "Net output per input after all fees and impact, 18 decimals rounded down" }),
      price_impact: o.decimal({ description: "1 − gross / (amount · r0), r0 the best zero-size rate net of venue fees" }),
      network_fee: money("In `to.asset`: the fixed costs of the venues used"),
      platform_fee: money("In `to.asset`: zero on stablecoin pairs"),
      venues: o.array(o.object({ name: o.string({ example: "pool_a" }), weight: o.decimal({ description: "Share of the input, 6 decimals; weights sum to 1" }) })),
      approximate: o.boolean({ description: "True when a heuristic chose the venues (more than 12 of them with a fixed cost)" }),
      created: o.time(),
      expires_at: o.time(),
    },
    { description: "A firm price for a conversion, valid until `expires_at`; backs one swap" },
  ),
);

export const Swap = o.named(
  "Swap",
  o.object(
    {
      id: o.id("sw"),
      object: o.literal("swap"),
      status: o.enum(["executing", "settled", "failed"] as const),
      quote: o.anyOf(o.id("qt"), Quote, { description: "The quote's id; the quote with `expand[]=quote`" }),
      from: conversionSide,
      to: conversionSide,
      destination_chain: chain(),
      executed_rate: o.decimal({ description: "The quote's rate, or the refreshed quote's when `refreshed`" }),
      refreshed: o.boolean(),
      failure_code: o.nullable(o.string({ description: "`venue_rejected` when failed", example: "venue_rejected" })),
      created: o.time(),
      settled: o.nullable(o.time()),
    },
    { description: "A conversion executed at a quote" },
  ),
);

export const LimitOrderFill = o.named(
  "LimitOrderFill",
  o.object({
    id: o.id("fil"),
    from_amount: o.decimal(),
    to_amount: o.decimal(),
    rate: o.decimal({ description: "to_amount per from_amount, never below the order's target_rate" }),
    price_impact: o.decimal(),
    network_fee: o.decimal(),
    platform_fee: o.decimal(),
    created: o.time(),
  }),
);

export const LimitOrder = o.named(
  "LimitOrder",
  o.object(
    {
      id: o.id("lo"),
      object: o.literal("limit_order"),
      status: o.enum(["working", "partially_filled", "filled", "canceled"] as const),
      cancellation_reason: o.nullable(o.enum(["requested", "expired"] as const)),
      from: conversionSide,
      to: o.object({ asset: asset() }),
      destination_chain: chain(),
      target_rate: o.decimal(),
      partial_fills: o.boolean(),
      max_slippage: o.nullable(o.decimal()),
      filled: o.object({ from_amount: o.decimal(), to_amount: o.decimal() }),
      reserved_amount: money("What the order still holds reserved, in `from.asset`"),
      fills: o.array(LimitOrderFill),
      expires_at: o.time(),
      created: o.time(),
    },
    { description: "A conversion that waits for a target rate (DECISIONS.md §4)" },
  ),
);

const PAYMENT_INTENT_STATUS_VALUES = ["requires_payment", "processing", "succeeded", "partially_paid", "expired", "reverted", "unsupported_chain"] as const;

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
    status: o.enum(PAYMENT_INTENT_STATUS_VALUES),
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
    created: o.time(),
  },
  { description: "A request to be paid an amount on chain (DECISIONS.md §4)" },
);
/** The payment intent object (an interface: it and its settlements refer to each other). */
export interface PaymentIntentObject extends Out<typeof paymentIntentShape> {}
export const PaymentIntent: NamedSchema<PaymentIntentObject> = o.named("PaymentIntent", paymentIntentShape);

export const Event = o.named(
  "Event",
  o.object(
    {
      id: o.id("evt"),
      object: o.literal("event"),
      type: o.enum(EVENT_TYPES),
      created: o.time(),
      livemode: o.boolean(),
      data: o.object({ object: o.anyObject({ description: "The object the event is about, as the API answers it at the event's time" }) }),
      request: o.object(
        {
          id: o.nullable(o.string({ example: "req_01jd5x3kq8b7m2c9v4n6p0r1s2" })),
          idempotency_key: o.nullable(o.string()),
        },
        { description: "The API request that caused the event (also for work it started in the background)" },
      ),
    },
    { description: "Something that happened, as the API lists it and webhooks send it" },
  ),
);

const ENDPOINT_FILTERS = [...EVENT_TYPES, "*"] as const;

export const WebhookEndpoint = o.named(
  "WebhookEndpoint",
  o.object(
    {
      id: o.id("we"),
      object: o.literal("webhook_endpoint"),
      url: o.string({ format: "uri", example: "https://example.com/hooks" }),
      status: o.enum(["enabled", "disabled"] as const),
      disabled_reason: o.nullable(o.enum(["manual", "gone"] as const, { description: "gone: the receiver answered 410" })),
      enabled_events: o.array(o.enum(ENDPOINT_FILTERS)),
      description: o.nullable(o.string()),
      livemode: o.boolean(),
      created: o.time(),
      secret: o.optional(
        o.string({
          pattern: "^whsec_[A-Za-z0-9_-]{43}$",
          description: "The signing secret: in the answers to create and rotate_secret only, never in a replayed answer",
          example: "whsec_q3Kf0o8yJc2sWnX1vTzP5mR7bL9dA4eH6gU0iKjYxQw",
        }),
      ),
    },
    { description: "A receiver of signed webhook events" },
  ),
);

export const DeletedWebhookEndpointSchema = o.named(
  "DeletedWebhookEndpoint",
  o.object({ id: o.id("we"), object: o.literal("webhook_endpoint"), deleted: o.true() }),
);

export const WebhookDelivery = o.named(
  "WebhookDelivery",
  o.object(
    {
      id: o.id("dlv"),
      object: o.literal("webhook_delivery"),
      endpoint: o.id("we"),
      event: o.anyOf(o.id("evt"), Event, { description: "The event's id; the event with `expand[]=data.event`" }),
      event_type: o.enum(EVENT_TYPES),
      attempt: o.integer({ minimum: 1 }),
      trigger: o.enum(["scheduled", "replay", "manual"] as const),
      status: o.enum(["succeeded", "failed"] as const),
      response_status: o.nullable(o.integer({ description: "The receiver's HTTP status; null when none came (timeout, refused, reset)" })),
      latency_ms: o.integer({ minimum: 0 }),
      error: o.nullable(o.string({ example: "HTTP 500" })),
      created: o.time(),
      next_attempt_at: o.nullable(o.time()),
    },
    { description: "One attempt to deliver an event to an endpoint, kept 7 days" },
  ),
);

export const WebhookReplay = o.named(
  "WebhookReplay",
  o.object(
    { object: o.literal("webhook_replay"), endpoint: o.id("we"), from: o.time(), to: o.time(), event_count: o.integer({ minimum: 0 }) },
    { description: "Events of a window queued again for one endpoint" },
  ),
);

export const Report = o.named(
  "Report",
  o.object(
    {
      id: o.id("rpt"),
      object: o.literal("report"),
      type: o.enum(REPORT_TYPES),
      status: o.enum(["pending", "ready", "failed"] as const),
      format: o.enum(["csv"] as const),
      parameters: o.object(
        { created_gte: o.nullable(o.time()), created_lt: o.time() },
        { description: "The window, half-open: entries created at or after `created_gte` (null: from the start) and before `created_lt`" },
      ),
      row_count: o.nullable(o.integer({ minimum: 0, description: "Rows of the file, header excluded; null until ready" })),
      url: o.nullable(o.string({ format: "uri", description: "A download link minted for this answer, valid one hour; null unless ready" })),
      url_expires_at: o.nullable(o.time()),
      failure_reason: o.nullable(o.string()),
      created: o.time(),
      completed_at: o.nullable(o.time()),
    },
    { description: "A CSV file of ledger entries, built in the background" },
  ),
);

export const TestClock = o.named(
  "TestClock",
  o.object({ object: o.literal("test_clock"), now: o.time(), work_run: o.integer({ minimum: 0, description: "Due work items run while time moved" }) }),
);

export const TestChain = o.named(
  "TestChain",
  o.object({
    object: o.literal("test_chain"),
    chain: chain(),
    height: o.integer({ minimum: 0 }),
    reorganized: o.optional(o.integer({ minimum: 0, description: "Transfers the reorganisation moved out of the replaced blocks (reorg only)" })),
  }),
);

export const TestVenueHalt = o.named(
  "TestVenueHalt",
  o.object(
    {
      object: o.literal("test_venue_halt"),
      venue: o.string({ description: 'The venue (as quotes name it in venues[].name), or "all"', example: "all" }),
      halted_until: o.nullable(o.time({ description: "Until when it refuses to execute for this account; null once lifted" })),
    },
    { description: "A venue halted for this test-mode account (DECISIONS.md §10)" },
  ),
);

const perAsset = (description: string) => o.record(o.decimal(), { description });

export const Account = o.named(
  "Account",
  o.object(
    {
      id: o.id("acct"),
      object: o.literal("account"),
      name: o.string({ example: "Demo" }),
      livemode: o.boolean(),
      policy: o.object(
        {
          max_payout_amount: perAsset("Per asset, the largest payout (above it: 402 policy_limit_exceeded)"),
          approval_threshold: perAsset("Per asset, the amount above which a payout waits in created for approval"),
        },
        { description: "The account's payout policy (DECISIONS.md §3)" },
      ),
      created: o.time(),
    },
    { description: "The account an API key belongs to" },
  ),
);

export const ApiKey = o.named(
  "ApiKey",
  o.object(
    {
      id: o.id("key"),
      object: o.literal("api_key"),
      name: o.nullable(o.string({ description: "A label the owner chose" })),
      livemode: o.boolean(),
      scopes: o.array(o.enum(SCOPES), { description: "What the key may do; empty: full access" }),
      last4: o.string({ description: "The key's last 4 characters: all that is shown of it after its creation", example: "x4Qz" }),
      status: o.enum(["active", "expired", "revoked"] as const),
      expires_at: o.nullable(o.time({ description: "When a rolled key stops working" })),
      revoked_at: o.nullable(o.time()),
      created: o.time(),
      secret: o.optional(
        o.string({
          pattern: "^sk_(test|live)_[A-Za-z0-9_-]{16,200}$",
          description: "The key itself: only in the answer to create and roll (never in a replay); stored as its SHA-256 only",
        }),
      ),
    },
    { description: "An API key of the account (DECISIONS.md §3)" },
  ),
);

const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
const ERROR_TYPES = [...new Set(Object.values(ERROR_CATALOGUE).map((e) => e.type))];

export const ApiErrorObject = o.named(
  "Error",
  o.object(
    {
      error: o.object({
        type: o.enum(ERROR_TYPES),
        code: o.enum(ERROR_CODES),
        message: o.string({ example: "Missing required parameter: amount" }),
        param: o.optional(o.string({ description: "The parameter at fault, as a path (`legs[3].amount`)", example: "amount" })),
        errors: o.optional(
          o.array(
            o.object({ row: o.integer({ minimum: 0 }), param: o.string(), code: o.enum(ERROR_CODES), message: o.string() }),
            { description: "Every bad row of a batch (batch_invalid)" },
          ),
        ),
        request_id: o.nullable(o.string({ pattern: "^req_[0-9a-z]+$", example: "req_01jd5x3kq8b7m2c9v4n6p0r1s2" })),
      }),
    },
    { description: "An error of the catalogue (DECISIONS.md §2)" },
  ),
);

/** The list envelope of DECISIONS.md §5 around `item`. */
export function listOf<T>(name: string, item: NamedSchema<T>) {
  return o.named(
    `${name}List`,
    o.object(
      {
        object: o.literal("list"),
        data: o.array(item),
        has_more: o.boolean(),
        next_cursor: o.nullable(o.string({ pattern: "^cur_[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$", description: "Pass as `starting_after` for the next page; null on the last" })),
      },
      { description: `A page of ${name} objects, newest first` },
    ),
  );
}

export const BalanceList = listOf("Balance", Balance);
export const EventList = listOf("Event", Event);
export const LedgerEntryList = listOf("LedgerEntry", LedgerEntry);
export const LimitOrderList = listOf("LimitOrder", LimitOrder);
export const PaymentIntentList = listOf("PaymentIntent", PaymentIntent);
export const PayoutList = listOf("Payout", Payout);
export const RecipientList = listOf("Recipient", Recipient);
export const ReportList = listOf("Report", Report);
export const SwapList = listOf("Swap", Swap);
export const WebhookEndpointList = listOf("WebhookEndpoint", WebhookEndpoint);
export const WebhookDeliveryList = listOf("WebhookDelivery", WebhookDelivery);
export const ApiKeyList = listOf("ApiKey", ApiKey);

/** A batch submission's answer: the batch, or with `dry_run=true` its validation. */
export const PayoutBatchOrValidation = o.named("PayoutBatchOrValidation", o.anyOf(PayoutBatch, PayoutBatchValidation));
