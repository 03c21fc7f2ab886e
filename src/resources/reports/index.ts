import { defineModule, operations, work } from "../../engine/module";
import { REPORT_EVENTS } from "./report-events";
import { REPORT_BUILD, ReportsService } from "./reports-service";
import { reportDownloadRoutes, reportRoutes } from "./routes";

export type { ReportFormat, ReportObject, ReportStatus, ReportType } from "./report-doc";
export type { CreateReportInput, ListReportsParams } from "./report-schemas";
export type { ReportsApi } from "./routes";

/**
 * Reports: CSV exports of the ledger over a window, built in the background into the blob store
 * and downloaded by links that need no API key. Builds run in a lane of their own, one at a time
 * per process, with a lease a long build outlasts.
 */
export const reportsModule = defineModule({
  name: "reports",
  ids: { rpt: "report" },
  scopes: ["reports"],
  tags: [{ name: "Reports", description: "CSV files of the ledger, built in the background, and their signed download links" }],
  events: REPORT_EVENTS,
  routes: reportRoutes,
  downloads: reportDownloadRoutes,
  setup: ({ deps }) => {
    const reports = new ReportsService(deps);
    return {
      api: { reports: operations(reports, ["create", "retrieve", "list", "download"]) },
      work: [work(REPORT_BUILD, (job) => reports.buildDue(job), { concurrency: 1, leaseMs: deps.config.reportBuildLeaseMs })],
    };
  },
});
