import { catalogueComponents } from "../api/catalogue-components";
import { o, reachable, type NamedSchema, type ResponseSchema } from "../api/response-schema";
import type { EngineCatalogue } from "../engine/catalogue";
import type { EventDefinition } from "../engine/module";
import type { AssetRegistry } from "../money/assets";
import type { JsonSchema } from "../validation/schema";
import { Event } from "./event-object";

/**
 * The event-type catalogue as clients read it (docs/decisions.md §11), from the one source the engine
 * has, its modules' event definitions (type, description, the schema of `data.object`):
 * `GET /v1/event_types` answers each type with a self-contained JSON Schema of its `data.object`,
 * and the OpenAPI document's `webhooks` section has one entry per type whose body is the event
 * with `type` and `data.object` narrowed to that type (`typedEventSchema`).
 */

const COMPONENTS = "#/components/schemas/";

/** An event definition's API view: `{type, description, schema}`. */
export interface EventTypeItem {
  type: string;
  description: string;
  schema: Record<string, unknown>;
}

/**
 * The JSON Schema (2020-12) of `data.object` of events of `def`'s type, standing alone: the
 * object's schema as a `$ref` into `$defs`, which holds every schema it refers to.
 */
export function dataObjectSchema(def: EventDefinition, catalogue: EngineCatalogue, assets?: AssetRegistry): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (const [name, schema] of reachable([def.object])) defs[name] = schema.definition;
  const shared = catalogueComponents(catalogue, assets);
  let text = JSON.stringify(defs);
  for (const [name, schema] of Object.entries(shared)) if (text.includes(`"${COMPONENTS}${name}"`)) defs[name] = schema;
  text = JSON.stringify(defs).replaceAll(`"${COMPONENTS}`, '"#/$defs/');
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $ref: `#/$defs/${def.object.name}`,
    description: def.description,
    $defs: JSON.parse(text) as Record<string, unknown>,
  };
}

/** Every event type of the catalogue with its description and schema, ordered by type. */
export function eventTypeItems(catalogue: EngineCatalogue, assets?: AssetRegistry): EventTypeItem[] {
  return [...catalogue.eventTypes].sort().map((type) => {
    const def = catalogue.event(type)!;
    return { type, description: def.description, schema: dataObjectSchema(def, catalogue, assets) };
  });
}

/** `payout.created` → `PayoutCreatedEvent`: the component naming a typed event. */
export function typedEventName(type: string): string {
  return `${type.replace(/(^|[._])([a-z0-9])/g, (_, __, c: string) => c.toUpperCase())}Event`;
}

/**
 * The event of `def`'s type as a webhook sends it: the `Event` schema with `type` fixed to the
 * type and `data.object` the type's object (a `$ref` to its component), so types generated from
 * the document narrow on `type`.
 */
export function typedEventSchema(def: EventDefinition): NamedSchema<unknown> {
  const base = Event.definition as JsonSchema & { properties: Record<string, JsonSchema> };
  const definition: JsonSchema = {
    ...base,
    description: def.description,
    properties: {
      ...base.properties,
      type: { type: "string", enum: [def.type] },
      data: { type: "object", properties: { object: def.object.json }, required: ["object"], additionalProperties: false },
    },
  };
  const inner: ResponseSchema<unknown> & { refs: NamedSchema<unknown>[] } = { json: definition, refs: [def.object] };
  return o.named(typedEventName(def.type), inner);
}
