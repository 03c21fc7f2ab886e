import { listPaths } from "../../lists/expansion";
import { listParamsShape } from "../../lists/list-params";
import { ok } from "neverthrow";
import { s, Schema, type Input, type JsonSchema, type ParseContext } from "../../validation/schema";
import { metadataParam } from "../../metadata/metadata";
import { ENDPOINT_STATUSES } from "./webhook-endpoint-machine";

/** Request schemas of webhook endpoints, their delivery log and replay. */

/** More filters than an endpoint could need (the catalogue's types, each once, and `*`). */
const MAX_FILTERS = 256;

export const urlField = s.string({ min: 1, max: 2048, format: "uri" }).describe("HTTPS address of the receiver");

export const eventsField = s.array(s.eventType({ withAll: true }), { min: 1, max: MAX_FILTERS }).describe('Event types to receive, or ["*"] for every type');

export const descriptionField = s.string({ max: 1000 }).optional();

/** The most deliveries per second an endpoint may ask to be limited to. */
export const MAX_RATE_LIMIT = 10_000;

/** `inner`, or `""`, which clears the setting (null: yields null; a null field is an absent one, as everywhere). */
class ClearableSchema<T, I> extends Schema<T | null, I | ""> {
  constructor(private readonly inner: Schema<T, I>) {
    super();
  }
  parse(value: unknown, path: string, ctx: ParseContext) {
    return value === "" ? ok(null) : this.inner.parse(value, path, ctx);
  }
  protected baseJsonSchema(): JsonSchema {
    return { anyOf: [this.inner.jsonSchema(), { type: "string", enum: [""] }] };
  }
}

export const rateLimitField = new ClearableSchema(s.integer({ min: 1, max: MAX_RATE_LIMIT }))
  .describe('Deliveries per second at most, across every engine process; "" removes the limit')
  .optional();

export const createEndpointSchema = s.object({
  url: urlField,
  enabled_events: eventsField,
  description: descriptionField,
  metadata: metadataParam().optional(),
  rate_limit: rateLimitField,
});

export const updateEndpointSchema = s.object({
  url: urlField.optional(),
  enabled_events: eventsField.optional(),
  description: descriptionField,
  status: s.enum(ENDPOINT_STATUSES).optional().describe("disabled stops deliveries until enabled again"),
  rate_limit: rateLimitField,
  metadata: metadataParam().optional().describe('Keys to set; a key set to "" is removed, others are kept'),
});

export const listEndpointsSchema = s.object({
  ...listParamsShape,
  status: s.enum(ENDPOINT_STATUSES).optional(),
});

export const listDeliveriesSchema = s.object({
  ...listParamsShape,
  status: s.enum(["succeeded", "failed"] as const).optional(),
  expand: s
    .expand(listPaths(["event"] as const))
    .optional()
    .describe("Replace ids with objects in every attempt: data.event"),
});

export const replaySchema = s.object({
  from: s.timestamp().describe("Start of the window (inclusive): at most 7 days ago"),
  to: s.timestamp().optional().describe("End of the window (exclusive); default now"),
});

export type CreateWebhookEndpointInput = Input<typeof createEndpointSchema>;
export type UpdateWebhookEndpointInput = Input<typeof updateEndpointSchema>;
export type ListWebhookEndpointsParams = Input<typeof listEndpointsSchema>;
export type ListDeliveriesParams = Input<typeof listDeliveriesSchema>;
export type ReplayInput = Input<typeof replaySchema>;
