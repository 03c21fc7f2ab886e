import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Command } from "commander";
import type { Colors } from "picocolors/types";
import { REPORT_FORMATS, REPORT_TYPES, type ReportObject } from "../../../src/resources/reports/report-doc";
import { REPORT_STATUSES } from "../../../src/resources/reports/report-machine";
import type { ListOf, PayrailClient } from "../api-client";
import { CliError, pause, type CliIo } from "../io";
import { jsonLine, pad } from "../output";
import type { CliCommand } from "../program";

/** How often `--wait` asks the host whether the report is built. */
const POLL_MS = 500;

/** One of `allowed`, or a usage error naming them. */
function oneOf<T extends string>(what: string, allowed: readonly T[]) {
  return (text: string): T => {
    if ((allowed as readonly string[]).includes(text)) return text as T;
    throw new CliError(`${what} must be one of ${allowed.join(", ")}, got ${text}`, 2);
  };
}

/** A progress line on standard error, redrawn in place on a terminal and silent otherwise. */
function progressLine(io: CliIo): { draw(text: string): void; done(): void } {
  const live = io.stderr.isTTY === true;
  let drawn = false;
  return {
    draw(text) {
      if (!live) return;
      io.stderr.write(`\r\u001b[2K${text}`);
      drawn = true;
    },
    done() {
      if (drawn) io.stderr.write("\r\u001b[2K");
      drawn = false;
    },
  };
}

/** `[#####.....]  42%  1.2 MB of 2.9 MB`, or the bytes alone when the size is unknown. */
function bar(received: number, total: number | null): string {
  const mb = (n: number) => `${(n / 1_048_576).toFixed(1)} MB`;
  if (!total) return `${mb(received)}`;
  const share = Math.min(1, received / total);
  const filled = Math.round(share * 24);
  return `[${"#".repeat(filled)}${".".repeat(24 - filled)}] ${pad(`${Math.floor(share * 100)}%`, 4)} ${mb(received)} of ${mb(total)}`;
}

/** Polls a report until it is no longer pending (or the command is asked to stop). */
async function untilBuilt(client: PayrailClient, id: string, io: CliIo, c: Colors): Promise<ReportObject> {
  const progress = progressLine(io);
  const started = Date.now();
  try {
    for (let spin = 0; ; spin++) {
      const report = await client.get<ReportObject>(`/v1/reports/${id}`, { signal: io.signal });
      if (report.status !== "pending") return report;
      progress.draw(c.dim(`${"|/-\\"[spin % 4]} building ${id} (${Math.round((Date.now() - started) / 1000)} s)`));
      await pause(POLL_MS, io.signal);
      if (io.signal.aborted) throw new CliError(`stopped waiting; ${id} is still being built (payrail reports get ${id})`, 130);
    }
  } finally {
    progress.done();
  }
}

/**
 * Downloads a ready report's file through its signed link (no API key) to `out`, written beside
 * it first and renamed into place, so `out` never holds a partial file.
 */
async function download(report: ReportObject, out: string, io: CliIo): Promise<number> {
  if (!report.url) throw new CliError(`${report.id} has no download link (status ${report.status})`);
  let res: Response;
  try {
    res = await fetch(report.url, { signal: io.signal });
  } catch (e) {
    throw new CliError(`cannot download ${report.id}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => "");
    throw new CliError(`downloading ${report.id} answered ${res.status}${text ? `: ${text.slice(0, 200)}` : ""}`);
  }
  const total = Number(res.headers.get("content-length")) || null;
  const progress = progressLine(io);
  let received = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      progress.draw(bar(received, total));
      callback(null, chunk);
    },
  });
  const partial = `${out}.${randomUUID().slice(0, 8)}.partial`;
  try {
    await pipeline(Readable.fromWeb(res.body as import("node:stream/web").ReadableStream), count, createWriteStream(partial));
    await rename(partial, out);
  } catch (e) {
    await rm(partial, { force: true });
    throw e instanceof CliError ? e : new CliError(`cannot write ${out}: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    progress.done();
  }
  return received;
}

/** One line per report: id, type, status, rows, window. */
function reportLine(c: Colors, r: ReportObject): string {
  const status = r.status === "ready" ? c.green(r.status) : r.status === "failed" ? c.red(r.status) : c.yellow(r.status);
  const rows = r.row_count === null ? "" : `${r.row_count} rows`;
  const window = `${r.parameters.created_gte ?? "start"} .. ${r.parameters.created_lt}`;
  return `${pad(r.id, 30)} ${pad(r.type, 15)} ${pad(status, 8)} ${pad(rows, 14)} ${c.dim(window)}${r.failure_reason ? `  ${c.red(r.failure_reason)}` : ""}\n`;
}

/** Ends a waited-for report: a failed one is an error; a ready one is downloaded when asked. */
async function finish(ctx: { io: CliIo }, report: ReportObject, options: { out?: string; json?: boolean }, c: Colors): Promise<void> {
  if (report.status === "failed") throw new CliError(`${report.id} failed: ${report.failure_reason ?? "no reason given"}`);
  if (options.out) {
    const bytes = await download(report, options.out, ctx.io);
    if (!options.json) ctx.io.stderr.write(c.dim(`wrote ${options.out} (${report.row_count} rows, ${bytes} bytes)\n`));
  }
  ctx.io.stdout.write(options.json ? jsonLine(report) : reportLine(c, report));
}

/** `payrail reports …`: asynchronous report exports (docs/decisions.md §4). */
export const reportsCommand: CliCommand = {
  register(program, ctx) {
    const reports = program.command("reports").description("asynchronous CSV exports of the account's ledger");
    reports
      .command("create")
      .description("ask for a report; with --wait or --out, wait until it is built (and download it)")
      .requiredOption("--type <type>", `what to export: ${REPORT_TYPES.join(" or ")}`, oneOf("--type", REPORT_TYPES))
      .option("--from <time>", "entries created at or after this date or ISO 8601 time (default: the first)")
      .option("--to <time>", "entries created before this date or ISO 8601 time (default: now)")
      .option("--format <format>", `file format: ${REPORT_FORMATS.join(", ")} (default csv)`, oneOf("--format", REPORT_FORMATS))
      .option("--wait", "wait until the report is ready or failed")
      .option("--out <file>", "download the file here once ready (implies --wait)")
      .option("--json", "print the report object as JSON")
      .action(async (options: { type: string; from?: string; to?: string; format?: string; wait?: boolean; out?: string; json?: boolean }, cmd: Command) => {
        const client = ctx.client(cmd);
        const c = ctx.colors(cmd);
        const created = await client.post<ReportObject>(
          "/v1/reports",
          {
            type: options.type,
            ...(options.from !== undefined ? { created_gte: options.from } : {}),
            ...(options.to !== undefined ? { created_lt: options.to } : {}),
            ...(options.format !== undefined ? { format: options.format } : {}),
          },
          { idempotencyKey: `cli-report-${randomUUID()}`, signal: ctx.io.signal },
        );
        if (!options.wait && !options.out) {
          ctx.io.stdout.write(options.json ? jsonLine(created) : reportLine(c, created));
          return;
        }
        await finish(ctx, await untilBuilt(client, created.id, ctx.io, c), options, c);
      });
    reports
      .command("get")
      .description("show one report; with --wait or --out, wait until it is built (and download it)")
      .argument("<id>", "a report id (rpt_…)")
      .option("--wait", "wait until the report is ready or failed")
      .option("--out <file>", "download the file here once ready (implies --wait)")
      .option("--json", "print the report object as JSON")
      .action(async (id: string, options: { wait?: boolean; out?: string; json?: boolean }, cmd: Command) => {
        const client = ctx.client(cmd);
        const c = ctx.colors(cmd);
        const report =
          options.wait || options.out
            ? await untilBuilt(client, id, ctx.io, c)
            : await client.get<ReportObject>(`/v1/reports/${id}`, { signal: ctx.io.signal });
        if (options.wait || options.out) await finish(ctx, report, options, c);
        else ctx.io.stdout.write(options.json ? jsonLine(report) : reportLine(c, report));
      });
    reports
      .command("list")
      .description("the account's reports, newest first")
      .option("--status <status>", `only ${REPORT_STATUSES.join(", ")} reports`, oneOf("--status", REPORT_STATUSES))
      .option("--limit <n>", "how many (1 to 200, default 20)")
      .option("--json", "one report object per line, as JSON")
      .action(async (options: { status?: string; limit?: string; json?: boolean }, cmd: Command) => {
        const client = ctx.client(cmd);
        const c = ctx.colors(cmd);
        const page = await client.get<ListOf<ReportObject>>("/v1/reports", {
          query: { status: options.status, limit: options.limit },
          signal: ctx.io.signal,
        });
        for (const r of page.data) ctx.io.stdout.write(options.json ? jsonLine(r) : reportLine(c, r));
        if (!options.json && page.data.length === 0) ctx.io.stderr.write(c.dim("no reports\n"));
      });
  },
};
