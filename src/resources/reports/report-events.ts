import { defineEvent, type SampleContext } from "../../engine/module";
import { presentReport } from "./report-doc";
import { Report } from "./report-objects";

/** A sample report of the last day's payout ledger, ready (42 rows) or failed. */
function sampleReport({ ids, now }: SampleContext, ready: boolean) {
  return presentReport({
    id: ids.next("rpt"),
    type: "payout_ledger",
    status: ready ? "ready" : "failed",
    format: "csv",
    livemode: false,
    createdGte: now - 86_400_000,
    createdLt: now,
    blobKey: "reports/sample.csv",
    rowCount: ready ? 42 : null,
    size: ready ? 4_200 : null,
    failureReason: ready ? null : "The file could not be built after 6 attempts: sample",
    created: now,
    completedAt: now,
  });
}

/** The reports' events (built asynchronously, so a client hears when one is done). */
export const REPORT_EVENTS = [
  defineEvent({
    type: "report.ready",
    description: "A report's file is built and can be downloaded",
    object: Report,
    sample: (ctx) => sampleReport(ctx, true),
  }),
  defineEvent({
    type: "report.failed",
    description: "A report could not be built; `failure_reason` says why",
    object: Report,
    sample: (ctx) => sampleReport(ctx, false),
  }),
] as const;
