import { eventType, listOf } from "../../api/common-objects";
import { o } from "../../api/response-schema";

export const EventTypeDefinition = o.named(
  "EventTypeDefinition",
  o.object(
    {
      type: eventType(),
      description: o.string({ example: "A payout reached its final state: every leg settled" }),
      schema: o.anyObject({
        description: "The JSON Schema (2020-12) of `data.object` of events of this type, standing alone (its `$defs` hold what it refers to)",
      }),
    },
    { description: "An event type of the catalogue: what it means and the shape of its `data.object`" },
  ),
);

const list = listOf("EventTypeDefinition", EventTypeDefinition);

/** The list of event types, ordered by type (not newest first: they have no creation time). */
export const EventTypeDefinitionList = { ...list, definition: { ...list.definition, description: "A page of event types, ordered by type" } };
