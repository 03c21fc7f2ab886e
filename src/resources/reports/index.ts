import { defineModule, work } from "../../engine/resource-module";
import { REPORT_BUILD, ReportsService } from "./reports-service";
import { reportDownloadRoutes, reportRoutes } from "./routes";

/**
 * Reports: CSV exports of the ledger over a window, built in the background into the blob store
 * and downloaded by links that need no API key. Builds run in a lane of their own, one at a time
 * per process, with a lease a long build outlasts.
 */
export const reportsModule = defineModule({
  name: "reports",
  routes: reportRoutes,
  downloads: reportDownloadRoutes,
  setup: ({ deps }) => {
    const reports = new ReportsService(deps);
    return {
      services: { reports },
      work: [work(REPORT_BUILD, (job) => reports.buildDue(job), { concurrency: 1, leaseMs: deps.config.reportBuildLeaseMs })],
    };
  },
});
