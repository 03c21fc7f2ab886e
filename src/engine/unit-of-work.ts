import { groupBy } from "../collections/group-by";
import { WEBHOOK_FANOUT, fanoutPayload } from "../events/delivery-work";
import { Ledger } from "../ledger/ledger";
import { balanceObject, type BalanceObject } from "../ledger/balances";
import type { AssetDefinition } from "../money/assets";
import type { DueWorkRecord, EventRecord, Json, StorageTx } from "../ports/storage";
import type { DomainObservation, EventsObservation, LedgerObservation } from "../ports/observer";
import { newDueWork, type NewWorkOptions, type WorkKind, type WorkScope } from "../workers/due-work";
import type { EngineDeps, RequestContext } from "./context";

export interface ScheduleOptions extends NewWorkOptions {
  /** The account the work is for (account work only; default the context's account). */
  accountId?: string;
}

/**
 * One use case's view of one storage transaction: the ledger, the events it emits and the work
 * it schedules. `finish` writes the outbox (with one `balance.updated` per changed asset) and the
 * due work in as few statements as the adapter can, inside the same transaction.
 */
export class UnitOfWork {
  readonly now: number;
  readonly ledger: Ledger;
  private readonly events: EventRecord[] = [];
  private readonly work: DueWorkRecord[] = [];
  private readonly observations: DomainObservation[] = [];

  constructor(
    readonly tx: StorageTx,
    readonly deps: EngineDeps,
    readonly ctx: RequestContext,
  ) {
    this.now = deps.clock.now();
    const { house } = deps;
    this.ledger = new Ledger(tx, deps.ids, this.now, (id) => id === house.test || id === house.live);
  }

  /**
   * Records an event about `object` for the outbox. `object` becomes the snapshot in `data.object`
   * as it is, not copied: pass a freshly presented object and do not change it afterwards.
   */
  emit(type: string, object: Json, accountId: string = this.ctx.accountId): string {
    // the catalogue is every type the engine emits, and nothing else: a module emitting a type it never declared is a bug
    if (!this.deps.catalogue.isEventType(type)) throw new TypeError(`event type ${type} is not in the engine's catalogue`);
    const id = this.deps.ids.next("evt");
    this.events.push({
      accountId,
      id,
      type,
      created: this.now,
      livemode: this.ctx.livemode,
      data: { object },
      request: { id: this.ctx.requestId, idempotency_key: this.ctx.idempotencyKey },
    });
    return id;
  }

  /** An event this unit emitted, as the outbox will hold it (undefined for an id it did not emit). */
  emitted(id: string): EventRecord | undefined {
    return this.events.find((e) => e.id === id);
  }

  /**
   * Schedules due work of `def` (default: run now). Account work is for the context's account
   * and mode unless `options.accountId` names another account of the same mode.
   */
  schedule<P, S extends WorkScope>(def: WorkKind<P, S>, payload: P, options: ScheduleOptions = {}): void {
    const { accountId, ...rest } = options;
    // Account work carries the request that started it on to its own events (and further work).
    const { requestId: id, idempotencyKey: idempotency_key } = this.ctx;
    // ...and, when traced, the span scheduling it: the work's own spans join its trace
    const trace = this.deps.tracer.enabled ? this.deps.tracer.current() : null;
    const request = id === null && idempotency_key === null && !trace ? null : { id, idempotency_key, ...trace };
    const owner = def.scope === "account" ? { accountId: accountId ?? this.ctx.accountId, livemode: this.ctx.livemode, request } : null;
    this.work.push(newDueWork(this.deps.ids, this.now, def, payload, owner as never, rest));
  }

  /** True when something scheduled is due already, so the workers should wake. */
  get scheduledDueWork(): boolean {
    return this.work.some((w) => w.runAt <= this.now);
  }

  /** The balance of `asset` as this unit of work leaves it (the asset must have been posted to). */
  balance(accountId: string, asset: AssetDefinition): BalanceObject {
    return balanceObject(asset, this.ledger.lockedRows(accountId, asset.code), this.deps.clock.now());
  }

  /** Reports `observation` to the observer (`domainObserved`) once this unit of work has committed; never if it rolls back. */
  observe(observation: DomainObservation): void {
    this.observations.push(observation);
  }

  /** What this unit of work wrote, for the observer once it has committed. */
  report(): { ledger: LedgerObservation[]; events: EventsObservation[]; domain: DomainObservation[] } {
    const byAsset = new Map<string, { postings: Set<string>; entries: number }>();
    for (const entry of this.ledger.allPosted()) {
      let a = byAsset.get(entry.asset);
      if (!a) byAsset.set(entry.asset, (a = { postings: new Set(), entries: 0 }));
      a.postings.add(entry.postingId);
      a.entries++;
    }
    const byType = new Map<string, number>();
    for (const e of this.events) byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
    return {
      ledger: [...byAsset].map(([asset, a]) => ({ asset, postings: a.postings.size, entries: a.entries })),
      events: [...byType].map(([type, count]) => ({ type, count })),
      domain: [...this.observations],
    };
  }

  async finish(): Promise<void> {
    for (const { accountId, asset: code } of this.ledger.touchedBalances()) {
      const asset = this.deps.assets.get(code);
      // as_of is read after the locks were taken, so its order is the order of the commits
      if (asset) this.emit("balance.updated", this.balance(accountId, asset) as unknown as Json, accountId);
    }
    if (this.events.length) {
      await this.tx.events.insert(this.events);
      // Webhook fan-out is due work of this same transaction: an event can never be missed.
      for (const [accountId, events] of groupBy(this.events, (e) => e.accountId)) {
        this.schedule(WEBHOOK_FANOUT, fanoutPayload(events), { accountId });
      }
    }
    if (this.work.length) await this.tx.work.enqueue(this.work);
  }
}
