import { listParamsShape } from "../../../src/lists/list-params";
import { s, type Input } from "../../../src/validation/schema";
import { TRANSFER_STATUSES } from "./transfer-machine";

export const createTransferSchema = s.object({
  destination: s.string({ min: 1, max: 64 }).describe("The receiving account (acct_…), of the same mode"),
  asset: s.asset(),
  chain: s.chain().describe("The chain whose balance moves"),
  amount: s.amount(),
  description: s.string({ max: 255 }).optional(),
});

export const listTransfersSchema = s.object({
  ...listParamsShape,
  status: s.enum(TRANSFER_STATUSES).optional(),
});

export type CreateTransferInput = Input<typeof createTransferSchema>;
export type ListTransfersParams = Input<typeof listTransfersSchema>;
