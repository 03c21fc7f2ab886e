import type { Command } from "commander";
import type { WebhookRecoveryObject } from "../../../src/resources/webhook-endpoints";
import { hostNow } from "../event-stream";
import { CliError } from "../io";
import { jsonLine } from "../output";
import type { CliCommand } from "../program";

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `--since`: a moment the API takes (an ISO 8601 date or timestamp, or Unix seconds), or a span
 * back from the host's clock such as `90m`, `12h` or `2d`.
 */
export async function sinceOf(text: string, now: () => Promise<number>): Promise<string> {
  const span = /^(\d+)([smhd])$/.exec(text.trim());
  if (!span) return text;
  return new Date((await now()) - Number(span[1]) * UNITS[span[2]!]!).toISOString();
}

/** `payrail webhook_endpoints recover ENDPOINT --since …`: re-sends what failed to an endpoint. */
export const webhookEndpointsCommand: CliCommand = {
  register(program, ctx) {
    const endpoints = program.command("webhook_endpoints").description("webhook endpoints");
    endpoints
      .command("recover")
      .description("re-send the events whose deliveries to an endpoint failed since a moment (at most 7 days back)")
      .argument("<endpoint>", "the webhook endpoint (we_…); it must be enabled")
      .requiredOption("--since <when>", "an ISO 8601 date or timestamp, Unix seconds, or a span back such as 12h or 2d")
      .option("--idempotency-key <key>", "send the request under this Idempotency-Key (a repeat is answered, not done again)")
      .option("--json", "print the API's answer as JSON")
      .action(async (endpoint: string, options: { since: string; idempotencyKey?: string; json?: boolean }, cmd: Command) => {
        const client = ctx.client(cmd);
        if (!options.since.trim()) throw new CliError("--since needs a moment, e.g. 2d or 2026-01-15T09:30:00Z", 2);
        const since = await sinceOf(options.since, () => hostNow(client, ctx.io.signal));
        const recovery = await client.post<WebhookRecoveryObject>(
          `/v1/webhook_endpoints/${encodeURIComponent(endpoint)}/recover`,
          { since },
          { ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}), signal: ctx.io.signal },
        );
        if (options.json) {
          ctx.io.stdout.write(jsonLine(recovery));
          return;
        }
        const c = ctx.colors(cmd);
        const n = recovery.event_count;
        ctx.io.stdout.write(`queued ${c.bold(String(n))} failed event${n === 1 ? "" : "s"} since ${recovery.since} for ${recovery.endpoint}\n`);
      });
  },
};
