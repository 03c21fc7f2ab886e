import { listOf } from "../../api/common-objects";
import { o } from "../../api/response-schema";
import { metadataObject } from "../../metadata/metadata";
import { SCREENING_STATUSES } from "./screening-machine";

export const Recipient = o.named(
  "Recipient",
  o.object(
    {
      id: o.id("rcp"),
      object: o.literal("recipient"),
      name: o.string({ example: "Ada Lovelace" }),
      chain_addresses: o.record(o.string({ example: "0x52908400098527886E0F7030069857D2E4169EE7" }), {
        description: "The recipient's address per chain",
      }),
      screening: o.boolean({ description: "Whether the screening provider is asked about the recipient" }),
      screening_status: o.enum(SCREENING_STATUSES, {
        description: "A flagged recipient cannot be paid (402 recipient_blocked)",
      }),
      metadata: metadataObject,
      created: o.time(),
    },
    { description: "Someone payouts go to" },
  ),
);

export const DeletedRecipient = o.named("DeletedRecipient", o.object({ id: o.id("rcp"), object: o.literal("recipient"), deleted: o.true() }));

export const RecipientList = listOf("Recipient", Recipient);
