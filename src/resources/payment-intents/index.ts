import { defineModule, work } from "../../engine/resource-module";
import { CHAIN_SWEEP, CHAIN_WATCH, ChainWatchers } from "./chain-watchers";
import { DepositIngestion } from "./deposit-ingestion";
import { PAYMENT_INTENT_EXPIRE, PaymentIntentsService } from "./payment-intents-service";
import { paymentIntentRoutes } from "./routes";

/** Incoming payments: deposit addresses, chain watchers, settlements, reorgs, expiry. */
export const paymentIntentsModule = defineModule({
  name: "payment_intents",
  routes: paymentIntentRoutes,
  setup: ({ deps }) => {
    const deposits = new DepositIngestion(deps);
    const watchers = new ChainWatchers(deps, deposits);
    const paymentIntents = new PaymentIntentsService(deps, deposits, watchers);
    return {
      services: { paymentIntents, deposits },
      work: [
        work(CHAIN_WATCH, watchers.handler()),
        work(CHAIN_SWEEP, watchers.sweepHandler()),
        work(PAYMENT_INTENT_EXPIRE, paymentIntents.expiryHandler()),
      ],
    };
  },
});
