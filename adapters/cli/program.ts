import { Command, CommanderError } from "commander";
import type { Colors } from "picocolors/types";
import { PayrailClient } from "./api-client";
import { checkProfileName, configPath, DEFAULT_PROFILE, readConfig, type Profile } from "./config";
import { CliError, colorsFor, type CliIo } from "./io";
import { packageVersion } from "./version";

/** The options every command takes (before or after its name). */
export interface GlobalOptions {
  url?: string;
  apiKey?: string;
  color?: boolean;
  profile?: string;
  config?: string;
}

/** The profile a command runs under (`--profile` / `PAYRAIL_PROFILE`, default `default`) and its config file. */
export interface ProfileRef {
  name: string;
  /** The config file (`--config` / `PAYRAIL_CONFIG`, else under `XDG_CONFIG_HOME` or `~/.config`). */
  path: string;
  /** The profile as the file holds it now (empty when it has none). */
  settings: Profile;
}

/** What a command's action gets besides its own arguments. */
export interface CommandContext {
  io: CliIo;
  /** The global options as given on the command line (`cmd` is the action's command). */
  globals(cmd: Command): GlobalOptions;
  /** A client of the host named by `--url` / `PAYRAIL_URL`, with `--api-key` / `PAYRAIL_API_KEY`. */
  client(cmd: Command): PayrailClient;
  /** The host named by `--url`, `PAYRAIL_URL` or the profile (default `DEFAULT_URL`), without a trailing slash. */
  hostUrl(cmd: Command): string;
  /** The profile named by `--profile` / `PAYRAIL_PROFILE` and where its config file is. */
  profile(cmd: Command): ProfileRef;
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
    .option("--profile <name>", `settings of the config file to use (env PAYRAIL_PROFILE, default ${DEFAULT_PROFILE})`)
    .option("--config <file>", "the config file (env PAYRAIL_CONFIG, default ~/.config/payrail/config.json)")
    .showHelpAfterError("(payrail --help lists the commands)")
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
    })
    .exitOverride();
  const globals = (cmd: Command): GlobalOptions => cmd.optsWithGlobals() as GlobalOptions;
  const profile = (cmd: Command): ProfileRef => {
    const options = globals(cmd);
    const name = checkProfileName(options.profile ?? io.env.PAYRAIL_PROFILE ?? DEFAULT_PROFILE);
    const path = configPath(io.env, options.config);
    return { name, path, settings: readConfig(path).profiles[name] ?? {} };
  };
  const urlOf = (cmd: Command, settings: ProfileRef["settings"]) => (globals(cmd).url ?? io.env.PAYRAIL_URL ?? settings.url ?? DEFAULT_URL).replace(/\/+$/, "");
  const ctx: CommandContext = {
    io,
    globals,
    profile,
    // the option, then the environment, then the profile
    client(cmd) {
      const options = globals(cmd);
      const { settings } = profile(cmd);
      const apiKey = options.apiKey ?? io.env.PAYRAIL_API_KEY ?? settings.api_key;
      if (!apiKey) {
        throw new CliError("an API key is needed: --api-key sk_test_…, PAYRAIL_API_KEY or payrail config set api_key … (npm start prints one)", 2);
      }
      return new PayrailClient({ url: urlOf(cmd, settings), apiKey });
    },
    hostUrl: (cmd) => urlOf(cmd, profile(cmd).settings),
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
