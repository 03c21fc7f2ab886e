import { defineEvent, defineModule, operations, type SampleContext } from "../../../src/engine/module";
import { transferRoutes } from "./routes";
import { Transfer } from "./transfer-objects";
import { TransfersService, presentTransfer } from "./transfers-service";

/** A sample transfer of 5 USDC on base, in `status`. */
const sample =
  (status: "posted" | "reversed") =>
  ({ ids, assets, now }: SampleContext) =>
    presentTransfer(
      { assets },
      {
        id: ids.next("tr"),
        status,
        destination: ids.next("acct"),
        asset: "USDC",
        chain: "base",
        amount: "5000000",
        description: "sample",
        created: now,
        reversedAt: status === "reversed" ? now : null,
      },
    );

/**
 * An example resource, as an outside contributor adds one: account-to-account transfers. Its
 * folder, and this module appended to the engine's list (`[...DEFAULT_MODULES, transfersModule]`),
 * are all it takes for its routes, events and samples, scope and OpenAPI entries to appear.
 */
export const transfersModule = defineModule({
  name: "transfers",
  ids: { tr: "transfer" },
  scopes: ["transfers"],
  tags: [{ name: "Transfers", description: "Funds moved between accounts of one mode" }],
  events: [
    defineEvent({ type: "transfer.created", description: "Funds moved to another account", object: Transfer, sample: sample("posted") }),
    defineEvent({ type: "transfer.reversed", description: "A transfer was taken back", object: Transfer, sample: sample("reversed") }),
  ],
  routes: transferRoutes,
  setup: ({ deps }) => ({ api: { transfers: operations(new TransfersService(deps), ["create", "retrieve", "list", "reverse"]) } }),
});
