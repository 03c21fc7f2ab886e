import { eventType, listOf } from "../api/common-objects";
import { o } from "../api/response-schema";

export const Event = o.named(
  "Event",
  o.object(
    {
      id: o.id("evt"),
      object: o.literal("event"),
      type: eventType(),
      created: o.time(),
      livemode: o.boolean(),
      api_version: o.optional(
        o.string({
          description:
            "The API version the event and its `data.object` are rendered in (a webhook's: its account's default version). " +
            "Answered from version 2026-11-27 on; absent on 2026-01-01",
          example: "2026-11-27",
        }),
      ),
      data: o.object({ object: o.anyObject({ description: "The object the event is about, as the API answers it at the event's time" }) }),
      request: o.object(
        {
          id: o.nullable(o.string({ example: "req_01jd5x3kq8b7m2c9v4n6p0r1s2" })),
          idempotency_key: o.nullable(o.string()),
        },
        { description: "The API request that caused the event (also for work it started in the background)" },
      ),
    },
    { description: "Something that happened, as the API lists it and webhooks send it" },
  ),
);

export const EventList = listOf("Event", Event);
