/**
 * API-key scopes (docs/decisions.md §3): `<resource>:read` or `<resource>:write`, the resources
 * being those the engine's modules declare (`ResourceModule.scopes`); write implies read, and a
 * key without scopes has full access.
 */
export type Scope = `${string}:${"read" | "write"}`;

/**
 * What a route needs: a scope, or `full_access` (a key with no scopes), which is what managing
 * API keys takes, so a restricted key can never widen its own access.
 */
export const FULL_ACCESS = "full_access";
export type RouteScope = Scope | typeof FULL_ACCESS;

/** The scopes a set of scope resources gives: read and write of each. */
export function scopesOf(resources: readonly string[]): Scope[] {
  return resources.flatMap((r) => [`${r}:read`, `${r}:write`] as const);
}

/** Whether a key with `scopes` (none: full access) may use `scope`; write implies read. */
export function scopesAllow(scopes: readonly string[], scope: RouteScope): boolean {
  if (scopes.length === 0) return true;
  if (scope === FULL_ACCESS) return false;
  if (scopes.includes(scope)) return true;
  const [resource, action] = scope.split(":");
  return action === "read" && scopes.includes(`${resource}:write`);
}
