import { err, ok, type Result } from "neverthrow";
import type { DownloadFile } from "../../engine/route";
import { jobContext, type ModuleDeps, type RequestContext } from "../../engine/context";
import { type ApiError, fail } from "../../errors";
import { pagedList, type ListEnvelope, type PagedList } from "../../lists/list-page";
import { s } from "../../validation/schema";
import { isoTime } from "../../validation/timestamp";
import { defineWork, type Job } from "../../workers/due-work";
import type { WorkOutcome } from "../../workers/runner";
import { REPORT_CONTENT_TYPE, REPORTS, presentReport, reportBlobKey, type ReportDoc, type ReportObject } from "./report-doc";
import { reportCsv } from "./report-rows";
import { createReportSchema, listReportsSchema, type CreateReportInput, type ListReportsParams } from "./report-schemas";
import { canStep, startMachine, stepMachine } from "../../engine/machine-step";
import { reportMachine, type ReportEvent } from "./report-machine";
import { newMetadata } from "../../metadata/metadata";

/** Where every report starts: the machine's initial state and context. */
const REPORT_START = startMachine(reportMachine);

/** Whether a report's file is still to be built (its machine takes a build's answer). */
function building(doc: ReportDoc): boolean {
  return canStep(
    reportMachine,
    { value: doc.status, context: { rowCount: doc.rowCount, size: doc.size, failureReason: doc.failureReason } },
    { type: "failed", reason: "" },
  );
}

/** Builds one report's file, then marks it ready (or, after too many failures, failed). */
export const REPORT_BUILD = defineWork("reports.build", s.object({ report: s.string({ min: 1 }) }));

/** A download link lives one hour (the seed's limit). */
export const REPORT_URL_TTL_MS = 3_600_000;

/** A build that has failed this many times in a row marks its report failed. */
export const REPORT_BUILD_ATTEMPTS = 6;

/**
 * `POST /v1/reports`, `GET /v1/reports[/{id}]` and the build (docs/decisions.md §4). Create records a
 * pending report and schedules its build; the build streams the window's ledger entries, page by
 * page, as CSV into the blob store, and only once the whole file is stored marks the report ready
 * (a crashed or failed build leaves it pending and runs again from the start; after
 * `REPORT_BUILD_ATTEMPTS` failures in a row it is failed with the reason). A ready report's link
 * is minted fresh on every read: the store's own presigned URL when it has one, else a link the
 * HTTP binding serves (`FileLinks`).
 */
export class ReportsService {
  constructor(
    private readonly deps: Pick<ModuleDeps, "assets" | "blobs" | "clock" | "config" | "cursors" | "fileLinks" | "ids" | "parse" | "publicUrl" | "storage">,
  ) {}

  async create(ctx: RequestContext, input: CreateReportInput): Promise<Result<ReportObject, ApiError>> {
    const parsed = createReportSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { type, created_gte, created_lt, format = "csv" } = parsed.value;
    return this.deps.storage.command(ctx, async (uow) => {
      const createdLt = created_lt ?? uow.now;
      if (createdLt > uow.now) {
        return fail("parameter_invalid", `created_lt must not be later than now (${isoTime(uow.now)}): a report covers time that has passed`, {
          param: "created_lt",
        });
      }
      if (created_gte !== undefined && created_gte >= createdLt) {
        return fail("parameter_invalid", "created_gte must be earlier than created_lt (the window is [created_gte, created_lt))", {
          param: "created_gte",
        });
      }
      const id = this.deps.ids.next("rpt");
      const doc: ReportDoc = {
        id,
        type,
        status: REPORT_START.value,
        format,
        livemode: ctx.livemode,
        createdGte: created_gte ?? null,
        createdLt,
        blobKey: reportBlobKey(ctx.accountId, id, format),
        ...REPORT_START.context,
        metadata: newMetadata(parsed.value.metadata),
        created: uow.now,
        completedAt: null,
      };
      await REPORTS.insert(uow.tx, ctx.accountId, uow.now, [doc]);
      uow.schedule(REPORT_BUILD, { report: id }, { dedupeKey: `${REPORT_BUILD.kind}:${id}` });
      return ok(presentReport(doc));
    });
  }

  /** A report; when ready, with a fresh link valid one hour. `origin` is where the client reached the API. */
  async retrieve(ctx: RequestContext, id: string, origin?: string): Promise<Result<ReportObject, ApiError>> {
    const stored = await this.deps.storage.read((tx) => REPORTS.get(tx, ctx.accountId, id));
    if (!stored) return fail("resource_missing", `No such report: ${id}`, { param: "id" });
    return ok(await this.present(stored.doc, origin));
  }

  /** A page of reports, newest first; ready ones each with a fresh link. */
  list(ctx: RequestContext, params: ListReportsParams = {}, origin?: string): PagedList<ReportObject> {
    return pagedList(params, (p) => this.page(ctx, p, origin));
  }

  private async page(ctx: RequestContext, input: ListReportsParams, origin?: string): Promise<Result<ListEnvelope<ReportObject>, ApiError>> {
    const parsed = listReportsSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    return REPORTS.list(this.deps, ctx, parsed.value, (doc) => this.present(doc, origin));
  }

  /**
   * The file a host-served link names (`GET /v1/files/…`, no API key): 403 when the link was
   * tampered with or has expired, 404 when the file is gone.
   */
  async download(path: string, query: Record<string, unknown>): Promise<Result<DownloadFile, ApiError>> {
    const key = this.deps.fileLinks.verify(path, query, this.deps.clock.now());
    if (key.isErr()) return err(key.error);
    const blob = await this.deps.blobs.get(key.value);
    if (!blob) return fail("resource_missing", "The file of this link no longer exists");
    return ok({ ...blob, filename: key.value.slice(key.value.lastIndexOf("/") + 1) });
  }

  /**
   * Due work `reports.build`: streams the file into the blob store, then marks the report ready
   * in one transaction (ready only ever follows a complete file). Throwing retries with backoff;
   * the last allowed attempt that fails marks the report failed instead.
   */
  async buildDue(job: Job<{ report: string }>): Promise<WorkOutcome | void> {
    const { report: id } = job.payload;
    const { accountId } = job;
    const stored = await this.deps.storage.read((tx) => REPORTS.get(tx, accountId, id));
    if (!stored || !building(stored.doc)) return;
    const doc = stored.doc;
    const counted = { rows: 0 };
    let size: number;
    try {
      ({ size } = await this.deps.blobs.put(doc.blobKey, reportCsv(this.deps, accountId, doc, counted, this.deps.config.reportPageSize), {
        contentType: REPORT_CONTENT_TYPE,
      }));
    } catch (e) {
      if (job.attempts < REPORT_BUILD_ATTEMPTS) throw e;
      const reason = `The file could not be built after ${job.attempts} attempts: ${e instanceof Error ? e.message : String(e)}`;
      await this.finish(jobContext(job), doc, { type: "failed", reason });
      return;
    }
    await this.finish(jobContext(job), doc, { type: "built", rowCount: counted.rows, size });
  }

  /** Moves a pending report to ready or failed, once, with its event. */
  private async finish(ctx: RequestContext, doc: ReportDoc, outcome: ReportEvent): Promise<void> {
    const { accountId } = ctx;
    const done = await this.deps.storage.command(ctx, async (uow) => {
      const locked = await REPORTS.get(uow.tx, accountId, doc.id, { lock: true });
      if (!locked || !building(locked.doc)) return ok(undefined);
      const { rowCount, size, failureReason } = locked.doc;
      const step = stepMachine(reportMachine, { value: locked.doc.status, context: { rowCount, size, failureReason } }, outcome);
      const next: ReportDoc = { ...locked.doc, status: step.value, ...step.context, completedAt: uow.now };
      await REPORTS.update(uow.tx, locked, next, uow.now);
      // Events carry no link: it would expire long before a replay. Receivers retrieve the report.
      for (const action of step.actions) {
        switch (action.type) {
          case "emitReady":
            uow.emit("report.ready", presentReport(next), accountId);
            break;
          case "emitFailed":
            uow.emit("report.failed", presentReport(next), accountId);
            break;
        }
      }
      return ok(undefined);
    });
    if (done.isErr()) throw done.error;
  }

  private async present(doc: ReportDoc, origin: string | undefined): Promise<ReportObject> {
    if (doc.status !== "ready") return presentReport(doc);
    const now = this.deps.clock.now();
    const filename = doc.blobKey.slice(doc.blobKey.lastIndexOf("/") + 1);
    const { blobs } = this.deps;
    if (blobs.capabilities.downloadUrls && blobs.downloadUrl) {
      const expiresAt = now + REPORT_URL_TTL_MS;
      const url = await blobs.downloadUrl(doc.blobKey, { now, expiresAt, filename, contentType: REPORT_CONTENT_TYPE });
      return presentReport(doc, { url, expiresAt: isoTime(expiresAt) });
    }
    const link = this.deps.fileLinks.sign(this.deps.publicUrl ?? origin ?? "", doc.blobKey, now + REPORT_URL_TTL_MS);
    return presentReport(doc, { url: link.url, expiresAt: isoTime(link.expiresAt) });
  }
}
