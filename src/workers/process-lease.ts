import type { IdGenerator } from "../ids";
import type { Clock } from "../ports/clock";
import type { OwnerRecord, StorageAdapter, StorageTx } from "../ports/storage";

/**
 * This process as an owner of claims (`OwnerStore`), for what it holds beyond due-work leases: a
 * payout leg claimed for sending, an Idempotency-Key in flight.
 */
export interface ProcessIdentity {
  /** Its name now (a process declared dead takes a new one). */
  readonly owner: string;
  /**
   * The owner to record on a claim so that it dies with this process: its name while it
   * heartbeats, null otherwise (the claim then holds until it runs out, as on a single process).
   */
  claimant(): string | null;
  /**
   * Whether what this process claimed is still its own at `now` by its last heartbeat: false once
   * that heartbeat's life ran out (others may have declared it dead and taken over). Always true
   * for a process that does not heartbeat.
   */
  holds(now: number): boolean;
}

/** How often a process heartbeats, and how long one heartbeat keeps it alive. */
export interface HeartbeatOptions {
  /** Between heartbeats (default 1 s). */
  intervalMs: number;
  /**
   * A process not heard from for this long is declared dead by the others, and its work, leg
   * claims and Idempotency-Keys are taken over (default 5 s). Keep it several intervals long.
   */
  lifetimeMs: number;
}

export const DEFAULT_HEARTBEAT: HeartbeatOptions = { intervalMs: 1_000, lifetimeMs: 5_000 };

/**
 * The heartbeat of this process: registers it as an owner, renews its life every interval, and
 * declares dead (`reap`) the owners whose life ran out, which ends their leases at once. A
 * process told it is dead (it was paused past its life) takes a new name: what it held under the
 * old one is fenced (its late completions find the lease lost; its leg claims and keys are taken
 * over). Without `options` it does nothing, and `claimant` is null: a single-process engine
 * (memory, embedded PGlite) has nobody to take over from.
 */
export class ProcessLease implements ProcessIdentity {
  private name: string;
  /** The end of the life of this name by its last accepted heartbeat; -Infinity before one. */
  private aliveUntil = Number.NEGATIVE_INFINITY;
  private loop: Promise<void> | null = null;
  private starting: Promise<void> | null = null;
  private stopping: AbortController | null = null;

  constructor(
    private readonly storage: StorageAdapter,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly options: HeartbeatOptions | null,
    private readonly hooks: { onError?: ((e: unknown) => void) | undefined; onReaped?: (() => void) | undefined } = {},
  ) {
    this.name = ids.next("wrk");
  }

  /** The name this process claims due work under now. */
  get owner(): string {
    return this.name;
  }

  /** Whether it heartbeats (the options say so). */
  get enabled(): boolean {
    return this.options !== null;
  }

  claimant(): string | null {
    return this.options !== null && this.aliveUntil > Number.NEGATIVE_INFINITY ? this.name : null;
  }

  holds(now: number): boolean {
    return this.claimant() === null || now < this.aliveUntil;
  }

  /**
   * One heartbeat: renews this process's life (or, refused, takes a new name and registers it),
   * then declares dead the owners whose life ran out; returns how many it declared dead.
   */
  async beat(): Promise<number> {
    const options = this.options;
    if (!options) return 0;
    const now = this.clock.now();
    const renewed = await this.storage.transaction((tx) => tx.owners.heartbeat(this.name, now, now + options.lifetimeMs));
    if (renewed) {
      this.aliveUntil = now + options.lifetimeMs;
    } else {
      // declared dead while it could not heartbeat: everything held under the old name is another's now
      this.name = this.ids.next("wrk");
      this.aliveUntil = Number.NEGATIVE_INFINITY;
      if (await this.storage.transaction((tx) => tx.owners.heartbeat(this.name, now, now + options.lifetimeMs))) this.aliveUntil = now + options.lifetimeMs;
    }
    const reaped = await this.storage.transaction((tx) => tx.owners.reap(now));
    if (reaped.length) this.hooks.onReaped?.();
    return reaped.length;
  }

  /** Starts heartbeating (idempotent; nothing without options). The first heartbeat is sent before it resolves. */
  async start(): Promise<void> {
    const options = this.options;
    if (!options || this.stopping) return;
    const stopping = new AbortController();
    this.stopping = stopping;
    this.starting = this.beat().then(
      () => undefined,
      (e: unknown) => this.hooks.onError?.(e),
    );
    await this.starting;
    if (stopping.signal.aborted) return;
    this.loop = (async () => {
      while (!stopping.signal.aborted) {
        await this.clock.sleep(options.intervalMs, stopping.signal).catch(() => undefined);
        if (stopping.signal.aborted) break;
        await this.beat().catch((e: unknown) => this.hooks.onError?.(e));
      }
    })();
  }

  /** Stops heartbeating and retires the name: the others need not wait for its life to run out. */
  async stop(): Promise<void> {
    if (!this.stopping) return;
    this.stopping.abort();
    await this.starting;
    await this.loop;
    this.loop = null;
    this.starting = null;
    this.stopping = null;
    if (this.claimant() === null) return;
    const name = this.name;
    this.aliveUntil = Number.NEGATIVE_INFINITY;
    this.name = this.ids.next("wrk"); // what runs after the stop claims under a name of its own, alive
    await this.storage.transaction((tx) => tx.owners.retire(name, this.clock.now())).catch((e: unknown) => this.hooks.onError?.(e));
  }
}

/**
 * The records of `owners` (an owner without one never heartbeat), after declaring dead every
 * owner whose life ran out at `now` (`OwnerStore.reap`), in the caller's transaction: for taking
 * over a claim they recorded. Only a declared death (`deadAt`) counts: from then on the owner's
 * heartbeat is refused whatever its clock says, so a claim taken over is never its own again.
 */
export async function ownersAfterReap(
  tx: Pick<StorageTx, "owners">,
  owners: readonly (string | null | undefined)[],
  now: number,
): Promise<Map<string, OwnerRecord>> {
  const named = [...new Set(owners.filter((o): o is string => typeof o === "string"))];
  if (!named.length) return new Map();
  await tx.owners.reap(now);
  return tx.owners.getMany(named);
}
