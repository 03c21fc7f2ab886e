import { listParamsShape, searchParamShape } from "../../lists/list-params";
import { s, type Input } from "../../validation/schema";
import { metadataParam } from "../../metadata/metadata";
import { SCREENING_STATUSES } from "./screening-machine";

/** Request schemas of recipients: validation, the typed inputs below, and the OpenAPI document. */

export const chainAddresses = s.record(s.string({ min: 1, max: 32 }), s.string({ min: 1, max: 128 }));

export const createRecipientSchema = s.object({
  name: s.string({ min: 1, max: 255 }),
  chain_addresses: chainAddresses.describe("Chain name to address, validated per chain format"),
  screening: s.boolean().optional().describe("Screen once at registration (default false)"),
  metadata: metadataParam().optional(),
});

export const updateRecipientSchema = s.object({
  name: s.string({ min: 1, max: 255 }).optional(),
  chain_addresses: chainAddresses.optional().describe("Replaces all addresses"),
  metadata: metadataParam().optional().describe('Keys to set; a key set to "" is removed, others are kept'),
});

export const listRecipientsSchema = s.object({
  ...listParamsShape,
  ...searchParamShape,
  screening_status: s.enum(SCREENING_STATUSES).optional(),
});

export type CreateRecipientInput = Input<typeof createRecipientSchema>;
export type UpdateRecipientInput = Input<typeof updateRecipientSchema>;
export type ListRecipientsParams = Input<typeof listRecipientsSchema>;
