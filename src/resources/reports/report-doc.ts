import type { Report } from "./report-objects";
import type { Out } from "../../api/response-schema";
import { DocStore } from "../../engine/doc-store";
import { isoTime } from "../../validation/timestamp";
import type { ReportStatus } from "./report-machine";
import { type Metadata, presentMetadata } from "../../metadata/metadata";

export const REPORT_TYPES = ["ledger_entries", "payout_ledger"] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

export const REPORT_FORMATS = ["csv"] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export type { ReportStatus } from "./report-machine";

/** The report object of docs/decisions.md §4, plus `failure_reason`. */
export type ReportObject = Out<typeof Report>;

/** A report as stored (its own shape; the API object is derived by `presentReport`). */
export interface ReportDoc {
  id: string;
  type: ReportType;
  status: ReportStatus;
  format: ReportFormat;
  livemode: boolean;
  /** The window in epoch milliseconds: `[createdGte, createdLt)`, `createdGte` null from the start. */
  createdGte: number | null;
  createdLt: number;
  /** The file's blob key (chosen at creation; the file exists once ready). */
  blobKey: string;
  /** Rows of the file (header excluded) and its bytes, once ready. */
  rowCount: number | null;
  size: number | null;
  failureReason: string | null;
  /** Absent on documents written before metadata existed: none. */
  metadata?: Metadata;
  created: number;
  completedAt: number | null;
}

export const REPORTS = new DocStore<ReportDoc>({ kind: "report", version: 1, status: (d) => d.status, reference: () => null });

export const REPORT_CONTENT_TYPE = "text/csv; charset=utf-8";

/** The blob key of a report's file: one folder per account, named after the report. */
export function reportBlobKey(accountId: string, reportId: string, format: ReportFormat): string {
  return `reports/${accountId}/${reportId}.${format}`;
}

/** The API object, fields in their documented order, with the link given (or none). */
export function presentReport(doc: ReportDoc, link: { url: string; expiresAt: string } | null = null): ReportObject {
  return {
    id: doc.id,
    object: "report",
    type: doc.type,
    status: doc.status,
    format: doc.format,
    parameters: { created_gte: doc.createdGte === null ? null : isoTime(doc.createdGte), created_lt: isoTime(doc.createdLt) },
    row_count: doc.rowCount,
    url: link?.url ?? null,
    url_expires_at: link?.expiresAt ?? null,
    failure_reason: doc.failureReason,
    metadata: presentMetadata(doc.metadata),
    created: isoTime(doc.created),
    completed_at: doc.completedAt === null ? null : isoTime(doc.completedAt),
  };
}
