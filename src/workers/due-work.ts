import type { ApiError } from "../errors";
import type { IdGenerator } from "../ids";
import type { DueWorkRecord, Json, WorkRequest } from "../ports/storage";
import type { ParseContext, Schema } from "../validation/schema";
import type { WorkOutcome } from "./runner";

/**
 * Whose work a kind is: an account's (a payout to broadcast, a swap to execute: the item carries
 * the account and its mode) or the engine's own (housekeeping, a chain watcher: neither).
 */
export type WorkScope = "account" | "engine";

/**
 * A kind of due work, defined once with `defineWork`: its name, the schema of its payload, and
 * its scope. Scheduling type-checks the payload against it; running parses the stored payload
 * with it, so a handler receives exactly what the schema says or never runs.
 */
export interface WorkKind<P, S extends WorkScope = WorkScope> {
  readonly kind: string;
  readonly payload: Schema<P, unknown>;
  readonly scope: S;
}

/** Defines the due work of one kind for an account (see `WorkKind`). */
export function defineWork<P>(kind: string, payload: Schema<P, unknown>): WorkKind<P, "account"> {
  return { kind, payload, scope: "account" };
}

/** Defines due work the engine does for itself, for no account (see `WorkKind`). */
export function defineEngineWork<P>(kind: string, payload: Schema<P, unknown>): WorkKind<P, "engine"> {
  return { kind, payload, scope: "engine" };
}

/** A claimed item as its handler sees it: the payload parsed, the account and mode as fields. */
export interface Job<P, S extends WorkScope = "account"> {
  readonly id: string;
  readonly kind: string;
  readonly payload: P;
  /** The account the work is for (null for engine work). */
  readonly accountId: S extends "account" ? string : null;
  /** The account's mode (null for engine work). */
  readonly livemode: S extends "account" ? boolean : null;
  /**
   * The API request that started this chain of work (null for the engine's own work): the
   * events the work emits carry it, and so does the work it schedules.
   */
  readonly request: WorkRequest | null;
  /** Claims so far, this one included (1 on the first run). */
  readonly attempts: number;
  /** Who holds the lease: pass it to `tx.work.complete/release` to settle the item yourself. */
  readonly leaseOwner: string;
  /** When this claim's lease ends: a handler that runs long starts nothing it cannot finish by then. */
  readonly leaseUntil: number;
  /** When the item was first scheduled. */
  readonly created: number;
}

export type JobHandler<P, S extends WorkScope = "account"> = (job: Job<P, S>) => Promise<WorkOutcome | void>;

/**
 * Thrown by a handler (or by the runner) when running the item again can never succeed: a
 * payload that breaks its schema, account work without an account, a chain no adapter serves.
 * The item is marked dead with this message and kept for inspection; nothing retries it.
 */
export class PermanentWorkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PermanentWorkError";
  }
}

/** The stored item as a `Job` of `def`, or a `PermanentWorkError` when it does not fit. */
export function toJob<P, S extends WorkScope>(def: WorkKind<P, S>, record: DueWorkRecord, ctx: ParseContext): Job<P, S> {
  const parsed = def.payload.parse(record.payload, "payload", ctx);
  if (parsed.isErr()) throw new PermanentWorkError(`${def.kind} ${record.id}: ${(parsed.error as ApiError).message}`);
  if (def.scope === "account" && (record.accountId === null || record.livemode === null || record.livemode === undefined)) {
    throw new PermanentWorkError(`${def.kind} ${record.id} is account work without an account and mode`);
  }
  return {
    id: record.id,
    kind: record.kind,
    payload: parsed.value,
    accountId: (def.scope === "account" ? record.accountId : null) as Job<P, S>["accountId"],
    livemode: (def.scope === "account" ? record.livemode : null) as Job<P, S>["livemode"],
    request: def.scope === "account" ? (record.request ?? null) : null,
    attempts: record.attempts,
    leaseOwner: record.leaseOwner ?? "",
    leaseUntil: record.leaseUntil ?? 0,
    created: record.created,
  };
}

export interface NewWorkOptions {
  /** When it falls due (default: now). */
  runAt?: number;
  /** At most one item per dedupe key exists at a time (within its account). */
  dedupeKey?: string;
  /** Concurrency group (see `DueWorkRecord.group`). */
  group?: string;
}

/** A new, unclaimed due work item (`job_…`) of `def`, due at `options.runAt` (default `now`). */
export function newDueWork<P, S extends WorkScope>(
  ids: IdGenerator,
  now: number,
  def: WorkKind<P, S>,
  payload: P,
  owner: S extends "account" ? { accountId: string; livemode: boolean; request?: WorkRequest | null } : null,
  options: NewWorkOptions = {},
): DueWorkRecord {
  return {
    id: ids.next("job"),
    kind: def.kind,
    accountId: owner?.accountId ?? null,
    livemode: owner?.livemode ?? null,
    payload: payload as Json,
    runAt: options.runAt ?? now,
    leaseOwner: null,
    leaseUntil: null,
    attempts: 0,
    lastError: null,
    status: "ready",
    dedupeKey: options.dedupeKey ?? null,
    group: options.group ?? null,
    request: owner?.request ?? null,
    created: now,
  };
}

/**
 * Only the trace context of `request` (null without one), for work that carries a chain of work's
 * trace on but not its request (webhook deliveries of a fan-out: their events were emitted already).
 */
export function traceOnly(request: WorkRequest | null | undefined): WorkRequest | null {
  const trace = traceContextOf(request);
  return trace && { id: null, idempotency_key: null, ...trace };
}

/** The trace context a chain of work carries on (`traceparent`, `tracestate`), null without one. */
export function traceContextOf(request: WorkRequest | null | undefined): { traceparent: string; tracestate?: string } | null {
  if (!request?.traceparent) return null;
  return { traceparent: request.traceparent, ...(request.tracestate ? { tracestate: request.tracestate } : {}) };
}
