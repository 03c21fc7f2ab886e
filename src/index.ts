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
export { Engine, type EngineOf, type EngineOptions, type CloseOptions } from "./engine/engine";
export {
  createEngine,
  DEFAULT_MODULES,
  type EventType,
  type PayrailEngine,
  accountsModule,
  apiKeysModule,
  auditLogModule,
  balancesModule,
  eventsModule,
  ledgerEntriesModule,
  limitOrdersModule,
  paymentIntentsModule,
  payoutsModule,
  quotesModule,
  recipientsModule,
  reportsModule,
  swapsModule,
  testHelpersModule,
  webhooksModule,
} from "./modules";
export type * from "./modules";
export type { EngineConfig, RequestContext } from "./engine/context";
export type { EngineCatalogue } from "./engine/catalogue";
export { defineEvent, defineModule, operations, work } from "./engine/module";
export type {
  AnyModule,
  ApiOf,
  ApisOf,
  EventDefinition,
  EventTypesOf,
  Kernel,
  ModuleParts,
  ResourceModule,
  SampleContext,
  TagDefinition,
  WorkBinding,
} from "./engine/module";
export type { EngineDownloadRoute, EngineRoute, RouteDefinition, RouteInput, DownloadRouteDefinition, DownloadFile } from "./engine/route";
export { FULL_ACCESS, type RouteScope, type Scope } from "./engine/scopes";
export { ApiError, AdapterError, ERROR_CATALOGUE, type ErrorBody, type ErrorCode, type ErrorType, type RowError } from "./errors";
/** Thrown (wrapped in an `AdapterError`; `causeOf` finds it) while storage is unavailable: retry later. */
export { StorageUnavailableError, type StorageUnavailableReason } from "./ports/storage/unavailable";
export {
  verifyWebhookSignature,
  signatureHeader,
  SIGNATURE_TOLERANCE_SECONDS,
  type SignatureVerification,
  type VerifyOptions,
} from "./events/signing";
export type { EventEnvelope } from "./events/envelope";
export type { ListEnvelope, PagedList } from "./lists/list-page";
export type { BalanceObject } from "./ledger/balances";
export type { LedgerEntryObject } from "./ledger/ledger-entries";
export type { AssetDefinition, ChainDefinition } from "./money/assets";

// The ports, as types: what an adapter implements (`payrail/conformance` proves it).
export type * from "./ports";
export type { WorkerOptions } from "./workers/runner";
export type { HeartbeatOptions } from "./workers/process-lease";
