import { defineModule, operations, work } from "../../engine/module";
import { RECIPIENT_EVENTS } from "./recipient-events";
import { RECIPIENT_SCREEN, RecipientsService } from "./recipients-service";
import { recipientRoutes } from "./routes";

export type { CreateRecipientInput, ListRecipientsParams, UpdateRecipientInput } from "./recipient-schemas";
export type { RecipientObject } from "./recipients-service";
export type { RecipientsApi } from "./routes";

/** Recipients with per-chain addresses and screening. */
export const recipientsModule = defineModule({
  name: "recipients",
  ids: { rcp: "recipient" },
  scopes: ["recipients"],
  tags: [{ name: "Recipients", description: "Who payouts go to" }],
  events: RECIPIENT_EVENTS,
  routes: recipientRoutes,
  setup: ({ deps }) => {
    const recipients = new RecipientsService(deps);
    return {
      api: { recipients: operations(recipients, ["create", "retrieve", "update", "del", "list"]) },
      work: [work(RECIPIENT_SCREEN, recipients.screeningHandler())],
    };
  },
});
