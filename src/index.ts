/**
 * payrail: an embeddable engine for moving and converting digital assets.
 *
 * ```ts
 * import { createEngine, ManualClock } from "payrail";
 * import { createMemoryStorage } from "payrail/adapters/memory";
 * import { createHttpApp } from "payrail/http";
 *
 * const engine = await createEngine({ storage: createMemoryStorage() });
 * const app = createHttpApp(engine); // app.fetch(request) → response
 * ```
 */
export { Engine, createEngine, type EngineOptions } from "./engine";
export { ApiError, AdapterError, ERROR_CATALOGUE, type ErrorCode, type ErrorType, type ErrorBody, type RowError } from "./errors";
export { IdGenerator, cryptoRandom, type IdPrefix, type RandomSource } from "./ids";
export * from "./money";
export * from "./ports";
export { SystemClock, ManualClock } from "../adapters/clock";
export { EVENT_TYPES, isEventType, type EventType } from "./events/catalogue";
export { toEnvelope, type EventEnvelope } from "./events/envelope";
export { Ledger, LedgerInvariantError, compareKeys } from "./ledger/ledger";
export { COUNTER, isCustomerBook, isBalanced, transfer, reversal, type PostingLine } from "./ledger/postings";
export { balanceObject, balanceObjects, type BalanceObject, type BalanceAmounts } from "./ledger/balances";
export { CursorCodec, type CursorBinding, type CursorPosition } from "./lists/cursor-codec";
export { listPage, type ListEnvelope } from "./lists/list-page";
export { DEFAULT_LIMIT, MAX_LIMIT } from "./lists/list-params";
export { s, Schema, ObjectSchema, type Infer, type ParseContext, type JsonSchema } from "./validation/schema";
export { parseTimestamp, isoTime } from "./validation/timestamp";
export { SCOPE_RESOURCES, allows, hashApiKey, type Principal, type Scope } from "./services/auth";
export { systemContext, DEFAULT_CONFIG, type EngineConfig, type RequestContext, type IdempotencyClaim } from "./services/context";
export { runCommand, type CommandOptions } from "./services/command";
export { UnitOfWork } from "./services/unit-of-work";
export { WorkerRunner, type WorkHandler, type WorkOutcome, type WorkerOptions } from "./workers/runner";
export { verifyWebhookSignature, signatureHeader, SIGNATURE_TOLERANCE_SECONDS, type SignatureVerification, type VerifyOptions } from "./events/signing";
export { nextAttemptAt, RETRY_DELAYS_MS, DELIVERY_WINDOW_MS, MAX_DELIVERY_ATTEMPTS } from "./events/retry-schedule";
export { createHttpDelivery, type HttpDeliveryOptions } from "../adapters/delivery/http-delivery";
export type { WebhookEndpointObject, DeletedWebhookEndpoint } from "./services/webhook-endpoints";
export type { WebhookDeliveryObject, WebhookReplayObject } from "./services/webhook-deliveries";
export { SimulatedVenues, DEFAULT_SIMULATED_VENUES, DEFAULT_SIMULATED_ASSETS, type SimulatedVenuesOptions, type SimulatedVenueSpec, type SimulatedAsset } from "../adapters/venues/simulated";
export { QuotesService, QUOTE_TTL, type QuoteObject } from "./services/quotes";
export { SwapsService, type SwapObject } from "./services/swaps";
export { LimitOrdersService, EXPIRES_IN, type LimitOrderObject, type FillObject } from "./services/limit-orders";
export { OrderPricer, priceImpact, type Pricing, type PricedLeg } from "./quoting/order-pricer";
export { poolOut, bookOut, venueOut, zeroSizeRate, bestZeroSizeRate, FEE_SCALE, type Ratio } from "./quoting/venue-curves";
export { gridSplit } from "./quoting/grid-split";
