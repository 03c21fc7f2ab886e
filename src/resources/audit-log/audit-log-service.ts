import { err, ok, type Result } from "neverthrow";
import type { ModuleDeps, RequestContext } from "../../engine/context";
import { type ApiError, fail } from "../../errors";
import { type ListEnvelope, type PagedList, pagedList } from "../../lists/list-page";
import { AUDIT_RECORDS, type AuditRecordObject, presentAudit } from "./audit-doc";
import { type ListAuditLogParams, listAuditLogSchema } from "./audit-schemas";

/**
 * The account's audit log: read only. Records are written by the changes they record
 * (`recordAudit`), in the same transaction; nothing edits or deletes one.
 */
export class AuditLogService {
  constructor(private readonly deps: Pick<ModuleDeps, "cursors" | "parse" | "storage">) {}

  async retrieve(ctx: RequestContext, id: string): Promise<Result<AuditRecordObject, ApiError>> {
    const stored = await this.deps.storage.read((tx) => AUDIT_RECORDS.get(tx, ctx.accountId, id));
    return stored ? ok(presentAudit(stored.doc)) : fail("resource_missing", `No such audit record: ${id}`, { param: "id" });
  }

  /** Newest first; `action` keeps one kind of change. */
  list(ctx: RequestContext, params: ListAuditLogParams = {}): PagedList<AuditRecordObject> {
    return pagedList(params, (p) => this.page(ctx, p));
  }

  private async page(ctx: RequestContext, input: ListAuditLogParams): Promise<Result<ListEnvelope<AuditRecordObject>, ApiError>> {
    const parsed = listAuditLogSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { action, ...rest } = parsed.value;
    return AUDIT_RECORDS.list(this.deps, ctx, { ...rest, ...(action !== undefined ? { status: action } : {}) }, presentAudit);
  }
}
