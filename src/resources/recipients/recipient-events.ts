import { defineEvent } from "../../engine/module";
import { Recipient } from "./recipient-objects";
import { presentRecipient } from "./recipients-service";

/** The recipients' events (the seed's catalogue), each with a sample of its object. */
export const RECIPIENT_EVENTS = [
  defineEvent({
    type: "recipient.screening_updated",
    description: "The screening provider decided about a recipient (cleared or flagged)",
    object: Recipient,
    sample: ({ ids, now }) =>
      presentRecipient({
        id: ids.next("rcp"),
        name: "Sample recipient",
        chainAddresses: { base: `0x${"12".repeat(20)}` },
        screening: true,
        screeningStatus: "cleared",
        version: 1,
        created: now,
      }),
  }),
] as const;
