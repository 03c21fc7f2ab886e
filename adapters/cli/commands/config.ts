import type { Command } from "commander";
import { PROFILE_KEYS, readConfig, updateProfile, type Profile, type ProfileKey } from "../config";
import { CliError } from "../io";
import { jsonLine } from "../output";
import type { CliCommand } from "../program";

function profileKey(key: string): ProfileKey {
  if (!(PROFILE_KEYS as readonly string[]).includes(key)) throw new CliError(`${key} is not a setting; the settings are ${PROFILE_KEYS.join(", ")}`, 2);
  return key as ProfileKey;
}

/** An API key as `config list` shows it: its kind and last 4 characters. */
function masked(key: string): string {
  return `${key.startsWith("sk_live_") ? "sk_live_" : key.startsWith("sk_test_") ? "sk_test_" : ""}…${key.slice(-4)}`;
}

function shownSettings(profile: Profile): Record<string, string> {
  const out: Record<string, string> = {};
  if (profile.url !== undefined) out.url = profile.url;
  if (profile.api_key !== undefined) out.api_key = masked(profile.api_key);
  for (const [host, secret] of Object.entries(profile.listen_secrets ?? {})) out[`listen_secret ${host}`] = `whsec_…${secret.slice(-4)}`;
  return out;
}

/**
 * `payrail config set|get|unset|list|path`: profiles of settings in a config file (the host URL
 * and API key a profile talks to; `listen` keeps its signing secret per host there too).
 */
export const configCommand: CliCommand = {
  register(program, ctx) {
    const config = program.command("config").description("profiles in the config file: the host and API key each one uses (--profile NAME)");
    config
      .command("set")
      .description(`set a setting of the profile (${PROFILE_KEYS.join(", ")})`)
      .argument("<key>", PROFILE_KEYS.join(" or "))
      .argument("<value>")
      .action((key: string, value: string, _options: unknown, cmd: Command) => {
        const k = profileKey(key);
        if (k === "url") {
          try {
            new URL(value);
          } catch {
            throw new CliError(`url must be a URL, got ${value}`, 2);
          }
        }
        const { name, path } = ctx.profile(cmd);
        updateProfile(path, name, (p) => void (p[k] = value));
        ctx.io.stderr.write(`set ${k} of profile ${name} in ${path}\n`);
      });
    config
      .command("get")
      .description("print a setting of the profile (exit 1 when unset)")
      .argument("<key>", PROFILE_KEYS.join(" or "))
      .action((key: string, _options: unknown, cmd: Command) => {
        const k = profileKey(key);
        const { name, settings } = ctx.profile(cmd);
        const value = settings[k];
        if (value === undefined) throw new CliError(`${k} is not set in profile ${name}`);
        ctx.io.stdout.write(`${value}\n`);
      });
    config
      .command("unset")
      .description("remove a setting of the profile")
      .argument("<key>", PROFILE_KEYS.join(" or "))
      .action((key: string, _options: unknown, cmd: Command) => {
        const k = profileKey(key);
        const { name, path } = ctx.profile(cmd);
        updateProfile(path, name, (p) => void delete p[k]);
      });
    config
      .command("list")
      .description("the profiles and their settings (keys and secrets shortened)")
      .option("--json", "one JSON object")
      .action((options: { json?: boolean }, cmd: Command) => {
        const { path, name: current } = ctx.profile(cmd);
        const profiles = readConfig(path).profiles;
        if (options.json) {
          ctx.io.stdout.write(jsonLine(Object.fromEntries(Object.entries(profiles).map(([n, p]) => [n, shownSettings(p)]))));
          return;
        }
        ctx.io.stderr.write(`${path}\n`);
        for (const [n, p] of Object.entries(profiles)) {
          ctx.io.stdout.write(`[${n}]${n === current ? " (in use)" : ""}\n`);
          for (const [k, v] of Object.entries(shownSettings(p))) ctx.io.stdout.write(`  ${k} = ${v}\n`);
        }
      });
    config
      .command("path")
      .description("print where the config file is")
      .action((_options: unknown, cmd: Command) => void ctx.io.stdout.write(`${ctx.profile(cmd).path}\n`));
  },
};
