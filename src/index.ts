/**
 * payrail: an embeddable engine for moving and converting digital assets.
 *
 * ```ts
 * import { createEngine } from "payrail";
 * import { devPorts } from "payrail/dev";
 * import { createMemoryStorage } from "payrail/adapters/memory";
 * import { createHttpApp } from "payrail/http";
 *
 * const engine = await createEngine({ storage: createMemoryStorage(), ...devPorts() });
 * const account = await engine.accounts.create({ name: "Acme" });
 * const ctx = await engine.accounts.context(account.id);
 * const payout = await engine.payouts.create(ctx, { amount: "10", asset: "USDC", recipient: "rcp_…" });
 * const app = createHttpApp(engine); // app.fetch(request) → response
 * ```
 *
 * This entry holds the engine, its types, the error catalogue and webhook signature
 * verification. Adapters live in their own entries: `payrail/adapters/memory`,
 * `payrail/adapters/postgres`, `payrail/http`, `payrail/dev` (simulated chains, venues and
 * screening, clocks, HTTP delivery) and `payrail/conformance`; `payrail/ports` is what an
 * adapter written elsewhere imports (the ports and the helpers this package's adapters use).
 */
export { Engine, createEngine, type EngineOptions, type EngineServices } from "./engine/engine";
export type { EngineConfig, RequestContext } from "./engine/context";
export { ApiError, AdapterError, ERROR_CATALOGUE, type ErrorBody, type ErrorCode, type ErrorType, type RowError } from "./errors";
export {
  verifyWebhookSignature,
  signatureHeader,
  SIGNATURE_TOLERANCE_SECONDS,
  type SignatureVerification,
  type VerifyOptions,
} from "./events/signing";
export type { EventType } from "./events/catalogue";
export type { EventEnvelope } from "./events/envelope";
export type { ListEnvelope, PagedList } from "./lists/list-page";
export type { BalanceObject } from "./ledger/balances";
export type { LedgerEntryObject } from "./ledger/ledger-entries";
export type { AssetDefinition, ChainDefinition } from "./money/assets";

// The ports, as types: what an adapter implements (`payrail/conformance` proves it).
export type * from "./ports";
export type { WorkerOptions } from "./workers/runner";

// Typed inputs (what a host passes) and the objects the engine answers with.
export type { AccountPolicy, PolicyInput } from "./resources/accounts/policy";
export type { CreateAccountInput, CreateApiKeyInput, CreatedApiKey } from "./resources/accounts/accounts-service";
export type { ListBalancesParams } from "./resources/balances/balance-schemas";
export type { ListEventsParams } from "./resources/events/event-schemas";
export type { CreateRecipientInput, ListRecipientsParams, UpdateRecipientInput } from "./resources/recipients/recipient-schemas";
export type { RecipientObject } from "./resources/recipients/recipients-service";
export type {
  CreateBatchInput,
  CreateBatchParams,
  CreatePayoutInput,
  ListPayoutsParams,
  RetrievePayoutParams,
} from "./resources/payouts/payout-schemas";
export type { LegObject, PayoutObject } from "./resources/payouts/payout-doc";
export type { BatchObject } from "./resources/payouts/batch-doc";
export type { BatchValidation } from "./resources/payouts/batches-service";
export type { CreateQuoteInput } from "./resources/quotes/quote-schemas";
export type { QuoteObject } from "./resources/quotes/quote-doc";
export type { CreateSwapInput, ListSwapsParams } from "./resources/swaps/swap-schemas";
export type { SwapObject } from "./resources/swaps/swap-doc";
export type { CreateLimitOrderInput, ListLimitOrdersParams } from "./resources/limit-orders/limit-order-schemas";
export type { FillObject, LimitOrderObject } from "./resources/limit-orders/limit-order-doc";
export type {
  CreatePaymentIntentInput,
  ListPaymentIntentsParams,
  RetrievePaymentIntentParams,
} from "./resources/payment-intents/payment-intent-schemas";
export type { PaymentIntentObject, SettlementObject } from "./resources/payment-intents/payment-intent-doc";
export type {
  CreateWebhookEndpointInput,
  ListDeliveriesParams,
  ListWebhookEndpointsParams,
  ReplayInput,
  UpdateWebhookEndpointInput,
} from "./resources/webhook-endpoints/webhook-endpoint-schemas";
export type { DeletedWebhookEndpoint, WebhookEndpointObject } from "./resources/webhook-endpoints/webhook-endpoints-service";
export type { ApiKeyObject } from "./resources/api-keys/api-keys-service";
export type { CreateApiKeyRequest, ListApiKeysParams, RollApiKeyInput } from "./resources/api-keys/api-key-schemas";
export type { AccountObject } from "./resources/accounts/accounts-service";
export type { WebhookDeliveryObject, WebhookReplayObject } from "./resources/webhook-endpoints/webhook-deliveries-service";
export type {
  AdvanceChainInput,
  AdvanceClockInput,
  FundInput,
  HaltVenuesInput,
  PayPaymentIntentInput,
  ReorgChainInput,
  TriggerEventInput,
} from "./resources/test-helpers/test-helper-schemas";
export type { TestChainObject, TestClockObject } from "./resources/test-helpers/test-helpers-service";
export type { CreateReportInput, ListReportsParams } from "./resources/reports/report-schemas";
export type { ReportFormat, ReportObject, ReportStatus, ReportType } from "./resources/reports/report-doc";
export type { ListLedgerEntriesParams } from "./resources/ledger-entries/ledger-entries-service";
