import { defineModule } from "../../engine/resource-module";
import { LedgerEntriesService } from "./ledger-entries-service";
import { ledgerEntryRoutes } from "./routes";

/** The account's ledger entries, as the API lists them (and as reports can be checked against). */
export const ledgerEntriesModule = defineModule({
  name: "ledger_entries",
  routes: ledgerEntryRoutes,
  setup: ({ deps }) => ({ services: { ledgerEntries: new LedgerEntriesService(deps) } }),
});
