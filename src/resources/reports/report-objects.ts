import { listOf } from "../../api/common-objects";
import { o } from "../../api/response-schema";
import { REPORT_TYPES } from "./report-doc";
import { REPORT_STATUSES } from "./report-machine";
import { metadataObject } from "../../metadata/metadata";

export const Report = o.named(
  "Report",
  o.object(
    {
      id: o.id("rpt"),
      object: o.literal("report"),
      type: o.enum(REPORT_TYPES),
      status: o.enum(REPORT_STATUSES),
      format: o.enum(["csv"] as const),
      parameters: o.object(
        { created_gte: o.nullable(o.time()), created_lt: o.time() },
        { description: "The window, half-open: entries created at or after `created_gte` (null: from the start) and before `created_lt`" },
      ),
      row_count: o.nullable(o.integer({ minimum: 0, description: "Rows of the file, header excluded; null until ready" })),
      url: o.nullable(o.string({ format: "uri", description: "A download link minted for this answer, valid one hour; null unless ready" })),
      url_expires_at: o.nullable(o.time()),
      failure_reason: o.nullable(o.string()),
      metadata: metadataObject,
      created: o.time(),
      completed_at: o.nullable(o.time()),
    },
    { description: "A CSV file of ledger entries, built in the background" },
  ),
);
export const ReportList = listOf("Report", Report);
