import { ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../errors";

/**
 * Dated API versions (Stripe's `Stripe-Version`). The code answers in the newest shape; a client
 * pinned to an older version (`Payrail-Version`, or its account's default) gets the shapes of
 * its version by small transforms at the edge: each dated change below says how a response
 * object of the newer shape becomes the older one, and how a request body written for the
 * older version becomes the newer one. Adding a change: one entry here, a line in
 * docs/versions.md, and a test that each side of it sees its own shape.
 */

/** The header a client pins its version with, and the answer states the version it used. */
export const VERSION_HEADER = "Payrail-Version";

/** A JSON object of a response (`object` names its type). */
type JsonObject = Record<string, unknown>;

/** One dated change of the API's shapes. */
export interface VersionChange {
  /** The version that introduced it, `YYYY-MM-DD`: every older version is answered without it. */
  version: string;
  /** What changed, as the changelog says it. */
  description: string;
  /** Per object type (its `object` field), that object in the newer shape made the older one. */
  responses?: Record<string, (object: JsonObject) => JsonObject>;
  /** Per route (`POST /v1/…` as its template), a body written for the older version made the newer shape. */
  requests?: Record<string, (body: JsonObject) => JsonObject>;
}

/** The version every account had before versions existed (and the shape the API had then). */
export const INITIAL_VERSION = "2026-01-01";

const withoutApiVersion = ({ api_version: _, ...rest }: JsonObject): JsonObject => rest;

/** A swap before its legs' executions were answered. */
const swapWithoutExecutions = ({ executions: _, ...rest }: JsonObject): JsonObject => rest;

/** A limit order before its fills named their transactions. */
const fillsWithoutTransactions = (order: JsonObject): JsonObject => ({
  ...order,
  fills: ((order.fills as JsonObject[] | undefined) ?? []).map(({ tx_hash: _t, block: _b, executions: _e, ...fill }) => fill),
});

/** A quote before its venues carried amounts: as then, only venues of a positive weight. */
const venuesWithoutAmounts = (quote: JsonObject): JsonObject => ({
  ...quote,
  venues: ((quote.venues as JsonObject[] | undefined) ?? []).filter((v) => v.weight !== "0").map(({ from_amount: _f, to_amount: _t, ...venue }) => venue),
});

/** Every dated change, oldest first. */
export const API_CHANGES: readonly VersionChange[] = [
  {
    version: "2026-11-27",
    description:
      "Events and the account state their API version: `event.api_version` is the version the event's " +
      "`data.object` is rendered in (a webhook's: its account's default version), `account.api_version` the " +
      "account's default version. Older versions answer both without the field.",
    responses: { event: withoutApiVersion, account: withoutApiVersion },
  },
  {
    version: "2026-12-07",
    description:
      "Conversions are traceable on chain: a swap lists its `executions` (each leg's venue, chain, `tx_hash`, " +
      "block, amounts and path), each limit-order fill carries `tx_hash`, `block` and its `executions`, and a " +
      "quote's `venues` carry `from_amount` and `to_amount` beside `weight`, every venue the split uses (a sliver " +
      "shows weight 0). Older versions answer without these fields, and without the venues of weight 0.",
    responses: { swap: swapWithoutExecutions, limit_order: fillsWithoutTransactions, quote: venuesWithoutAmounts },
  },
];

/** Every version a client may ask for, oldest first. */
export const API_VERSIONS: readonly string[] = [INITIAL_VERSION, ...API_CHANGES.map((c) => c.version)];

/** The newest version: what new accounts are pinned to, and the shape the code answers in. */
export const LATEST_VERSION = API_VERSIONS[API_VERSIONS.length - 1]!;

export function isApiVersion(value: unknown): value is string {
  return typeof value === "string" && API_VERSIONS.includes(value);
}

/** A version a client named, or 400 `parameter_invalid` naming `param` and the versions there are. */
export function parseApiVersion(value: string, param: string = VERSION_HEADER): Result<string, ApiError> {
  if (isApiVersion(value.trim())) return ok(value.trim());
  return fail("parameter_invalid", `Unknown API version ${JSON.stringify(value)}; the versions are ${API_VERSIONS.join(", ")}`, { param });
}

/** The changes a client on `version` does not see, newest first (the order responses are made older in). */
function changesAfter(version: string, changes: readonly VersionChange[]): VersionChange[] {
  return changes.filter((c) => c.version > version).reverse();
}

/**
 * A response body (the newest shape) as a client on `version` sees it: every object, nested ones
 * and list items included, made older by each change after `version`, newest first; events
 * state the version they are rendered in. The body is not changed (a saved response is
 * rendered again for each replay).
 */
export function renderForVersion<T>(body: T, version: string, changes: readonly VersionChange[] = API_CHANGES): T {
  const later = changesAfter(version, changes).filter((c) => c.responses);
  // the newest shape is what the code answers (events say LATEST_VERSION already)
  if (!later.length) return body;
  return renderValue(body, version, later) as T;
}

function renderValue(value: unknown, version: string, later: readonly VersionChange[]): unknown {
  if (Array.isArray(value)) return value.map((item) => renderValue(item, version, later));
  if (typeof value !== "object" || value === null) return value;
  let object: JsonObject = {};
  for (const [key, item] of Object.entries(value)) object[key] = renderValue(item, version, later);
  const type = object.object;
  if (typeof type === "string") {
    if (type === "event" && "api_version" in object) object.api_version = version;
    for (const change of later) {
      const older = change.responses![type];
      if (older) object = older(object);
    }
  }
  return object;
}

/**
 * A request body a client on `version` wrote, in the newest shape: each change after `version`
 * that says how `route` (`POST /v1/…`) changed, oldest first.
 */
export function upgradeRequest(route: string, body: unknown, version: string, changes: readonly VersionChange[] = API_CHANGES): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  let upgraded = body as JsonObject;
  for (const change of changes) {
    const newer = change.version > version ? change.requests?.[route] : undefined;
    if (newer) upgraded = newer(upgraded);
  }
  return upgraded;
}
