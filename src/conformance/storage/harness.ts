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
  ChainDepositRecord,
  ChainTransactionRecord,
  SimulatedTransferRecord,
} from "../../ports/storage";

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
  /** Chain-state transactions and deposits of a chain (optional: checked when given). */
  chainTransactions?(chain: string): Promise<ChainTransactionRecord[]>;
  chainDeposits?(chain: string): Promise<ChainDepositRecord[]>;
  /** Simulated transfers of a chain, by transfer id (optional: checked when given). */
  simulatedTransfers?(chain: string): Promise<SimulatedTransferRecord[]>;
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
