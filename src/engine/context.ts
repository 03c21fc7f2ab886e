import type { FileLinks } from "../files/file-links";
import type { BlobStore } from "../ports/blobs";
import type { ChainDirectory } from "../chains/chain-directory";
import type { AssetRegistry } from "../money/assets";
import type { IdGenerator, RandomSource } from "../ids";
import type { CursorCodec } from "../lists/cursor-codec";
import type { Clock } from "../ports/clock";
import type { DeliveryAdapter } from "../ports/delivery";
import type { EngineObserver } from "../ports/observer";
import type { ScreeningAdapter } from "../ports/screening";
import type { Tracer } from "../ports/tracer";
import type { CommitOptions, StorageAdapter, StorageCapabilities, StorageTx } from "../ports/storage";
import type { Result } from "neverthrow";
import type { ApiError } from "../errors";
import type { VenueDirectory } from "../quoting/venue-set";
import type { ParseContext } from "../validation/schema";
import type { Job } from "../workers/due-work";
import type { ProcessIdentity } from "../workers/process-lease";
import type { EngineCatalogue } from "./catalogue";
import type { CommandOptions } from "./command";
import type { UnitOfWork } from "./unit-of-work";

/**
 * Who is asking, carried into every use case. Requests build it from the API key; workers build
 * it from the account a job belongs to.
 */
export interface RequestContext {
  accountId: string;
  livemode: boolean;
  /** `req_…` of the HTTP request, or null for work the engine does on its own. */
  requestId: string | null;
  /** The client's Idempotency-Key, recorded on events. */
  idempotencyKey: string | null;
  /** Who is acting, for the audit log; absent: the host, calling the engine itself. */
  actor?: Actor;
  /** Present while this request holds its idempotency key; the command saves its response. */
  idempotency?: IdempotencyClaim;
}

/**
 * Who makes a change: a request authenticated by an API key (its id), the host calling the engine
 * directly, or the engine on its own (due work).
 */
export type Actor = { type: "api_key"; apiKey: string } | { type: "host" } | { type: "engine" };

/** Proof that a request holds an idempotency key (see `IdempotencyService.begin`). */
export interface IdempotencyClaim {
  accountId: string;
  key: string;
  fingerprint: string;
  lockedAt: number;
  /** The process holding the key (`EngineDeps.process`), or null when it does not heartbeat. */
  owner: string | null;
  created: number;
  expiresAt: number;
}

export interface EngineConfig {
  /** How long a completed response is replayed (docs/decisions.md §3: 24 hours). */
  idempotencyTtlMs: number;
  /** A key locked longer than this is taken over by the next request (its holder crashed). */
  idempotencyLockMs: number;
  /** Events older than this are pruned (docs/decisions.md §4: 30 days). */
  eventRetentionMs: number;
  /** A webhook attempt is cut after this (docs/decisions.md §6: 10 s). */
  webhookTimeoutMs: number;
  /** Webhook attempts in flight per engine process, across endpoints. */
  webhookConcurrency: number;
  /** Webhook attempts in flight per endpoint, across every engine process. */
  webhookEndpointConcurrency: number;
  /** The delivery log is kept this long, and replay reaches this far back (seed: 7 days). */
  deliveryLogRetentionMs: number;
  /** After a rotation the old secret keeps signing this long (docs/decisions.md §4: 24 hours). */
  secretRotationOverlapMs: number;
  /**
   * A webhook endpoint whose every delivery failed for this long (from its first failure since
   * its last success) is disabled (`disabled_reason: "failing"`); default 5 days, as Svix.
   */
  webhookDisableAfterMs: number;
  /**
   * Platform fee on conversions, basis points of the venues' output, rounded up; never charged
   * when both assets are stablecoins (the seed). Default 20 (0.2 %).
   */
  platformFeeBps: number;
  /**
   * How often each live chain's holdings are compared with the books (docs/reconciliation.md;
   * default 10 min). The first comparison of a chain comes this long after the engine starts.
   */
  reconcileEveryMs: number;
  /** The same for the test mode's (simulated) chains: default an hour (nobody's money is at stake). */
  reconcileTestEveryMs: number;
  /** How often a working limit order looks at the venues again (default 10 s). */
  limitOrderMatchIntervalMs: number;
  /**
   * How long a leg claimed for sending belongs to the run that claimed it (default 60 s). After
   * that (the run died between its claim and its result) another run sends it again: the chain
   * answers the same transfer id with the same outcome (a real chain re-sends the signed bytes
   * it saved), so nothing goes out twice.
   */
  sendClaimMs: number;
  /**
   * Payouts per due work item of a batch (each item's send and tracking steps are one
   * transaction over them). Default: 250 on storage that runs transactions side by side; 25 on
   * storage that runs one at a time (PGlite, memory), where a request waits for the background
   * transaction in progress, so background transactions are kept short.
   */
  batchChunk: number | null;
  /**
   * Legs per transaction when a batch is accepted. A batch of more legs is accepted in slices
   * (`batch-acceptance.ts`): its plan staged, its funds held, then its payouts opened slice by
   * slice, so no other request waits behind one long transaction. Default: 2,500 on storage that
   * runs transactions side by side; 250 on storage that runs one at a time (PGlite, memory).
   */
  batchSlice: number | null;
  /** Ledger entries a report build reads per page, each page in its own short transaction (default 2,000). */
  reportPageSize: number;
  /**
   * Lease of a report build (default 15 min): a build still running when it ends may be started
   * again beside it (harmless: same file, ready once), and a build whose worker died restarts after it.
   */
  reportBuildLeaseMs: number;
}

export const DEFAULT_CONFIG: EngineConfig = {
  idempotencyTtlMs: 24 * 3600_000,
  idempotencyLockMs: 60_000,
  eventRetentionMs: 30 * 24 * 3600_000,
  webhookTimeoutMs: 10_000,
  webhookConcurrency: 64,
  webhookEndpointConcurrency: 16,
  deliveryLogRetentionMs: 7 * 24 * 3600_000,
  secretRotationOverlapMs: 24 * 3600_000,
  webhookDisableAfterMs: 5 * 24 * 3600_000,
  platformFeeBps: 20,
  limitOrderMatchIntervalMs: 10_000,
  sendClaimMs: 60_000,
  batchChunk: null,
  batchSlice: null,
  reportPageSize: 2_000,
  reportBuildLeaseMs: 15 * 60_000,
  reconcileEveryMs: 10 * 60_000,
  reconcileTestEveryMs: 60 * 60_000,
};

/** What every service is built from; assembled once by `createEngine`. */
export interface EngineDeps {
  storage: StorageAdapter;
  clock: Clock;
  ids: IdGenerator;
  random: RandomSource;
  assets: AssetRegistry;
  cursors: CursorCodec;
  config: EngineConfig;
  chains: ChainDirectory;
  screening: ScreeningAdapter & { readonly testModeOnly?: boolean };
  /**
   * The house accounts, one per mode: the platform's own books, which earn platform fees and
   * network-fee margins (kept apart from every customer account).
   */
  house: { test: string; live: string };
  /**
   * Claims of work made before this moment were made by a process that died: with
   * `exclusiveStorage` it is when the engine was created, so a payout leg claimed for sending
   * before then is sent again at once (`-Infinity` otherwise: a claim holds until it runs out).
   */
  claimsValidFrom: number;
  /**
   * This process as an owner of claims (its heartbeat): payout legs claimed for sending and
   * Idempotency-Keys in flight record it, and are taken over as soon as it is known dead.
   */
  process: ProcessIdentity;
  /** Sends webhook attempts (guarded; the engine closes it). */
  delivery: DeliveryAdapter;
  /** The venue adapters by mode (`for(livemode)`), guarded; a mode without any has no quotes (`no_route`). */
  venues: VenueDirectory;
  /** Where report files are kept (guarded; the engine closes it). */
  blobs: BlobStore;
  /** Signs links to files the HTTP binding serves (stores without URLs of their own). */
  fileLinks: FileLinks;
  /** Origin of the HTTP binding as clients reach it, for those links; null: each request's own. */
  publicUrl: string | null;
  /** Asks the worker loop to poll now: a command just scheduled work that is due. */
  wakeWorkers(): void;
  /** Where metrics go (the host's observer, guarded; `NO_OBSERVER` by default). */
  observer: EngineObserver;
  /** Where spans go (`NO_TRACER` by default: none). */
  tracer: Tracer;
  /** What the modules declare (event types, scopes, id prefixes). */
  catalogue: EngineCatalogue;
  /** What request schemas validate against: the asset registry and the catalogue. */
  parse: ParseContext;
}

/** The engine's parts every module may use: everything but raw storage. */
export type CoreDeps = Omit<EngineDeps, "storage" | "wakeWorkers">;

/** A storage method that only reads (what `ReadTx` keeps of each store). */
type ReadMethod = `get${string}` | `list${string}` | `find${string}` | `page${string}` | "nextRunAt" | "stats";

/** A transaction's stores with their reading methods only: what `StorageAccess.read` hands out. */
export type ReadTx = { readonly [K in keyof StorageTx]: Pick<StorageTx[K], Extract<keyof StorageTx[K], ReadMethod>> };

/**
 * How a module reaches storage: reads, and units of work that commit a change with all its
 * effects (ledger postings, events, due work, the idempotent response) or none. There is no
 * other way in: a module never opens a transaction of its own.
 */
export interface StorageAccess {
  /** What the storage can do (transactions side by side, or one at a time). */
  readonly capabilities: StorageCapabilities;
  /** Reads committed state in one short transaction; nothing can be written through `tx`. */
  read<T>(fn: (tx: ReadTx) => Promise<T>): Promise<T>;
  /**
   * One use case of an account in one transaction (`runCommand`): its unit of work's ledger,
   * events and due work, and the request's idempotent response, commit together. `fn` returns
   * its effects (never sets variables outside itself): the storage may run it again.
   */
  command<T>(ctx: RequestContext, fn: (uow: UnitOfWork) => Promise<Result<T, ApiError>>, options?: CommandOptions<T>): Promise<Result<T, ApiError>>;
  /**
   * Engine-owned writes that belong to no account's request (chain cursors, the webhook delivery
   * log, due work finished by hand) in one transaction. `fn` may run again, like a command's.
   */
  engineWork<T>(fn: (tx: StorageTx) => Promise<T>, options?: EngineWorkOptions<T>): Promise<T>;
}

export interface EngineWorkOptions<T> extends CommitOptions {
  /** Whether the committed work scheduled something due now, so the workers should look at once. */
  wakeWhen?: (value: T) => boolean;
}

/** What a module's services are built from (`Kernel.deps`): the engine's parts, storage through `StorageAccess`. */
export interface ModuleDeps extends CoreDeps {
  readonly storage: StorageAccess;
}

/** The context of work the engine does for an account on its own (workers, maintenance). */
export function systemContext(accountId: string, livemode: boolean): RequestContext {
  return { accountId, livemode, requestId: null, idempotencyKey: null };
}

/**
 * Who is asking, without the request's idempotency claim: for work a request does beyond its own
 * command (a payout create sending its legs at once), whose events still carry the request.
 */
export function carriedContext(ctx: RequestContext): RequestContext {
  return {
    accountId: ctx.accountId,
    livemode: ctx.livemode,
    requestId: ctx.requestId,
    idempotencyKey: ctx.idempotencyKey,
    ...(ctx.actor ? { actor: ctx.actor } : {}),
  };
}

/** The context of a due work item: its account, and the request its chain of work started from. */
export function jobContext(job: Job<unknown>): RequestContext {
  return {
    accountId: job.accountId,
    livemode: job.livemode,
    requestId: job.request?.id ?? null,
    idempotencyKey: job.request?.idempotency_key ?? null,
    actor: { type: "engine" },
  };
}
