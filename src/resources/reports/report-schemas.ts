import { listParamsShape } from "../../lists/list-params";
import { s, type Input } from "../../validation/schema";
import { REPORT_FORMATS, REPORT_TYPES } from "./report-doc";
import { REPORT_STATUSES } from "./report-machine";
import { metadataParam } from "../../metadata/metadata";

export const createReportSchema = s.object({
  type: s.enum(REPORT_TYPES).describe("ledger_entries: every entry of the account's books; payout_ledger: the entries of payouts"),
  created_gte: s.timestamp().optional().describe("Entries created at or after this date (UTC day) or timestamp; absent: from the first entry"),
  created_lt: s.timestamp().optional().describe("Entries created before this date or timestamp, not later than now; absent: now"),
  format: s.enum(REPORT_FORMATS).optional().describe("csv (RFC 4180, with a header row); the default"),
  metadata: metadataParam().optional(),
});

export type CreateReportInput = Input<typeof createReportSchema>;

export const listReportsSchema = s.object({
  ...listParamsShape,
  status: s.enum(REPORT_STATUSES).optional().describe("Only reports in this status"),
});

export type ListReportsParams = Input<typeof listReportsSchema>;
