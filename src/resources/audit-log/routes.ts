import type { RouteDefinition } from "../../engine/route";
import { AuditRecord, AuditRecordList } from "./audit-objects";
import type { AuditLogService } from "./audit-log-service";
import { listAuditLogSchema } from "./audit-schemas";

/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface AuditLogApi {
  auditLog: Pick<AuditLogService, "retrieve" | "list">;
}

/** Read only, and full-access keys only: the log shows who changed the keys themselves. */
export const auditLogRoutes: RouteDefinition<AuditLogApi>[] = [
  {
    method: "get",
    path: "/v1/audit_log",
    summary: "List the account's audit records, newest first: every change to API keys, webhook endpoints and the payout policy",
    tag: "Audit log",
    scope: "full_access",
    query: listAuditLogSchema,
    returns: AuditRecordList,
    handler: ({ api, ctx, query }) => api.auditLog.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/audit_log/:id",
    summary: "Retrieve an audit record",
    tag: "Audit log",
    scope: "full_access",
    returns: AuditRecord,
    handler: ({ api, ctx, params }) => api.auditLog.retrieve(ctx, params.id!),
  },
];
