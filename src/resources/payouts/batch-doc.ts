import type { PayoutBatch } from "./payout-objects";
import type { Out } from "../../api/response-schema";
import type { BatchStatus } from "./batch-machine";
import type { PayoutStatus } from "./payout-machine";
import type { AssetRegistry } from "../../money/assets";
import { formatAmount } from "../../money/amount";
import { isoTime } from "../../validation/timestamp";
import { DocStore } from "../../engine/doc-store";
import type { BatchOpening } from "./batch-acceptance";
import { type Metadata, presentMetadata } from "../../metadata/metadata";

/** A batch as stored. */
export interface BatchDoc {
  id: string;
  status: BatchStatus;
  reference: string | null;
  funding: { asset: string; source: "auto" };
  legCount: number;
  /** Σ leg amounts, base units. */
  totalAmount: string;
  /** How many of its payouts are in each status. */
  counts: Partial<Record<PayoutStatus, number>>;
  /** Absent on documents written before metadata existed. */
  metadata?: Metadata;
  created: number;
  completedAt: number | null;
  /** While a sliced acceptance opens its payouts (`batch-acceptance.ts`); absent once all are open. */
  opening?: BatchOpening;
}

export const BATCHES = new DocStore<BatchDoc>({
  kind: "payout_batch",
  version: 1,
  status: (doc) => doc.status,
  reference: (doc) => doc.reference,
});

/** The batch object of docs/decisions.md §4. */
export type BatchObject = Out<typeof PayoutBatch>;

export function presentBatch(assets: AssetRegistry, doc: BatchDoc): BatchObject {
  return {
    id: doc.id,
    object: "payout_batch",
    status: doc.status,
    reference: doc.reference,
    funding: doc.funding,
    leg_count: doc.legCount,
    total_amount: formatAmount(BigInt(doc.totalAmount), assets.get(doc.funding.asset)!),
    counts: doc.counts,
    metadata: presentMetadata(doc.metadata),
    created: isoTime(doc.created),
    completed_at: doc.completedAt === null ? null : isoTime(doc.completedAt),
  };
}
