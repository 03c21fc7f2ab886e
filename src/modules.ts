import { Engine, type EngineOf, type EngineOptions } from "./engine/engine";
import { EngineCatalogue } from "./engine/catalogue";
import type { AnyModule, EventTypesOf } from "./engine/module";
import { accountsModule } from "./resources/accounts";
import { apiKeysModule } from "./resources/api-keys";
import { auditLogModule } from "./resources/audit-log";
import { balancesModule } from "./resources/balances";
import { eventsModule } from "./resources/events";
import { ledgerEntriesModule } from "./resources/ledger-entries";
import { limitOrdersModule } from "./resources/limit-orders";
import { paymentIntentsModule } from "./resources/payment-intents";
import { payoutsModule } from "./resources/payouts";
import { quotesModule } from "./resources/quotes";
import { reconciliationsModule } from "./resources/reconciliations";
import { recipientsModule } from "./resources/recipients";
import { reportsModule } from "./resources/reports";
import { swapsModule } from "./resources/swaps";
import { testHelpersModule } from "./resources/test-helpers";
import { webhooksModule } from "./resources/webhook-endpoints";

// Each resource's module and public types (inputs, objects, its API), for the root entry.
export * from "./resources/accounts";
export * from "./resources/api-keys";
export * from "./resources/audit-log";
export * from "./resources/balances";
export * from "./resources/events";
export * from "./resources/ledger-entries";
export * from "./resources/limit-orders";
export * from "./resources/payment-intents";
export * from "./resources/payouts";
export * from "./resources/quotes";
export * from "./resources/reconciliations";
export * from "./resources/recipients";
export * from "./resources/reports";
export * from "./resources/swaps";
export * from "./resources/test-helpers";
export * from "./resources/webhook-endpoints";

/**
 * payrail's resources, in the order the engine sets them up (a module may use what those before
 * it provide). `createEngine` runs on this list unless given its own: a host adds a resource by
 * appending its module (`[...DEFAULT_MODULES, transfersModule]`).
 */
export const DEFAULT_MODULES = [
  accountsModule,
  apiKeysModule,
  auditLogModule,
  balancesModule,
  eventsModule,
  recipientsModule,
  payoutsModule,
  paymentIntentsModule,
  webhooksModule,
  quotesModule,
  swapsModule,
  limitOrdersModule,
  ledgerEntriesModule,
  reportsModule,
  reconciliationsModule,
  testHelpersModule,
] as const;

/** payrail's engine: the engine with the default modules' APIs (`engine.payouts`, `engine.swaps`, …). */
export type PayrailEngine = EngineOf<typeof DEFAULT_MODULES>;

/** Every event type of the default modules (and the engine's own `balance.updated`). */
export type EventType = EventTypesOf<typeof DEFAULT_MODULES> | "balance.updated";

/**
 * Creates an engine on the given ports (`payrail/dev` has simulated ones): initialises storage
 * (migrations), sets the modules up in order and schedules housekeeping. Without `modules`, the
 * default ones (`DEFAULT_MODULES`).
 */
export function createEngine(options: EngineOptions): Promise<PayrailEngine>;
export function createEngine<const M extends readonly AnyModule[]>(options: EngineOptions & { modules: M }): Promise<EngineOf<M>>;
export function createEngine(options: EngineOptions & { modules?: readonly AnyModule[] }): Promise<Engine> {
  return Engine.create(options, options.modules ?? DEFAULT_MODULES);
}

/** What the default modules declare (event types, scopes, …), for clients of a default host such as the CLI. */
export const DEFAULT_CATALOGUE = new EngineCatalogue(DEFAULT_MODULES);
