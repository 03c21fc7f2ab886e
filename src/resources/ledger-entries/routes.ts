import { LedgerEntry, LedgerEntryList } from "../../ledger/ledger-objects";
import type { RouteDefinition } from "../../engine/route";
import { listLedgerEntriesSchema } from "./ledger-entries-service";
import type { LedgerEntriesService } from "./ledger-entries-service";

/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface LedgerEntriesApi {
  ledgerEntries: Pick<LedgerEntriesService, "retrieve" | "list">;
}

export const ledgerEntryRoutes: RouteDefinition<LedgerEntriesApi>[] = [
  {
    method: "get",
    path: "/v1/ledger_entries",
    summary: "List the account's ledger entries (available, reserved, pending books), newest first",
    tag: "Balances",
    scope: "balances:read",
    query: listLedgerEntriesSchema,
    returns: LedgerEntryList,
    handler: ({ api, ctx, query }) => api.ledgerEntries.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/ledger_entries/:id",
    summary: "Retrieve a ledger entry",
    tag: "Balances",
    scope: "balances:read",
    returns: LedgerEntry,
    handler: ({ api, ctx, params }) => api.ledgerEntries.retrieve(ctx, params.id!),
  },
];
