import { INITIAL_VERSION, isApiVersion } from "../../versions/api-versions";

/**
 * The account's default API version, kept in its settings: pinned to the newest when it is
 * created; an account made before versions existed has none and is on the initial version.
 */
export function accountApiVersion(settings: unknown): string {
  const version = (settings as { api_version?: unknown } | null)?.api_version;
  return isApiVersion(version) ? version : INITIAL_VERSION;
}
