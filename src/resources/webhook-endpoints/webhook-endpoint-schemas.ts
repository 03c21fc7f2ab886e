import { listPaths } from "../../lists/expansion";
import { listParamsShape } from "../../lists/list-params";
import { s, type Input } from "../../validation/schema";
import { metadataParam } from "../../metadata/metadata";
import { headersParam } from "./endpoint-headers";
import { ENDPOINT_STATUSES } from "./webhook-endpoint-machine";
import { SIGNATURE_SCHEMES } from "../../events/signature-schemes";

/** Request schemas of webhook endpoints, their delivery log and replay. */

/** More filters than an endpoint could need (the catalogue's types, each once, and `*`). */
const MAX_FILTERS = 256;

export const urlField = s.string({ min: 1, max: 2048, format: "uri" }).describe("HTTPS address of the receiver");

export const eventsField = s.array(s.eventType({ withAll: true }), { min: 1, max: MAX_FILTERS }).describe('Event types to receive, or ["*"] for every type');

export const descriptionField = s.string({ max: 1000 }).optional();

/** The longest a rotated secret may keep signing beside the new one (`expire_previous_in`): 7 days. */
export const MAX_SECRET_OVERLAP_SECONDS = 7 * 24 * 3600;

export const schemeField = s
  .enum(SIGNATURE_SCHEMES)
  .optional()
  .describe("stripe (default): Service-Signature, Stripe's scheme; standard: Standard Webhooks headers");

const secretField = s
  .string({ min: 1, max: 200 })
  .optional()
  .describe(
    "A signing secret of your own (default: one is generated): whsec_ + base64 of 24 to 64 bytes for standard; whsec_ + 24 to 128 base64 or base64url characters for stripe",
  );

export const createEndpointSchema = s.object({
  url: urlField,
  enabled_events: eventsField,
  description: descriptionField,
  metadata: metadataParam().optional(),
  signature_scheme: schemeField,
  secret: secretField,
  headers: headersParam().optional(),
});

export const updateEndpointSchema = s.object({
  url: urlField.optional(),
  enabled_events: eventsField.optional(),
  description: descriptionField,
  status: s.enum(ENDPOINT_STATUSES).optional().describe("disabled stops deliveries until enabled again"),
  signature_scheme: schemeField.describe("Switch the scheme: every secret still signing must suit the new one (rotate_secret first if not)"),
  metadata: metadataParam().optional().describe('Keys to set; a key set to "" is removed, others are kept'),
  headers: headersParam().optional(),
});

export const listEndpointsSchema = s.object({
  ...listParamsShape,
  status: s.enum(ENDPOINT_STATUSES).optional(),
});

export const listDeliveriesSchema = s.object({
  ...listParamsShape,
  status: s.enum(["succeeded", "failed"] as const).optional(),
  event: s.string({ min: 1, max: 255 }).optional().describe("Only the attempts of this event (evt_…)"),
  expand: s
    .expand(listPaths(["event"] as const))
    .optional()
    .describe("Replace ids with objects in every attempt: data.event"),
});

export const rotateSecretSchema = s.object({
  secret: secretField,
  expire_previous_in: s
    .integer({ min: 0, max: MAX_SECRET_OVERLAP_SECONDS })
    .optional()
    .describe("Seconds the current secret keeps signing beside the new one: 0 to 604800 (7 days), default 86400 (24 hours)"),
});

export const replaySchema = s.object({
  from: s.timestamp().describe("Start of the window (inclusive): at most 7 days ago"),
  to: s.timestamp().optional().describe("End of the window (exclusive); default now"),
});

export const resendSchema = s.object({
  endpoint: s.string({ min: 1, max: 255 }).describe("The webhook endpoint (we_…) to send the event to"),
});

export const recoverSchema = s.object({
  since: s.timestamp().describe("Re-send the events whose deliveries failed at or after this moment: at most 7 days ago"),
});

export type CreateWebhookEndpointInput = Input<typeof createEndpointSchema>;
export type UpdateWebhookEndpointInput = Input<typeof updateEndpointSchema>;
export type ListWebhookEndpointsParams = Input<typeof listEndpointsSchema>;
export type ListDeliveriesParams = Input<typeof listDeliveriesSchema>;
export type RotateSecretInput = Input<typeof rotateSecretSchema>;
export type ReplayInput = Input<typeof replaySchema>;
export type ResendInput = Input<typeof resendSchema>;
export type RecoverInput = Input<typeof recoverSchema>;
