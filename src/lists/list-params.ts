import { s } from "../validation/schema";

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 200;

/**
 * The list parameters every list endpoint shares (docs/decisions.md §5). A list adds its own filters
 * (`status`, `type`, `search`, `expand[]`) next to these.
 */
export const listParamsShape = {
  limit: s.integer({ min: 1, max: MAX_LIMIT, coerce: true }).optional().describe("1 to 200, default 20"),
  starting_after: s
    .string({ max: 512, pattern: /^cur_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, code: "cursor_invalid" })
    .optional()
    .describe("The next_cursor of the previous page (400 cursor_invalid for any other value)"),
  ending_before: s
    .string({ max: 512, pattern: /^cur_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, code: "cursor_invalid" })
    .optional()
    .describe("The previous_cursor of a page: the page before it, newest first (400 cursor_invalid for any other value; not with starting_after)"),
  created_gte: s.timestamp().optional().describe("Created at or after: a date (UTC day) or timestamp"),
  created_lt: s.timestamp().optional().describe("Created before: a date (UTC day) or timestamp"),
};

export const searchParamShape = {
  search: s
    .string({ min: 1, max: 560 })
    .optional()
    .describe("A prefix of reference (up to 255 characters), an exact id, or metadata[key]:value (the objects whose metadata has key set to exactly value)"),
};

export interface ListParams {
  limit?: number;
  starting_after?: string;
  ending_before?: string;
  created_gte?: number;
  created_lt?: number;
  search?: string;
}
