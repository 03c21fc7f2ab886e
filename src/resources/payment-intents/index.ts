import { defineModule, operations, work } from "../../engine/module";
import { CHAIN_SWEEP, CHAIN_WATCH, ChainWatchers } from "./chain-watchers";
import { DepositIngestion } from "./deposit-ingestion";
import { PAYMENT_INTENT_EVENTS } from "./payment-intent-events";
import { PAYMENT_INTENT_EXPIRE, PaymentIntentsService } from "./payment-intents-service";
import { paymentIntentRoutes } from "./routes";

export type { PaymentIntentObject, SettlementObject } from "./payment-intent-doc";
export type { CreatePaymentIntentInput, ListPaymentIntentsParams, RetrievePaymentIntentParams } from "./payment-intent-schemas";
export type { PaymentIntentsApi } from "./routes";

/** Incoming payments: deposit addresses, chain watchers, settlements, reorgs, expiry. */
export const paymentIntentsModule = defineModule({
  name: "payment_intents",
  ids: { pi: "payment intent", stl: "settlement" },
  scopes: ["payment_intents"],
  tags: [{ name: "Payment intents", description: "Requests to be paid on chain" }],
  events: PAYMENT_INTENT_EVENTS,
  routes: paymentIntentRoutes,
  setup: ({ deps }) => {
    const deposits = new DepositIngestion(deps);
    const watchers = new ChainWatchers(deps, deposits);
    const paymentIntents = new PaymentIntentsService(deps, deposits, watchers);
    return {
      api: { paymentIntents: operations(paymentIntents, ["create", "retrieve", "update", "list"]) },
      // the test helpers pay intents and poll the chains; tests feed deposits in directly
      provides: { watchers, deposits },
      work: [work(CHAIN_WATCH, watchers.handler()), work(CHAIN_SWEEP, watchers.sweepHandler()), work(PAYMENT_INTENT_EXPIRE, paymentIntents.expiryHandler())],
    };
  },
});
