import { Report, ReportList } from "../../api/objects";
import type { DownloadRouteDefinition, RouteDefinition } from "../../engine/route";
import { createReportSchema, listReportsSchema } from "./report-schemas";

export const reportRoutes: RouteDefinition[] = [
  {
    method: "post",
    path: "/v1/reports",
    summary: "Request a report over a window (answered at once as pending; poll until ready)",
    tag: "Reports",
    scope: "reports:read",
    body: createReportSchema,
    returns: Report,
    handler: ({ engine, ctx, body }) => engine.reports.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/reports",
    summary: "List reports, newest first; ready ones carry a fresh download URL",
    tag: "Reports",
    scope: "reports:read",
    query: listReportsSchema,
    returns: ReportList,
    handler: ({ engine, ctx, query, origin }) => engine.reports.list(ctx, query, origin),
  },
  {
    method: "get",
    path: "/v1/reports/:id",
    summary: "Retrieve a report; when ready, with a download URL minted now and valid one hour",
    tag: "Reports",
    scope: "reports:read",
    returns: Report,
    handler: ({ engine, ctx, params, origin }) => engine.reports.retrieve(ctx, params.id!, origin),
  },
];

/** The file behind a report's URL when the blob store has no URLs of its own: no API key, a signed link. */
export const reportDownloadRoutes: DownloadRouteDefinition[] = [
  {
    path: "/v1/files/*",
    summary: "Download a report file by its signed link (no API key; 403 once expired or altered)",
    tag: "Reports",
    handler: ({ engine, path, query }) => engine.reports.download(path, query),
  },
];
