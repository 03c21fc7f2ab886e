import type { Command } from "commander";
import { STATUS_FILTER, type RequestLogEntry } from "../../http/request-log";
import type { ListOf } from "../api-client";
import { CliError } from "../io";
import { clockTime, colorStatus, jsonLine, pad, retryNotice } from "../output";
import type { CliCommand } from "../program";
import { tail } from "../tail";

const PATH = "/v1/request_logs";

interface LogsOptions {
  status?: string;
  path?: string;
  json?: boolean;
  interval?: number;
}

/** `payrail logs tail`: the account's API requests, live, from the host's request log. */
export const logsCommand: CliCommand = {
  register(program, ctx) {
    const logs = program.command("logs").description("the account's API requests (the host's request log)");
    logs
      .command("tail")
      .description("print API requests live as the host answers them, oldest first (Ctrl-C to stop)")
      .option("--status <status>", "only this status (404) or class (4xx)")
      .option("--path <prefix>", "only paths starting with this, e.g. /v1/payouts")
      .option("--json", "one request log entry per line, as JSON")
      .option("--interval <ms>", "how often to look (default 1000)", (v) => Number(v))
      .action(async (options: LogsOptions, cmd: Command) => {
        const { io } = ctx;
        if (options.status !== undefined && !STATUS_FILTER.test(options.status)) {
          throw new CliError(`--status takes a status (404) or a class (4xx), got ${options.status}`, 2);
        }
        const client = ctx.client(cmd);
        const c = ctx.colors(cmd);
        const filters = { status: options.status, path: options.path };
        // fails at once for a host without a request log (404) or a restricted key (403)
        const first = await client.exchange<ListOf<RequestLogEntry>>("GET", PATH, { query: { limit: 1 }, signal: io.signal });
        const newest = first.body.data[0] ? Date.parse(first.body.data[0].created) : 0;
        const startAt = Math.max(first.date ?? Date.now(), newest);
        if (!options.json) io.stderr.write(`${c.dim(`tailing the requests of ${client.baseUrl} (Ctrl-C to stop)`)}\n`);
        const notice = retryNotice((line) => io.stderr.write(`${line}\n`), c);
        await tail<RequestLogEntry>(
          {
            startAt,
            intervalMs: options.interval && options.interval > 0 ? options.interval : 1_000,
            fetchPage: (createdGte, cursor, signal) =>
              client.get<ListOf<RequestLogEntry>>(PATH, {
                query: { ...filters, created_gte: new Date(createdGte).toISOString(), limit: 200, starting_after: cursor },
                signal,
              }),
            created: (r) => Date.parse(r.created),
            id: (r) => r.id,
            onRows(rows) {
              notice.clear();
              for (const r of rows) {
                if (options.json) {
                  io.stdout.write(jsonLine(r));
                  continue;
                }
                io.stdout.write(
                  `${c.dim(clockTime(Date.parse(r.created)))}  ${pad(colorStatus(c, r.status), 4)} ${pad(r.method, 6)} ${pad(r.path, 48)} ` +
                    `${pad(`${r.latency_ms} ms`, 8)} ${c.dim(r.id)}${r.error_code ? c.red(`  ${r.error_code}`) : ""}\n`,
                );
              }
            },
            onError: notice.report,
          },
          io.signal,
        );
      });
  },
};
