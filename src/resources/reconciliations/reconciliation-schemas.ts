import { listParamsShape } from "../../lists/list-params";
import { s, type Input } from "../../validation/schema";
import { RECONCILIATION_STATUSES } from "./reconciliation-doc";

export const listReconciliationsSchema = s.object({
  ...listParamsShape,
  chain: s.chain().optional().describe("Only readings of this chain"),
  asset: s.asset().optional().describe("Only readings of this asset"),
  status: s.enum(RECONCILIATION_STATUSES).optional().describe("`balanced` or `drift`"),
});
export type ListReconciliationsParams = Input<typeof listReconciliationsSchema>;

export const runReconciliationSchema = s.object({
  chain: s.chain().optional().describe("Read this chain only (default: every chain of the mode whose adapter reports its holdings)"),
});
export type RunReconciliationInput = Input<typeof runReconciliationSchema>;

export const acceptReconciliationSchema = s.object({
  reason: s.string({ min: 1, max: 500 }).describe("Why the difference is the operator's own (a top-up of the hot wallet): kept with the record"),
});
export type AcceptReconciliationInput = Input<typeof acceptReconciliationSchema>;
