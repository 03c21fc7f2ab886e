import {
  assertStateNamespace,
  Mutex,
  roomOf,
  type AdapterStateStore,
  type AdapterStateTx,
  type ClaimRequest,
  type CommitOptions,
  type DueWorkRecord,
  type StorageAdapter,
  type StorageCapabilities,
  type StorageTx,
} from "../../src/ports/public";
import { emptyTables, memoryTx, type MemoryTables, type MemoryTx } from "./memory-tables";
import { accountStore } from "./stores/accounts";
import { deliveryLogStore } from "./stores/deliveries";
import { adapterStateTx } from "./stores/adapter-state";
import { depositAddressStore } from "./stores/deposit-addresses";
import { byRunAt, claimable, leased, workStore } from "./stores/due-work";
import { eventStore } from "./stores/events";
import { idempotencyStore } from "./stores/idempotency";
import { ledgerStore } from "./stores/ledger";
import { metaStore } from "./stores/meta";
import { ownerAlive, ownerStore } from "./stores/owners";
import { rateLimitStore } from "./stores/rate-limits";
import { resourceStore } from "./stores/resources";

export type { MemoryTables } from "./memory-tables";

const clone = <T>(value: T): T => structuredClone(value);

/**
 * Storage in process memory: for tests, examples and single-process hosts that need no
 * durability. Transactions run one at a time (a mutex), so they are serializable; a transaction
 * that throws is undone from its undo log. Records are copied and deep-frozen when written and
 * handed out frozen when read, so callers can never change stored state through what they hold
 * (trying to throws, which also catches code that mutates what storage returned).
 */
export class MemoryStorage implements StorageAdapter {
  readonly name = "memory";
  readonly capabilities: StorageCapabilities = { concurrentTransactions: false };
  private readonly t: MemoryTables = emptyTables();
  private readonly mutex = new Mutex();

  async init(): Promise<void> {}

  async close(): Promise<void> {}

  /** A deep copy of every table: the conformance suite's independent read path. */
  dump(): MemoryTables {
    // the indexes follow from the tables: left empty rather than copied
    return clone({ ...this.t, postingLines: new Map(), workByDedupeKey: new Map(), adapterStateOrder: new Map() });
  }

  transaction<T>(fn: (tx: StorageTx) => Promise<T>): Promise<T> {
    return this.run((m) => fn(view(m)));
  }

  adapterState(namespace: string): AdapterStateStore {
    assertStateNamespace(namespace);
    return {
      namespace,
      transaction: <T>(fn: (state: AdapterStateTx) => Promise<T>, _options?: CommitOptions) => this.run((m) => fn(adapterStateTx(m, namespace))),
    };
  }

  /** One transaction: alone (the mutex), undone from its log when `fn` throws. */
  private run<T>(fn: (m: MemoryTx) => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      const undo: (() => void)[] = [];
      try {
        return await fn(memoryTx(this.t, undo));
      } catch (e) {
        for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
        throw e;
      }
    });
  }

  /** As a transaction: in memory, atomic costs nothing (and durable means nothing). */
  autocommit<T>(fn: (tx: StorageTx) => Promise<T>): Promise<T> {
    return this.transaction(fn);
  }

  claimDueWork(request: ClaimRequest): Promise<DueWorkRecord[]> {
    return this.mutex.run(async () => {
      const { now, onlyKinds, exceptKinds, groupLimit, accountRoom, exceptGroups } = request;
      if (!ownerAlive(memoryTx(this.t, []), request.owner, now)) return [];
      const leasedPerGroup = new Map<string, number>();
      if (groupLimit !== undefined) {
        for (const w of this.t.work.values()) {
          if (w.group && w.leaseUntil !== null && w.leaseUntil > now) {
            leasedPerGroup.set(w.group, (leasedPerGroup.get(w.group) ?? 0) + 1);
          }
        }
      }
      const due = [...this.t.work.values()]
        .filter(
          (w) =>
            claimable(w, now) &&
            (onlyKinds === undefined || onlyKinds.includes(w.kind)) &&
            (exceptKinds === undefined || !exceptKinds.includes(w.kind)) &&
            !(w.group && exceptGroups?.includes(w.group)),
        )
        .sort(byRunAt);
      const claimed: DueWorkRecord[] = [];
      const taken = new Map<string, number>();
      for (const w of due) {
        if (claimed.length >= request.limit) break;
        if (accountRoom && w.accountId !== null && (taken.get(w.accountId) ?? 0) >= roomOf(accountRoom, w.accountId)) continue;
        if (groupLimit !== undefined && w.group) {
          const leased = leasedPerGroup.get(w.group) ?? 0;
          if (leased >= groupLimit) continue;
          leasedPerGroup.set(w.group, leased + 1);
        }
        if (w.accountId !== null) taken.set(w.accountId, (taken.get(w.accountId) ?? 0) + 1);
        const lease = leased(w, request.owner, now + request.leaseMs);
        this.t.work.set(w.id, lease);
        claimed.push(lease);
      }
      return claimed;
    });
  }
}

/** One transaction as the port's stores. */
function view(m: MemoryTx): StorageTx {
  return {
    accounts: accountStore(m),
    ledger: ledgerStore(m),
    resources: resourceStore(m),
    events: eventStore(m),
    idempotency: idempotencyStore(m),
    work: workStore(m),
    owners: ownerStore(m),
    rateLimits: rateLimitStore(m),
    deliveries: deliveryLogStore(m),
    meta: metaStore(m),
    depositAddresses: depositAddressStore(m),
  };
}
