import { s, type Input } from "../../validation/schema";
import { API_VERSIONS } from "../../versions/api-versions";

/** `POST /v1/account`: what an account may change about itself (its default API version). */
export const updateAccountSchema = s.object({
  api_version: s.enum(API_VERSIONS).optional(),
});

export type UpdateAccountInput = Input<typeof updateAccountSchema>;
