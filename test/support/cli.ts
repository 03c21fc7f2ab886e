import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMMANDS } from "../../adapters/cli/commands";
import type { CliIo } from "../../adapters/cli/io";
import { runProgram } from "../../adapters/cli/program";

/** A `payrail` command running in this process, its output captured. */
export interface CliRun {
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves with the exit code once the command returns. */
  readonly done: Promise<number>;
  /** Resolves once standard output or error (colour codes removed) matches `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** What Ctrl-C does to the binary: asks the command to stop; resolves with its exit code. */
  stop(): Promise<number>;
}

// eslint-disable-next-line no-control-regex
export const stripAnsi = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, "");

/** The config file the commands of a test file use unless `PAYRAIL_CONFIG` is given: never the user's. */
export const TEST_CONFIG = join(mkdtempSync(join(tmpdir(), "payrail-cli-")), "config.json");

/** Runs `payrail <argv>` in-process with `env` (nothing else of the process's environment but a config file of the test's). */
export function runCli(argv: string[], env: Record<string, string> = {}): CliRun {
  let stdout = "";
  let stderr = "";
  const stop = new AbortController();
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: { PAYRAIL_CONFIG: TEST_CONFIG, ...env },
    signal: stop.signal,
  };
  const done = runProgram(COMMANDS, argv, io);
  return {
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    done,
    async waitFor(pattern, timeoutMs = 15_000) {
      const started = Date.now();
      for (;;) {
        const m = pattern.exec(stripAnsi(stdout + stderr));
        if (m) return m;
        if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${pattern}; output:\n${stdout}\n${stderr}`);
        const finished = await Promise.race([done.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 25))]);
        if (finished && !pattern.exec(stripAnsi(stdout + stderr))) throw new Error(`the command ended before ${pattern}; output:\n${stdout}\n${stderr}`);
      }
    },
    stop() {
      stop.abort("SIGINT");
      return done;
    },
  };
}

export const REPO = join(import.meta.dirname, "..", "..");

/** The real binary (`node --import tsx adapters/cli/main.ts …`), as `npx payrail` runs it, in its own process group. */
export function spawnCli(argv: string[], env: Record<string, string>): ChildProcess & { output(): string } {
  const child = spawn(process.execPath, ["--import", "tsx", "adapters/cli/main.ts", ...argv], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PAYRAIL_CONFIG: TEST_CONFIG, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  return Object.assign(child, { output: () => output });
}

/** Resolves once `read()` matches `pattern`. */
export async function eventually<T>(read: () => T | null | undefined | false, timeoutMs = 20_000, what = "a condition"): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves with the exit code (or signal) of `child`. */
export function exited(child: ChildProcess): Promise<number | string> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? -1)));
}
