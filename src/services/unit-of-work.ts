import { groupBy } from "../collections/group-by";
import type { EventType } from "../events/catalogue";
import { WEBHOOK_FANOUT_KIND, fanoutPayload } from "../events/delivery-work";
import { Ledger } from "../ledger/ledger";
import { balanceObject, type BalanceObject } from "../ledger/balances";
import type { AssetDefinition } from "../money/assets";
import type { DueWorkRecord, EventRecord, Json, StorageTx } from "../ports/storage";
import { newDueWork } from "../workers/due-work";
import type { EngineDeps, RequestContext } from "./context";

export interface ScheduleOptions {
  runAt?: number;
  dedupeKey?: string;
  accountId?: string | null;
  /** Concurrency group of the item (see `DueWorkRecord.group`). */
  group?: string;
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

  constructor(
    readonly tx: StorageTx,
    readonly deps: EngineDeps,
    readonly ctx: RequestContext,
  ) {
    this.now = deps.clock.now();
    this.ledger = new Ledger(tx, deps.ids, this.now);
  }

  /**
   * Records an event about `object` for the outbox. `object` becomes the snapshot in `data.object`
   * as it is, not copied: pass a freshly presented object and do not change it afterwards.
   */
  emit(type: EventType, object: Json, accountId: string = this.ctx.accountId): string {
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

  /** Schedules due work (default: run now). */
  schedule(kind: string, payload: Json, options: ScheduleOptions = {}): void {
    this.work.push(
      newDueWork(this.deps.ids, this.now, kind, payload, {
        ...options,
        accountId: options.accountId === undefined ? this.ctx.accountId : options.accountId,
      }),
    );
  }

  /** True when something scheduled is due already, so the workers should wake. */
  get scheduledDueWork(): boolean {
    return this.work.some((w) => w.runAt <= this.now);
  }

  /** The balance of `asset` as this unit of work leaves it (the asset must have been posted to). */
  balance(accountId: string, asset: AssetDefinition): BalanceObject {
    return balanceObject(asset, this.ledger.lockedRows(accountId, asset.code), this.deps.clock.now());
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
        this.schedule(WEBHOOK_FANOUT_KIND, fanoutPayload(events), { accountId });
      }
    }
    if (this.work.length) await this.tx.work.enqueue(this.work);
  }
}
