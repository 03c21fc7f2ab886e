import { listParamsShape } from "../../lists/list-params";
import { s, type Input } from "../../validation/schema";

/** Request schemas of API keys (docs/decisions.md §3: scopes such as `payouts:write`; none is full access). */

/** More scopes than a key could need (read and write of every resource, each once). */
const MAX_SCOPES = 256;

/** The longest grace a roll gives the old key: 7 days. */
export const MAX_GRACE_SECONDS = 7 * 86_400;

export const createApiKeySchema = s.object({
  name: s.string({ max: 100 }).optional().describe("A label for the key"),
  scopes: s.array(s.scope(), { max: MAX_SCOPES }).optional().describe("What the key may do (`<resource>:write` implies read); empty or absent: full access"),
});

export const rollApiKeySchema = s.object({
  grace_period: s
    .integer({ min: 0, max: MAX_GRACE_SECONDS })
    .optional()
    .describe("Seconds the old key keeps working beside the new one (default 0: it stops at once)"),
});

export const listApiKeysSchema = s.object({
  limit: listParamsShape.limit,
  starting_after: listParamsShape.starting_after,
  ending_before: listParamsShape.ending_before,
});

export type CreateApiKeyRequest = Input<typeof createApiKeySchema>;
export type RollApiKeyInput = Input<typeof rollApiKeySchema>;
export type ListApiKeysParams = Input<typeof listApiKeysSchema>;
