import type {
  BalanceRecord,
  DeliveryLogRecord,
  DueWorkRecord,
  EventRecord,
  IdempotencyRecord,
  LedgerEntryRecord,
  ReservationRecord,
  ResourceRecord,
  StorageAdapter,
} from "../../ports/storage";
import type { StateEntry } from "../../ports/adapter-state";

/**
 * An independent read path into what an adapter stored: raw rows, read without going through
 * the adapter's own `StorageTx` code, so the suite checks what was really written.
 */
export interface StorageInspector {
  balances(accountId: string): Promise<BalanceRecord[]>;
  entries(accountId: string): Promise<LedgerEntryRecord[]>;
  reservations(accountId: string): Promise<ReservationRecord[]>;
  resources(accountId: string): Promise<ResourceRecord[]>;
  events(accountId: string): Promise<EventRecord[]>;
  idempotencyKeys(accountId: string): Promise<IdempotencyRecord[]>;
  work(): Promise<DueWorkRecord[]>;
  deliveries(accountId: string): Promise<DeliveryLogRecord[]>;
  /** Every record of an adapter-state namespace, in key order (`StorageAdapter.adapterState`). */
  adapterState(namespace: string): Promise<StateEntry[]>;
}

export interface StorageHarness {
  /** A fresh adapter with empty storage, not yet initialised. */
  storage: StorageAdapter;
  inspect: StorageInspector;
  /** Releases what the factory made (e.g. drops the test schema). */
  close(): Promise<void>;
}

export interface StorageConformanceOptions {
  name: string;
  /**
   * Returns a fresh, isolated adapter each call. Tests that need an ability the adapter does
   * not declare in its `capabilities` are skipped, saying which.
   */
  factory: () => Promise<StorageHarness>;
}
