import type { JobHandler, WorkKind, WorkScope } from "../workers/due-work";
import type { WorkLane, WorkerRunner } from "../workers/runner";
import type { EngineDeps } from "./context";
import type { DownloadRouteDefinition, RouteDefinition } from "./route";

/** What a module is built from when the engine starts. */
export interface Kernel {
  readonly deps: EngineDeps;
  readonly worker: WorkerRunner;
  /** The services of a module set up before this one (modules are set up in the engine's order). */
  use<S extends object>(module: ResourceModule<S>): S;
}

/** One kind of due work a module runs, with its handler (and, optionally, a worker lane of its own). */
export interface WorkBinding {
  readonly def: WorkKind<any, any>;
  readonly handler: JobHandler<any, any>;
  /** Runs the kind in a pool of its own (see `WorkLane`). */
  readonly lane?: Omit<WorkLane, "kinds">;
}

/** Binds typed due work to its handler: the handler's job is typed by the definition. */
export function work<P, S extends WorkScope>(def: WorkKind<P, S>, handler: JobHandler<P, S>, lane?: Omit<WorkLane, "kinds">): WorkBinding {
  return lane ? { def, handler, lane } : { def, handler };
}

/** What a module gives the engine once set up. */
export interface ModuleParts<S extends object> {
  /** Members of the engine, e.g. `{ payouts, batches }` become `engine.payouts` and `engine.batches`. */
  readonly services: S;
  /** The due work the module runs. */
  readonly work?: readonly WorkBinding[];
}

/**
 * One resource (or a few that live and die together, such as payouts and their batches): the
 * one seam through which it joins the engine. The engine sets modules up in order, makes their
 * services its members, registers their due work, and hands their routes to the HTTP binding.
 * Everything else of a resource (machine, stored document, presenter, schemas, commands) stays
 * inside its folder under `src/resources/`.
 */
export interface ResourceModule<S extends object = object> {
  readonly name: string;
  /** Its routes of the /v1 binding (framework-neutral; `payrail/http` mounts them). */
  readonly routes: readonly RouteDefinition[];
  /** Routes that answer files to holders of signed links, without an API key. */
  readonly downloads?: readonly DownloadRouteDefinition[];
  setup(kernel: Kernel): ModuleParts<S>;
}

/** Declares a module (an identity function that keeps the services' type). */
export function defineModule<S extends object>(module: ResourceModule<S>): ResourceModule<S> {
  return module;
}

/** The services a module gives the engine. */
export type ServicesOf<M> = M extends ResourceModule<infer S> ? S : never;
