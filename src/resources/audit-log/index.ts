import { defineModule, operations } from "../../engine/module";
import { AuditLogService } from "./audit-log-service";
import { auditLogRoutes } from "./routes";

export type { AuditAction, AuditRecordObject } from "./audit-doc";
export type { ListAuditLogParams } from "./audit-schemas";
export type { AuditLogApi } from "./routes";

/**
 * The audit log: a record of every change to credentials and money-moving configuration (API
 * keys, webhook endpoints, the payout policy), with who made it and from which request. The
 * modules that make those changes write the records (`recordAudit`) and declare the events.
 */
export const auditLogModule = defineModule({
  name: "audit_log",
  ids: { aud: "audit_record" },
  tags: [{ name: "Audit log", description: "Who changed which key, endpoint or policy, when, from which request: read only" }],
  routes: auditLogRoutes,
  setup: ({ deps }) => ({ api: { auditLog: operations(new AuditLogService(deps), ["retrieve", "list"]) } }),
});
