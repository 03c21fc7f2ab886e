import { listPaths } from "../../lists/expansion";
import { listParamsShape } from "../../lists/list-params";
import { s, type Input } from "../../validation/schema";
import { metadataParam } from "../../metadata/metadata";
import { ENDPOINT_STATUSES } from "./webhook-endpoint-machine";

/** Request schemas of webhook endpoints, their delivery log and replay. */

/** More filters than an endpoint could need (the catalogue's types, each once, and `*`). */
const MAX_FILTERS = 256;

export const urlField = s.string({ min: 1, max: 2048, format: "uri" }).describe("HTTPS address of the receiver");

export const eventsField = s.array(s.eventType({ withAll: true }), { min: 1, max: MAX_FILTERS }).describe('Event types to receive, or ["*"] for every type');

export const descriptionField = s.string({ max: 1000 }).optional();

/** A signing secret a client brings (`whsec_` then 24 to 64 bytes, base64 or base64url), e.g. `payrail listen`'s. */
export const SUPPLIED_SECRET = /^whsec_[A-Za-z0-9+/_-]{32,86}={0,2}$/;

export const createEndpointSchema = s.object({
  url: urlField,
  enabled_events: eventsField,
  description: descriptionField,
  secret: s
    .string({ pattern: SUPPLIED_SECRET })
    .optional()
    .describe("The signing secret to use (whsec_ then 24 to 64 random bytes, base64); default a new one"),
  metadata: metadataParam().optional(),
});

export const updateEndpointSchema = s.object({
  url: urlField.optional(),
  enabled_events: eventsField.optional(),
  description: descriptionField,
  status: s.enum(ENDPOINT_STATUSES).optional().describe("disabled stops deliveries until enabled again"),
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
