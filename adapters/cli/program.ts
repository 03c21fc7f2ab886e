import { Command, CommanderError } from "commander";
import type { Colors } from "picocolors/types";
import { PayrailClient } from "./api-client";
import { CliError, colorsFor, type CliIo } from "./io";
import { packageVersion } from "./version";

/** The options every command takes (before or after its name). */
export interface GlobalOptions {
  url?: string;
  apiKey?: string;
  color?: boolean;
}

/** What a command's action gets besides its own arguments. */
export interface CommandContext {
  io: CliIo;
  /** The global options as given on the command line (`cmd` is the action's command). */
  globals(cmd: Command): GlobalOptions;
  /** A client of the host named by `--url` / `PAYRAIL_URL`, with `--api-key` / `PAYRAIL_API_KEY`. */
  client(cmd: Command): PayrailClient;
  colors(cmd: Command): Colors;
  /** Sets the process's exit code (default 0). */
  setExitCode(code: number): void;
}

/**
 * One command (or group of subcommands), in a file of its own under `commands/`: it adds itself
 * to the program. Adding a command is adding its file and one line to `commands/index.ts`.
 */
export interface CliCommand {
  register(program: Command, ctx: CommandContext): void;
}

export const DEFAULT_URL = "http://127.0.0.1:4000";

/** Builds the `payrail` program from `commands`, writing to `io`. */
export function buildProgram(commands: readonly CliCommand[], io: CliIo, setExitCode: (code: number) => void): Command {
  const program = new Command("payrail")
    .description("payrail: run the host, and work with any payrail host over HTTP (listen, trigger, tail)")
    .option("--url <url>", `host to talk to (env PAYRAIL_URL, default ${DEFAULT_URL})`)
    .option("--api-key <key>", "API key (env PAYRAIL_API_KEY)")
    .version(packageVersion(), "-V, --version", "print the version of payrail and exit")
    .option("--color", "colour the output even when it is not a terminal")
    .option("--no-color", "never colour the output (also NO_COLOR)")
    .showHelpAfterError("(payrail --help lists the commands)")
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
    })
    .exitOverride();
  const globals = (cmd: Command): GlobalOptions => cmd.optsWithGlobals() as GlobalOptions;
  const ctx: CommandContext = {
    io,
    globals,
    client(cmd) {
      const options = globals(cmd);
      const apiKey = options.apiKey ?? io.env.PAYRAIL_API_KEY;
      if (!apiKey) throw new CliError("an API key is needed: --api-key sk_test_… or PAYRAIL_API_KEY (npm start prints one)", 2);
      return new PayrailClient({ url: options.url ?? io.env.PAYRAIL_URL ?? DEFAULT_URL, apiKey });
    },
    colors: (cmd) => colorsFor(io, globals(cmd).color),
    setExitCode,
  };
  for (const command of commands) command.register(program, ctx);
  // every subcommand writes where the program does and throws instead of exiting
  const configure = (cmd: Command) => {
    for (const sub of cmd.commands) {
      sub.configureOutput(program.configureOutput()).exitOverride().showHelpAfterError("(payrail --help lists the commands)");
      configure(sub);
    }
  };
  configure(program);
  return program;
}

/** Runs `payrail <argv>`; resolves with the exit code. */
export async function runProgram(commands: readonly CliCommand[], argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(commands, io, (code) => (exitCode = code));
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (e) {
    // --help and --version exit 0; a usage error (unknown option or command, missing argument) 2, as documented
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof CliError) {
      io.stderr.write(`payrail: ${e.message}\n`);
      return e.exitCode;
    }
    throw e;
  }
}
