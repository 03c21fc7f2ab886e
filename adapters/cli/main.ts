import { COMMANDS } from "./commands";
import type { CliIo } from "./io";
import { runProgram } from "./program";

/**
 * The `payrail` binary. The first SIGINT or SIGTERM asks the running command to stop cleanly
 * (a host drains and releases its leases, `listen` removes its endpoint); a second one exits at
 * once.
 */
async function main(): Promise<number> {
  const stop = new AbortController();
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      process.stderr.write(`payrail: ${signal} again, exiting now\n`);
      process.exit(130);
    }
    stop.abort(signal);
  };
  // output piped into a reader that stopped (`payrail completion bash | head`) ends the command quietly
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE") process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
      throw e;
    });
  }
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: stop.signal };
  return runProgram(COMMANDS, process.argv.slice(2), io);
}

main().then(
  (code) => {
    process.exitCode = code;
    // a command that stopped has closed what it opened; anything left (a stray timer) must not keep the process
    setTimeout(() => process.exit(code), 200).unref();
  },
  (e: unknown) => {
    process.stderr.write(`payrail: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
