import type { DeliveryLogRecord, DueWorkRecord, EventRecord, LedgerEntryRecord, ResourceRecord, BalanceRecord, StorageAdapter } from "../../ports/storage";
import type { StorageInspector } from "./harness";

/** What a store's suite reads: the adapter under test and its independent read path (fresh per test). */
export interface SuiteContext {
  readonly storage: StorageAdapter;
  readonly inspect: StorageInspector;
}

export const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

export const account = (id: string) => ({ id, name: id, livemode: false, settings: {}, created: T0 });

export function keysOf(accountId: string, books: BalanceRecord["book"][]) {
  return books.map((book) => ({ accountId, asset: "USDC", chain: "base", book }));
}

export function entries(accountId: string, lines: [BalanceRecord["book"], bigint][], seq = 0): LedgerEntryRecord[] {
  return lines.map(([book, amount], i) => ({
    id: `le_01aaaaaaaaaaaaaaaaaaaaa${String(seq + i).padStart(3, "0")}`,
    accountId,
    postingId: `pst_01aaaaaaaaaaaaaaaaaaaaa${String(seq).padStart(3, "0")}`,
    line: i,
    asset: "USDC",
    chain: "base",
    book,
    amount,
    resource: "po_1",
    created: T0 + seq,
  }));
}

export function event(accountId: string, id: string, created: number): EventRecord {
  return {
    accountId,
    id,
    type: "balance.updated",
    created,
    livemode: false,
    data: { object: { asset: "USDC", available: "1.5", chains: { base: { available: "1.5" } } } },
    request: { id: "req_1", idempotency_key: null },
  };
}

export function resource(accountId: string, id: string, created: number): ResourceRecord {
  return {
    accountId,
    kind: "payout",
    id,
    created,
    status: "created",
    reference: null,
    data: { id, amount: "10", legs: [{ chain: "base" }] },
    version: 1,
    updated: created,
  };
}

export function delivery(accountId: string, id: string, created: number): DeliveryLogRecord {
  return {
    accountId,
    id,
    endpointId: "we_1",
    eventId: "evt_01aaaaaaaaaaaaaaaaaaaaaaaa",
    eventType: "payout.created",
    attempt: 1,
    trigger: "scheduled",
    status: "succeeded",
    responseStatus: 200,
    latencyMs: 12,
    error: null,
    created,
    nextAttemptAt: null,
  };
}

export function work(id: string, runAt: number, dedupeKey: string | null = null): DueWorkRecord {
  return {
    id,
    kind: "test.work",
    accountId: "acct_a",
    livemode: false,
    payload: { n: 1 },
    runAt,
    leaseOwner: null,
    leaseUntil: null,
    attempts: 0,
    lastError: null,
    status: "ready",
    dedupeKey,
    created: T0,
  };
}
