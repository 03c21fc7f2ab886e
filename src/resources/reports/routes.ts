import { Report, ReportList } from "./report-objects";
import type { DownloadRouteDefinition, RouteDefinition } from "../../engine/route";
import { createReportSchema, listReportsSchema } from "./report-schemas";
import type { ReportsService } from "./reports-service";

/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface ReportsApi {
  reports: Pick<ReportsService, "create" | "retrieve" | "list" | "download">;
}

export const reportRoutes: RouteDefinition<ReportsApi>[] = [
  {
    method: "post",
    path: "/v1/reports",
    summary: "Request a report over a window (answered at once as pending; poll until ready)",
    tag: "Reports",
    scope: "reports:read",
    body: createReportSchema,
    returns: Report,
    handler: ({ api, ctx, body }) => api.reports.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/reports",
    summary: "List reports, newest first; ready ones carry a fresh download URL",
    tag: "Reports",
    scope: "reports:read",
    query: listReportsSchema,
    returns: ReportList,
    handler: ({ api, ctx, query, origin }) => api.reports.list(ctx, query, origin),
  },
  {
    method: "get",
    path: "/v1/reports/:id",
    summary: "Retrieve a report; when ready, with a download URL minted now and valid one hour",
    tag: "Reports",
    scope: "reports:read",
    returns: Report,
    handler: ({ api, ctx, params, origin }) => api.reports.retrieve(ctx, params.id!, origin),
  },
];

/** The file behind a report's URL when the blob store has no URLs of its own: no API key, a signed link. */
export const reportDownloadRoutes: DownloadRouteDefinition<ReportsApi>[] = [
  {
    path: "/v1/files/*",
    summary: "Download a report file by its signed link (no API key; 403 once expired or altered)",
    tag: "Reports",
    handler: ({ api, path, query }) => api.reports.download(path, query),
  },
];
