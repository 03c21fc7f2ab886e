import { LedgerEntry, LedgerEntryList } from "../../api/objects";
import type { RouteDefinition } from "../../engine/route";
import { listLedgerEntriesSchema } from "./ledger-entries-service";

export const ledgerEntryRoutes: RouteDefinition[] = [
  {
    method: "get",
    path: "/v1/ledger_entries",
    summary: "List the account's ledger entries (available, reserved, pending books), newest first",
    tag: "Balances",
    scope: "balances:read",
    query: listLedgerEntriesSchema,
    returns: LedgerEntryList,
    handler: ({ engine, ctx, query }) => engine.ledgerEntries.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/ledger_entries/:id",
    summary: "Retrieve a ledger entry",
    tag: "Balances",
    scope: "balances:read",
    returns: LedgerEntry,
    handler: ({ engine, ctx, params }) => engine.ledgerEntries.retrieve(ctx, params.id!),
  },
];
