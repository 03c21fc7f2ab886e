import type { EngineCatalogue } from "../engine/catalogue";
import type { AssetRegistry } from "../money/assets";
import type { JsonSchema } from "../validation/schema";
import { ASSET_CODE, CHAIN_NAME, EVENT_TYPE, SCOPE } from "./common-objects";

/**
 * The schemas the objects refer to that come from the running engine, not from a resource's
 * `*-objects.ts`: its registry's asset codes and chain names (as enums when `assets` is given) and
 * its catalogue's event types and scopes. The OpenAPI document's components and the event
 * types' own schemas (`GET /v1/event_types`) take them from here.
 */
export function catalogueComponents(catalogue: EngineCatalogue, assets?: AssetRegistry): Record<string, JsonSchema> {
  return {
    [ASSET_CODE]: assets
      ? { type: "string", enum: assets.list().map((a) => a.code), description: "An asset code of the registry (docs/decisions.md §1)" }
      : { type: "string", pattern: "^[A-Z][A-Z0-9]{1,11}$", description: "An asset code of the registry" },
    [CHAIN_NAME]: assets
      ? { type: "string", enum: assets.chains().map((c) => c.name), description: "A chain name of the registry (docs/decisions.md §1)" }
      : { type: "string", pattern: "^[a-z][a-z0-9_]*$", description: "A chain name of the registry" },
    [EVENT_TYPE]: { type: "string", enum: [...catalogue.eventTypes], description: "An event type of the catalogue (docs/decisions.md §4)" },
    [SCOPE]: {
      type: "string",
      enum: [...catalogue.scopes],
      description: "An API key scope: `<resource>:read` or `<resource>:write` (write implies read)",
    },
  };
}
