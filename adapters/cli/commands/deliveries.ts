import type { Command } from "commander";
import type { ListOf, WebhookDeliveryObject } from "../api-client";
import { clockTime, colorStatus, colorType, jsonLine, pad, retryNotice } from "../output";
import type { CliCommand } from "../program";
import { tail } from "../tail";

type DeliveryEntry = WebhookDeliveryObject;

/** `payrail deliveries tail ENDPOINT`: an endpoint's delivery attempts, live. */
export const deliveriesCommand: CliCommand = {
  register(program, ctx) {
    const deliveries = program.command("deliveries").description("webhook delivery attempts");
    deliveries
      .command("tail")
      .description("print an endpoint's delivery attempts live, oldest first (Ctrl-C to stop)")
      .argument("<endpoint>", "the webhook endpoint (we_…)")
      .option("--json", "one delivery log entry per line, as JSON")
      .option("--event <event>", "only the attempts of this event (evt_…)")
      .option("--interval <ms>", "how often to look (default 1000)", (v) => Number(v))
      .action(async (endpoint: string, options: { json?: boolean; event?: string; interval?: number }, cmd: Command) => {
        const { io } = ctx;
        const client = ctx.client(cmd);
        const c = ctx.colors(cmd);
        const path = `/v1/webhook_endpoints/${encodeURIComponent(endpoint)}/deliveries`;
        // fails at once (404 resource_missing) for an endpoint that does not exist
        const first = await client.exchange<ListOf<DeliveryEntry>>("GET", path, { query: { limit: 1 }, signal: io.signal });
        const newest = first.body.data[0] ? Date.parse(first.body.data[0].created) : 0;
        const startAt = Math.max(first.date ?? Date.now(), newest);
        if (!options.json) io.stderr.write(`${c.dim(`tailing the deliveries of ${endpoint} (Ctrl-C to stop)`)}\n`);
        const notice = retryNotice((line) => io.stderr.write(`${line}\n`), c);
        await tail<DeliveryEntry>(
          {
            startAt,
            intervalMs: options.interval && options.interval > 0 ? options.interval : 1_000,
            fetchPage: (createdGte, cursor, signal) =>
              client.get<ListOf<DeliveryEntry>>(path, {
                query: { created_gte: new Date(createdGte).toISOString(), limit: 200, starting_after: cursor, event: options.event },
                signal,
              }),
            created: (d) => Date.parse(d.created),
            id: (d) => d.id,
            onRows(rows) {
              notice.clear();
              for (const d of rows) {
                if (options.json) {
                  io.stdout.write(jsonLine(d));
                  continue;
                }
                const mark = d.status === "succeeded" ? c.green("✔") : c.red("✖");
                const next = d.next_attempt_at ? c.yellow(`  next attempt ${clockTime(Date.parse(d.next_attempt_at))}`) : "";
                const error = d.error && d.status === "failed" ? c.red(`  ${d.error}`) : "";
                io.stdout.write(
                  `${c.dim(clockTime(Date.parse(d.created)))}  ${mark} ${pad(colorStatus(c, d.response_status), 4)} ${pad(`${d.latency_ms} ms`, 8)} ` +
                    `${pad(colorType(c, d.event_type), 32)} ${d.event}  ${c.dim(`attempt ${d.attempt} (${d.trigger})`)}${error}${next}\n`,
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
