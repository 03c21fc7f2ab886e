import { docField, ledgerEntriesField, type Expandable } from "../../lists/expansion";
import { PAYMENT_INTENTS, presentPaymentIntent, presentSettlement } from "./payment-intent-doc";

/**
 * What `expand[]` replaces in a payment intent: its settlements (kept inside the intent's
 * document, so they are presented from it) and its ledger entries; and in a settlement, its
 * payment intent (`settlements.payment_intent`).
 */
export const PAYMENT_INTENT_EXPANDABLE: Expandable = {
  fields: {
    settlements: {
      to: () => SETTLEMENT_EXPANDABLE,
      async expand({ deps, tx, accountId }, parents) {
        const docs = await PAYMENT_INTENTS.getMany(
          tx,
          accountId,
          parents.map((p) => p.id as string),
        );
        const put: Record<string, unknown>[] = [];
        for (const parent of parents) {
          const doc = docs.get(parent.id as string);
          if (!doc) continue;
          const settlements = doc.settlements.map((s) => presentSettlement(deps.assets, doc.id, s) as unknown as Record<string, unknown>);
          parent.settlements = settlements;
          put.push(...settlements);
        }
        return put;
      },
    },
    ledger_entries: ledgerEntriesField(),
  },
};

export const SETTLEMENT_EXPANDABLE: Expandable = {
  fields: {
    payment_intent: docField(
      "payment_intent",
      PAYMENT_INTENTS,
      (doc, deps) => presentPaymentIntent(deps.assets, doc),
      () => PAYMENT_INTENT_EXPANDABLE,
    ),
  },
};

export const PAYMENT_INTENT_EXPAND_PATHS = ["settlements", "ledger_entries", "settlements.payment_intent"] as const;
