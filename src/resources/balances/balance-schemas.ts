import { listParamsShape } from "../../lists/list-params";
import { s, type Input } from "../../validation/schema";

/** Balances have no `created`: the list pages by asset code, with the usual `limit` and cursor. */

export const listBalancesSchema = s.object({
  limit: listParamsShape.limit,
  starting_after: listParamsShape.starting_after,
  ending_before: listParamsShape.ending_before,
});

export type ListBalancesParams = Input<typeof listBalancesSchema>;
