import type { NamedSchema } from "../api/response-schema";
import type { IdGenerator } from "../ids";
import type { AssetRegistry } from "../money/assets";
import type { JobHandler, WorkKind, WorkScope } from "../workers/due-work";
import type { WorkLane, WorkerRunner } from "../workers/runner";
import type { ModuleDeps } from "./context";
import type { DownloadRouteDefinition, RouteDefinition } from "./route";

/** What a module is built from when the engine starts. */
export interface Kernel {
  /** The engine's parts, with storage reached only through reads and units of work. */
  readonly deps: ModuleDeps;
  readonly worker: WorkerRunner;
  /**
   * What a module set up before this one provides to the modules after it (`ModuleParts.provides`;
   * modules are set up in the order of the list). Throws when that module is not in the list or
   * comes later.
   */
  use<P>(module: ResourceModule<string, any, P, any>): P;
}

/** One kind of due work a module runs, with its handler (and, optionally, a worker lane of its own). */
export interface WorkBinding {
  readonly def: WorkKind<any, any>;
  readonly handler: JobHandler<any, any>;
  /** Runs the kind in a pool of its own (see `WorkLane`). */
  readonly lane?: Omit<WorkLane, "kinds">;
}

/** An engine work item a module keeps scheduled (`ModuleParts.recurring`). */
export interface RecurringWork {
  readonly def: WorkKind<any, "engine">;
  readonly payload: unknown;
  readonly dedupeKey: string;
  /** When the first run is due, from the engine's start (ms). */
  readonly firstRunInMs: number;
}

/** Binds typed due work to its handler: the handler's job is typed by the definition. */
export function work<P, S extends WorkScope>(def: WorkKind<P, S>, handler: JobHandler<P, S>, lane?: Omit<WorkLane, "kinds">): WorkBinding {
  return lane ? { def, handler, lane } : { def, handler };
}

/** What a module gives the engine once set up. */
export interface ModuleParts<Api extends object, Provides = undefined> {
  /**
   * The module's host API: its API operations only (create, retrieve, list, …). Each member
   * becomes a member of the engine (`{ payouts, batches }`: `engine.payouts`, `engine.batches`),
   * and the module's routes receive it as `api`.
   */
  readonly api: Api;
  /** What later modules reach with `kernel.use(module)` (internal: never a member of the engine). */
  readonly provides?: Provides;
  /** The due work the module runs (its handlers are internal: registered here, not on the engine). */
  readonly work?: readonly WorkBinding[];
  /**
   * Engine work that reschedules itself for as long as the engine runs (a reconciliation of each
   * chain): the engine enqueues each item when it is created, once per `dedupeKey` (an item left
   * from an earlier start stays as it is).
   */
  readonly recurring?: readonly RecurringWork[];
  /** Called after a transaction of this process committed work (lists waiting for events look again). */
  readonly committed?: () => void;
  /** Called when the engine stops waiting (`Engine.stopWaiting`, and `close`): answer whatever waits. */
  readonly close?: () => void;
}

/** Values a sample is built with: the engine's ids, assets and clock. */
export interface SampleContext {
  readonly ids: IdGenerator;
  readonly assets: AssetRegistry;
  readonly now: number;
}

/**
 * One event type a module emits (docs/decisions.md §4): its description, the schema of its
 * `data.object`, and a sample object of that schema for `POST /v1/test_helpers/events/trigger`
 * (built with the resource's own presenter, so it has the shape real events have).
 */
export interface EventDefinition<Type extends string = string> {
  readonly type: Type;
  readonly description: string;
  readonly object: NamedSchema<unknown>;
  sample(ctx: SampleContext): object;
  /**
   * Delivered only to endpoints that name the type: `"*"` does not include it (the audit log's
   * events about keys, endpoints and policy, which belong with a receiver chosen for them).
   */
  readonly namedOnly?: true;
  /**
   * About the engine as a whole, not one account's resources (reconciliation of a chain's
   * holdings): emitted in every account of the mode with a webhook endpoint that names it
   * (`src/events/engine-wide.ts`), as well as in the mode's house account. `readScope` is what a
   * key must be allowed to read to name it in an endpoint's `enabled_events` (the data it carries).
   */
  readonly engineWide?: { readonly readScope: `${string}:read` };
}

/** An OpenAPI tag a module's routes are grouped under. */
export interface TagDefinition {
  readonly name: string;
  readonly description: string;
}

/**
 * One resource (or a few that live and die together, such as payouts and their batches),
 * describing everything the engine needs to know about it: the engine, the event catalogue, the
 * samples, the scopes, the id prefixes and the OpenAPI document are folds over the list of
 * modules (`createEngine({ modules })`), so adding a resource is its folder and one line in that
 * list. Everything else of a resource (machine, stored document, presenter, schemas, commands)
 * stays inside its folder.
 */
export interface ResourceModule<Name extends string = string, Api extends object = object, Provides = unknown, Events extends string = string> {
  readonly name: Name;
  /** Id prefixes the module mints (`po` → "payout"); two modules may not claim one prefix. */
  readonly ids?: Readonly<Record<string, string>>;
  /** Resources a key's scope can name: `<resource>:read`, `<resource>:write` (write implies read). */
  readonly scopes?: readonly string[];
  /** OpenAPI tags of its routes. */
  readonly tags?: readonly TagDefinition[];
  /** The event types it emits, with their objects' schemas and samples. */
  readonly events?: readonly EventDefinition<Events>[];
  /** Its routes of the /v1 binding (framework-neutral; `payrail/http` mounts them). */
  readonly routes?: readonly RouteDefinition<Api>[];
  /** Routes that answer files to holders of signed links, without an API key. */
  readonly downloads?: readonly DownloadRouteDefinition<Api>[];
  setup(kernel: Kernel): ModuleParts<Api, Provides>;
}

/** A module of any API (what lists of modules hold). */
export type AnyModule = ResourceModule<string, any, any, string>;

/** Declares a module (an identity function that keeps its types: name, API, events). */
export function defineModule<const Name extends string, Api extends object, Provides = undefined, const Events extends string = never>(
  module: ResourceModule<Name, Api, Provides, Events>,
): ResourceModule<Name, Api, Provides, Events> {
  return module;
}

/** Declares an event type of a module (keeps its literal type). */
export function defineEvent<const Type extends string>(event: EventDefinition<Type>): EventDefinition<Type> {
  return event;
}

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** The host API of one module. */
export type ApiOf<M> = M extends ResourceModule<string, infer Api, any, string> ? Api : never;

/** The host API of a list of modules: every module's members, together. */
export type ApisOf<M extends readonly AnyModule[]> = UnionToIntersection<ApiOf<M[number]>>;

/** The event types a list of modules emits. */
export type EventTypesOf<M extends readonly AnyModule[]> = M[number] extends ResourceModule<string, any, any, infer E> ? E : never;

/**
 * The named API operations of a service, bound to it: what a module gives the engine as its
 * host API (`engine.payouts.create(…)`), so the service's internal members (handlers, the steps
 * other modules use) are never members of the engine.
 */
export function operations<S extends object, const K extends keyof S>(service: S, names: readonly K[]): Pick<S, K> {
  const out = {} as Pick<S, K>;
  for (const name of names) {
    const member = service[name];
    if (typeof member !== "function") throw new TypeError(`${String(name)} is not an operation of the service`);
    out[name] = member.bind(service) as S[K];
  }
  return Object.freeze(out);
}
