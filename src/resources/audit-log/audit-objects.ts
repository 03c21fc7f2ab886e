import { listOf } from "../../api/common-objects";
import { o } from "../../api/response-schema";
import { AUDIT_ACTIONS, AUDITED_RESOURCES } from "./audit-doc";

export const AuditRecord = o.named(
  "AuditRecord",
  o.object(
    {
      id: o.id("aud"),
      object: o.literal("audit_record"),
      action: o.enum(AUDIT_ACTIONS, { description: "What changed; an event of the same type was emitted with the change" }),
      actor: o.object(
        {
          type: o.enum(["api_key", "host", "engine"] as const, {
            description:
              "`api_key`: a request with that key; `host`: the embedding host's own call of the engine; `engine`: the engine itself (a 410 from a receiver)",
          }),
          api_key: o.nullable(o.id("key", { description: "The key the request authenticated with (its id, never the key)" })),
        },
        { description: "Who made the change" },
      ),
      resource: o.object({
        type: o.enum(AUDITED_RESOURCES),
        id: o.string({ description: "The id of the key, endpoint or account changed" }),
      }),
      changes: o.record(o.object({ from: o.json(), to: o.json() }), {
        description: "Each field that changed, with its value before and after (secrets are never recorded, only that one changed)",
      }),
      request: o.object(
        {
          id: o.nullable(o.string({ description: "`req_…` of the request that made the change" })),
          idempotency_key: o.nullable(o.string()),
        },
        { description: "The request that made the change (both null for the host's and the engine's own)" },
      ),
      livemode: o.boolean(),
      created: o.time(),
    },
    { description: "A change to credentials or money-moving configuration: written once, never edited or deleted" },
  ),
);
export const AuditRecordList = listOf("AuditRecord", AuditRecord);
