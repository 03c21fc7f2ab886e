import pc from "picocolors";
import type { Colors } from "picocolors/types";

/**
 * What a command talks to: its output streams, its environment, and the signal that says the
 * user asked it to stop (Ctrl-C, SIGTERM). The binary wires the process; tests pass their own,
 * so every command also runs in-process.
 */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** Aborted when the command should stop (SIGINT or SIGTERM for the binary). */
  signal: AbortSignal;
}

/**
 * The colours of a command's output: on when standard output is a terminal (or `FORCE_COLOR` is
 * set), off with `NO_COLOR`, and as `--color` / `--no-color` say when given.
 */
export function colorsFor(io: CliIo, flag: boolean | undefined): Colors {
  let enabled: boolean;
  if (flag !== undefined) enabled = flag;
  else if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== "") enabled = false;
  else if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== "0") enabled = true;
  else enabled = io.stdout.isTTY === true && io.env.TERM !== "dumb";
  return pc.createColors(enabled);
}

/** Resolves when `signal` aborts (at once when it has). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/** Waits `ms`, or less when `signal` aborts first; never rejects. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** A failure a command reports as one line on standard error, with the exit code it means. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "CliError";
  }
}
