import type { Command } from "commander";
import { DEFAULT_CATALOGUE } from "../../../src/modules";

// the CLI talks to a host of the default modules
const EVENT_TYPES = DEFAULT_CATALOGUE.eventTypes;
const isEventType = (type: string) => DEFAULT_CATALOGUE.isEventType(type);
import type { EventEnvelope } from "../api-client";
import type { WebhookResendObject } from "../../../src/resources/webhook-endpoints";
import { followEvents, hostNow } from "../event-stream";
import { CliError } from "../io";
import { clockTime, colorType, dataObject, jsonLine, pad, resourceKey, retryNotice } from "../output";
import type { CliCommand } from "../program";

/** `--type a,b` or `--type a --type b`, each checked against the catalogue. */
export function collectTypes(text: string, previous: string[] = []): string[] {
  const types = text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  for (const t of types) {
    if (!isEventType(t)) throw new CliError(`${t} is not an event type (one of ${EVENT_TYPES.join(", ")})`, 2);
  }
  return [...previous, ...types];
}

/** `payrail events tail`: the account's events, live, as they are committed; `payrail events resend`: one event to one endpoint again. */
export const eventsCommand: CliCommand = {
  register(program, ctx) {
    const events = program.command("events").description("the account's events");
    events
      .command("tail")
      .description("print events live as they happen, oldest first (Ctrl-C to stop)")
      .option("--type <types>", "only these types (comma-separated or repeated)", collectTypes)
      .option("--json", "one event envelope per line, as JSON")
      .action(async (options: { type?: string[]; json?: boolean }, cmd: Command) => {
        const { io } = ctx;
        const client = ctx.client(cmd);
        const c = ctx.colors(cmd);
        const startAt = await hostNow(client, io.signal);
        if (!options.json) {
          io.stderr.write(`${c.dim(`tailing ${options.type?.length ? options.type.join(", ") : "all"} events of ${client.baseUrl} (Ctrl-C to stop)`)}\n`);
        }
        const notice = retryNotice((line) => io.stderr.write(`${line}\n`), c);
        await followEvents(
          client,
          {
            types: options.type ?? [],
            startAt,
            onEvents(list: EventEnvelope[]) {
              notice.clear();
              for (const e of list) {
                if (options.json) {
                  io.stdout.write(jsonLine(e));
                  continue;
                }
                const object = dataObject(e);
                const status = typeof object.status === "string" ? c.dim(String(object.status)) : "";
                io.stdout.write(
                  `${c.dim(clockTime(Date.parse(e.created)))}  ${pad(colorType(c, e.type), 32)} ${e.id}  ${pad(c.bold(resourceKey(e)), 34)} ${status}` +
                    (e.request.id ? c.dim(`  ${e.request.id}`) : "") +
                    "\n",
                );
              }
            },
            onError: notice.report,
          },
          io.signal,
        );
      });
    registerResend(events, ctx);
  },
};

/** `payrail events resend EVENT --endpoint we_…`: queues the event for the endpoint again (trigger manual). */
function registerResend(events: Command, ctx: Parameters<CliCommand["register"]>[1]): void {
  events
    .command("resend")
    .description("send one event again to one endpoint; its attempts are logged with trigger manual")
    .argument("<event>", "the event (evt_…)")
    .requiredOption("--endpoint <endpoint>", "the webhook endpoint (we_…); it must be enabled and subscribe to the event's type")
    .option("--idempotency-key <key>", "send the request under this Idempotency-Key (a repeat is answered, not done again)")
    .option("--json", "print the API's answer as JSON")
    .action(async (event: string, options: { endpoint: string; idempotencyKey?: string; json?: boolean }, cmd: Command) => {
      const client = ctx.client(cmd);
      const resend = await client.post<WebhookResendObject>(
        `/v1/events/${encodeURIComponent(event)}/resend`,
        { endpoint: options.endpoint },
        { ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}), signal: ctx.io.signal },
      );
      if (options.json) ctx.io.stdout.write(jsonLine(resend));
      else ctx.io.stdout.write(`queued ${resend.event} for ${resend.endpoint}\n`);
    });
}
