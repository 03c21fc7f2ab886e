import { defineModule, work } from "../../engine/resource-module";
import { RECIPIENT_SCREEN, RecipientsService } from "./recipients-service";
import { recipientRoutes } from "./routes";

/** Recipients with per-chain addresses and screening. */
export const recipientsModule = defineModule({
  name: "recipients",
  routes: recipientRoutes,
  setup: ({ deps }) => {
    const recipients = new RecipientsService(deps);
    return { services: { recipients }, work: [work(RECIPIENT_SCREEN, recipients.screeningHandler())] };
  },
});
