import type { AuditRecord } from "./audit-objects";
import type { Out } from "../../api/response-schema";
import type { Actor } from "../../engine/context";
import { DocStore } from "../../engine/doc-store";
import type { UnitOfWork } from "../../engine/unit-of-work";
import type { Json } from "../../ports/storage";
import { isoTime } from "../../validation/timestamp";

/**
 * What the audit log records: every change to credentials and to money-moving configuration.
 * Each action is also the type of the event emitted beside the record (`recordAudit`).
 */
export const AUDIT_ACTIONS = [
  "api_key.created",
  "api_key.rolled",
  "api_key.revoked",
  "webhook_endpoint.created",
  "webhook_endpoint.updated",
  "webhook_endpoint.secret_rotated",
  "webhook_endpoint.disabled",
  "webhook_endpoint.deleted",
  "account.policy_updated",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDITED_RESOURCES = ["api_key", "webhook_endpoint", "account"] as const;
export type AuditedResource = (typeof AUDITED_RESOURCES)[number];

/** A field's value before and after the change (null: it had none, or has none now). */
export interface AuditChange {
  from: Json;
  to: Json;
}

/** An audit record as stored: written once, in the transaction of the change it records, never updated. */
export interface AuditDoc {
  id: string;
  action: AuditAction;
  actor: Actor;
  resource: { type: AuditedResource; id: string };
  changes: Record<string, AuditChange>;
  request: { id: string | null; idempotencyKey: string | null };
  livemode: boolean;
  created: number;
}

export type AuditRecordObject = Out<typeof AuditRecord>;

/** The action is the document's status, so the list's `action` filter is the status index's. */
export const AUDIT_RECORDS = new DocStore<AuditDoc>({ kind: "audit_record", version: 1, status: (d) => d.action, reference: (d) => d.resource.id });

export function presentAudit(doc: AuditDoc): AuditRecordObject {
  return {
    id: doc.id,
    object: "audit_record",
    action: doc.action,
    actor: { type: doc.actor.type, api_key: doc.actor.type === "api_key" ? doc.actor.apiKey : null },
    resource: { type: doc.resource.type, id: doc.resource.id },
    changes: doc.changes,
    request: { id: doc.request.id, idempotency_key: doc.request.idempotencyKey },
    livemode: doc.livemode,
    created: isoTime(doc.created),
  };
}

/** The fields of `after` that differ from `before` (compared as JSON), as changes. */
export function changesBetween(before: Record<string, Json>, after: Record<string, Json>): Record<string, AuditChange> {
  const changes: Record<string, AuditChange> = {};
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const from = before[field] ?? null;
    const to = after[field] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { from, to };
  }
  return changes;
}

/**
 * Records a change in the unit of work that makes it: the audit record (who, from which request,
 * what changed) and the event of the same name about `object`. Both commit with the change or
 * not at all. `object` and `changes` must hold no secret.
 */
export async function recordAudit(
  uow: UnitOfWork,
  action: AuditAction,
  resource: AuditDoc["resource"],
  object: Json,
  changes: Record<string, AuditChange>,
): Promise<void> {
  const { ctx } = uow;
  const doc: AuditDoc = {
    id: uow.deps.ids.next("aud"),
    action,
    actor: ctx.actor ?? { type: "host" },
    resource,
    changes,
    request: { id: ctx.requestId, idempotencyKey: ctx.idempotencyKey },
    livemode: ctx.livemode,
    created: uow.now,
  };
  await AUDIT_RECORDS.insert(uow.tx, ctx.accountId, uow.now, [doc]);
  uow.emit(action, object);
}
