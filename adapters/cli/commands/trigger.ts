import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { DEFAULT_CATALOGUE } from "../../../src/modules";
import type { EventEnvelope } from "../api-client";
import { BUILTIN_FIXTURES } from "../fixtures/builtin";
import { applyOverrides, checkFixture, runFixture, type FixtureFile } from "../fixtures/fixture";
import { CliError } from "../io";
import { colorType, jsonLine, resourceKey } from "../output";
import type { CliCommand } from "../program";
import { parseDataPair, type DataPair } from "../request-data";

// the CLI talks to a host of the default modules
const EVENT_TYPES = DEFAULT_CATALOGUE.eventTypes;
const isEventType = (type: string) => DEFAULT_CATALOGUE.isEventType(type);

/** `--override [step:]key=value` (or `key:=json`), repeatable: the raw text, read once the mode is known. */
function collectOverride(text: string, previous: string[] = []): string[] {
  if (text.indexOf("=") <= 0) throw new CliError(`--override takes path=value (e.g. amount=25, payout:amount=25 or legs.0.chain=polygon), got ${text}`, 2);
  return [...previous, text];
}

/** An override of a fixture: `payout:amount=42` is step `payout`; without `step:`, the primary step. */
function fixtureOverride(text: string): { step: string | null; pair: DataPair } {
  const eq = text.indexOf("=");
  const key = text.slice(0, text[eq - 1] === ":" ? eq - 1 : eq);
  const colon = key.indexOf(":");
  if (colon < 0) return { step: null, pair: parseDataPair(text, "--override") };
  return { step: key.slice(0, colon), pair: parseDataPair(text.slice(colon + 1), "--override") };
}

/** The catalogue types closest to a mistyped one (same resource, or sharing a word). */
function suggestions(type: string): string[] {
  const words = type.toLowerCase().split(/[._]/).filter(Boolean);
  return EVENT_TYPES.filter((t) => words.some((w) => w.length > 2 && t.includes(w))).slice(0, 6);
}

function readFixture(path: string): FixtureFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new CliError(`cannot read the fixture ${path}: ${(e as Error).message}`, 2);
  }
  try {
    return checkFixture(JSON.parse(text), path);
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`${path} is not JSON: ${(e as Error).message}`, 2);
  }
}

interface TriggerOptions {
  override?: string[];
  fixture?: string;
  sample?: boolean;
  json?: boolean;
}

const withFixture = Object.keys(BUILTIN_FIXTURES);

/**
 * `payrail trigger EVENT`: runs the event's fixture, API calls that make real objects in test
 * mode (a payout that really settles), or `--fixture FILE` of one's own; `--sample` (and a type
 * without a fixture) emits the event about a sample object instead.
 */
export const triggerCommand: CliCommand = {
  register(program, ctx) {
    program
      .command("trigger")
      .description("make an event happen: run its fixture (real objects through the API, test mode), or emit it about a sample object")
      .argument("[event]", "an event type, e.g. payout.settled")
      .option(
        "--override <[step:]path=value>",
        "set a param of a fixture step (default its main one), or a field of the sample; key:=json for JSON (repeatable)",
        collectOverride,
      )
      .option("--fixture <file>", "run the fixture in this JSON file (stripe-cli's format: fixtures[] of name, path, method, params)")
      .option("--sample", "emit the event about a sample object (sample: true; nothing is made) instead of running a fixture")
      .option("--json", "print each answer (fixture) or the event (sample) as one line of JSON")
      .addHelpText(
        "after",
        `\nWith a fixture (real objects):\n${withFixture.map((t) => `  ${t}`).join("\n")}\n\nEvery event type (--sample):\n${EVENT_TYPES.map((t) => `  ${t}`).join("\n")}\n`,
      )
      .action(async (type: string | undefined, options: TriggerOptions, cmd: Command) => {
        const { io } = ctx;
        if (type === undefined && !options.fixture) throw new CliError("name an event type (payrail trigger --help lists them) or give --fixture FILE", 2);
        if (type !== undefined && !isEventType(type)) {
          const near = suggestions(type);
          throw new CliError(`${type} is not an event type${near.length ? `; did you mean ${near.join(", ")}?` : "; payrail trigger --help lists them"}`, 2);
        }
        if (options.sample && options.fixture) throw new CliError("--sample and --fixture cannot be used together", 2);
        const c = ctx.colors(cmd);
        const fixture = options.fixture ? readFixture(options.fixture) : options.sample || type === undefined ? undefined : BUILTIN_FIXTURES[type];

        if (fixture) {
          const file = applyOverrides(fixture, (options.override ?? []).map(fixtureOverride));
          const client = ctx.client(cmd);
          await runFixture(client, file, io.env, io.signal, (step, answer, path) => {
            if (options.json) {
              io.stdout.write(jsonLine({ step: step.name, answer }));
              return;
            }
            const object = (answer ?? {}) as Record<string, unknown>;
            const what = [object.id ?? object.object, object.status].filter((v) => typeof v === "string").join(" ");
            io.stdout.write(`${c.green("✔")} ${step.name.padEnd(12)} ${c.dim(`${(step.method ?? "post").toUpperCase()} ${path}`)}  ${c.bold(what)}\n`);
          });
          if (!options.json && type)
            io.stderr.write(`${c.dim(`triggered ${type}: its events are in payrail events tail and reach the account's endpoints`)}\n`);
          return;
        }

        // a sample event: the API types each override's text by the field it replaces
        const overrides: Record<string, string> = {};
        for (const text of options.override ?? []) {
          const eq = text.indexOf("=");
          overrides[text.slice(0, eq).replace(/:$/, "")] = text.slice(eq + 1);
        }
        if (!options.sample)
          io.stderr.write(`${c.dim(`${type} has no fixture: emitting it about a sample object (sample: true; the object does not exist)`)}\n`);
        const event = await ctx.client(cmd).post<EventEnvelope>("/v1/test_helpers/events/trigger", {
          type,
          ...(options.override ? { overrides } : {}),
        });
        if (options.json) {
          io.stdout.write(jsonLine(event));
          return;
        }
        io.stdout.write(`triggered ${colorType(c, event.type)} ${event.id} about ${c.bold(resourceKey(event))}\n`);
      });
  },
};
