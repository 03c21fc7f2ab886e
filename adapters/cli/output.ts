import type { Colors } from "picocolors/types";
import type { EventEnvelope } from "./api-client";

/** `HH:MM:SS.mmm` of an epoch-ms moment, in local time: the first column of every live line. */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, "0")}`;
}

const GOOD = /\.(succeeded|settled|filled|completed|updated|cleared)$/;
const BAD = /\.(failed|reverted|canceled|expired|partially_settled|partially_paid|unsupported_chain)$/;

/** An event type coloured by what it says: green for an outcome reached, red for one lost, cyan for progress. */
export function colorType(c: Colors, type: string): string {
  if (type === "balance.updated") return c.magenta(type);
  if (GOOD.test(type)) return c.green(type);
  if (BAD.test(type)) return c.red(type);
  return c.cyan(type);
}

/** An HTTP status coloured: green 2xx, yellow 3xx/4xx, red 5xx and no answer. */
export function colorStatus(c: Colors, status: number | null, text = status === null ? "---" : String(status)): string {
  if (status === null) return c.red(text);
  if (status >= 200 && status < 300) return c.green(text);
  if (status >= 500) return c.red(text);
  return c.yellow(text);
}

/**
 * The resource an event is about, which `listen` keeps in order: the object's id, except a leg
 * event orders with its payout, and a balance with its asset (balances carry no id).
 */
export function resourceKey(event: Pick<EventEnvelope, "id" | "data">): string {
  const object = dataObject(event);
  if (object.object === "payout_leg" && typeof object.payout === "string") return object.payout;
  if (typeof object.id === "string") return object.id;
  if (object.object === "balance" && typeof object.asset === "string") return `balance:${object.asset}`;
  return event.id;
}

/** The resource snapshot an event carries (`data.object`), as a record. */
export function dataObject(event: Pick<EventEnvelope, "data">): Record<string, unknown> {
  const object = event.data?.object;
  return object !== null && typeof object === "object" ? (object as Record<string, unknown>) : {};
}

/**
 * What a live command says when the host cannot be reached or refuses: one line per distinct
 * error (not one per retry), and nothing again until a different one or a success (`clear`).
 */
export function retryNotice(write: (line: string) => void, c: Colors): { report(error: unknown): void; clear(): void } {
  let last = "";
  return {
    report(error) {
      const text = error instanceof Error ? error.message : String(error);
      if (text !== last) write(`${c.yellow("!")} ${text} (retrying)`);
      last = text;
    },
    clear() {
      last = "";
    },
  };
}

/** One line of JSON (for `--json`: one object per line, easy to pipe into jq). */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** `text` padded to `width` visible characters (colour codes do not count). */
export function pad(text: string, width: number): string {
  // eslint-disable-next-line no-control-regex
  const visible = text.replace(/\u001b\[[0-9;]*m/g, "").length;
  return visible >= width ? text : text + " ".repeat(width - visible);
}
