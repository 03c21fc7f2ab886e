import type { SpanAttributes, SpanOptions } from "../ports/tracer";
import type { DueWorkRecord } from "../ports/storage";
import { traceContextOf } from "./due-work";

/** A payrail id (`po_…`, `we_…`): what a payload's fields are worth recording of. */
const PAYRAIL_ID = /^[a-z]+_[0-9A-Za-z]+$/;
/** Ids recorded of one field at most (a batch's chunk holds hundreds). */
const MAX_IDS = 25;

/**
 * The span of a due work item: a child of the context it was scheduled in (the request's trace,
 * kept with the item), with its ids and the payrail ids its payload names, field by field
 * (`payrail.work.payouts` of a broadcast, `payrail.work.endpoint` of a delivery).
 */
export function workSpan(job: DueWorkRecord): SpanOptions {
  const attributes: SpanAttributes = { "payrail.job_id": job.id, "payrail.work.kind": job.kind, "payrail.work.attempt": job.attempts };
  if (job.accountId !== null) attributes["payrail.account_id"] = job.accountId;
  if (job.request?.id) attributes["payrail.request_id"] = job.request.id;
  if (job.payload && typeof job.payload === "object" && !Array.isArray(job.payload)) {
    for (const [field, value] of Object.entries(job.payload)) {
      if (typeof value === "string" && PAYRAIL_ID.test(value)) attributes[`payrail.work.${field}`] = value;
      else if (Array.isArray(value)) {
        const ids = value.filter((v): v is string => typeof v === "string" && PAYRAIL_ID.test(v));
        if (ids.length) attributes[`payrail.work.${field}`] = ids.slice(0, MAX_IDS);
      }
    }
  }
  return { kind: "consumer", attributes, parent: traceContextOf(job.request) };
}
