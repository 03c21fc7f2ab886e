import type { Command } from "commander";
import { DEFAULT_CATALOGUE } from "../../../src/modules";

// the CLI talks to a host of the default modules
const EVENT_TYPES = DEFAULT_CATALOGUE.eventTypes;
const isEventType = (type: string) => DEFAULT_CATALOGUE.isEventType(type);
import type { EventEnvelope } from "../api-client";
import { CliError } from "../io";
import { colorType, jsonLine, resourceKey } from "../output";
import type { CliCommand } from "../program";

/** `--override path=value`, repeatable, collected into the API's `overrides` object. */
function collectOverride(text: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = text.indexOf("=");
  if (eq <= 0) throw new CliError(`--override takes path=value (e.g. amount=25 or legs.0.chain=polygon), got ${text}`, 2);
  return { ...previous, [text.slice(0, eq)]: text.slice(eq + 1) };
}

/** The catalogue types closest to a mistyped one (same resource, or sharing a word). */
function suggestions(type: string): string[] {
  const words = type.toLowerCase().split(/[._]/).filter(Boolean);
  return EVENT_TYPES.filter((t) => words.some((w) => w.length > 2 && t.includes(w))).slice(0, 6);
}

/** `payrail trigger EVENT`: emits an event of any catalogue type about a sample object (test mode). */
export const triggerCommand: CliCommand = {
  register(program, ctx) {
    program
      .command("trigger")
      .description("emit an event of any catalogue type about a sample object, delivered like any other (test mode)")
      .argument("<event>", "an event type, e.g. payout.settled")
      .option("--override <path=value>", "set a field of the sample object (dotted path, repeatable)", collectOverride)
      .option("--json", "print the event as JSON")
      .addHelpText("after", `\nEvent types:\n${EVENT_TYPES.map((t) => `  ${t}`).join("\n")}\n`)
      .action(async (type: string, options: { override?: Record<string, string>; json?: boolean }, cmd: Command) => {
        if (!isEventType(type)) {
          const near = suggestions(type);
          throw new CliError(`${type} is not an event type${near.length ? `; did you mean ${near.join(", ")}?` : "; payrail trigger --help lists them"}`, 2);
        }
        const client = ctx.client(cmd);
        const event = await client.post<EventEnvelope>("/v1/test_helpers/events/trigger", {
          type,
          ...(options.override ? { overrides: options.override } : {}),
        });
        if (options.json) {
          ctx.io.stdout.write(jsonLine(event));
          return;
        }
        const c = ctx.colors(cmd);
        ctx.io.stdout.write(`triggered ${colorType(c, event.type)} ${event.id} about ${c.bold(resourceKey(event))}\n`);
      });
  },
};
