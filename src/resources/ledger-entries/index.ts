import { defineModule, operations } from "../../engine/module";
import { LedgerEntriesService } from "./ledger-entries-service";
import { ledgerEntryRoutes } from "./routes";

export type { ListLedgerEntriesParams } from "./ledger-entries-service";
export type { LedgerEntriesApi } from "./routes";

/** The account's ledger entries, as the API lists them (and as reports can be checked against). */
export const ledgerEntriesModule = defineModule({
  name: "ledger_entries",
  routes: ledgerEntryRoutes,
  setup: ({ deps }) => ({ api: { ledgerEntries: operations(new LedgerEntriesService(deps), ["retrieve", "list"]) } }),
});
