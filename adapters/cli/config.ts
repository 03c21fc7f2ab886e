import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CliError } from "./io";

/** What a profile may set (`payrail config set KEY VALUE`): the host and the key the commands use. */
export const PROFILE_KEYS = ["url", "api_key"] as const;
export type ProfileKey = (typeof PROFILE_KEYS)[number];

/** One profile of the config file. */
export interface Profile {
  url?: string;
  api_key?: string;
  /** `listen`'s signing secret per host URL (kept so the receiver's secret never changes). */
  listen_secrets?: Record<string, string>;
}

/** The config file: profiles by name (`default` unless `--profile` or `PAYRAIL_PROFILE` says). */
export interface ConfigFile {
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = "default";

/**
 * Where the config file is: `--config` / `PAYRAIL_CONFIG`, else `$XDG_CONFIG_HOME/payrail/config.json`,
 * else `~/.config/payrail/config.json`.
 */
export function configPath(env: Record<string, string | undefined>, flag?: string): string {
  if (flag) return flag;
  if (env.PAYRAIL_CONFIG) return env.PAYRAIL_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "payrail", "config.json");
}

const PROFILE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** A profile name as `--profile` takes it (letters, digits, `_ . -`). */
export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) throw new CliError(`a profile name is 1 to 64 letters, digits, _ . or -, got ${JSON.stringify(name)}`, 2);
  return name;
}

/** The config file at `path`, or an empty one when there is none yet. */
export function readConfig(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { profiles: {} };
    throw new CliError(`cannot read the config file ${path}: ${(e as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as Partial<ConfigFile>;
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
    const profiles = parsed.profiles ?? {};
    if (typeof profiles !== "object" || Array.isArray(profiles)) throw new Error("profiles is not an object");
    return { ...parsed, profiles };
  } catch (e) {
    throw new CliError(`the config file ${path} is not valid (${(e as Error).message}); fix or remove it`);
  }
}

/**
 * Writes the config file whole: to a temporary file beside it, readable by its owner only (it
 * holds API keys and signing secrets), renamed into place, so a reader never sees half a file.
 */
export function writeConfig(path: string, config: ConfigFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, path);
}

/** Reads the config, lets `change` edit one profile (made when missing), writes it back. */
export function updateProfile<T>(path: string, name: string, change: (profile: Profile) => T): T {
  const config = readConfig(path);
  const profile = config.profiles[name] ?? {};
  const result = change(profile);
  config.profiles[name] = profile;
  writeConfig(path, config);
  return result;
}
