import { listParamsShape } from "../../lists/list-params";
import { s, type Input } from "../../validation/schema";
import { AUDIT_ACTIONS } from "./audit-doc";

export const listAuditLogSchema = s.object({
  ...listParamsShape,
  action: s.enum(AUDIT_ACTIONS).optional().describe("Only records of this action"),
});

export type ListAuditLogParams = Input<typeof listAuditLogSchema>;
