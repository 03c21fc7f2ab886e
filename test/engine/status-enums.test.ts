import { describe, expect, it } from "vitest";
import { reachable, type NamedSchema } from "../../src/api/response-schema";
import { statesOf } from "../../src/engine/machine-step";
import { DEFAULT_CATALOGUE, DEFAULT_MODULES } from "../../src/modules";
import { LIMIT_ORDER_STATUSES } from "../../src/resources/limit-orders/limit-order-machine";
import { PAYMENT_INTENT_STATUSES } from "../../src/resources/payment-intents/payment-intent-machine";
import { batchMachine } from "../../src/resources/payouts/batch-machine";
import { legMachine } from "../../src/resources/payouts/leg-machine";
import { payoutMachine } from "../../src/resources/payouts/payout-machine";
import { reportMachine } from "../../src/resources/reports/report-machine";
import { SCREENING_STATUSES } from "../../src/resources/recipients/screening-machine";
import { swapMachine } from "../../src/resources/swaps/swap-machine";
import { endpointStatus, webhookEndpointMachine } from "../../src/resources/webhook-endpoints/webhook-endpoint-machine";

/**
 * Machines are the only source of status: every `status` (and `*_status`) the API answers is the list of its
 * resource's machine states (or, for a webhook endpoint, the view of them the API shows), and a
 * new status enum without a machine fails here until it gets one or is named a derived view.
 */
const MACHINE_STATUSES: Record<string, readonly string[]> = {
  Payout: statesOf(payoutMachine),
  PayoutLeg: statesOf(legMachine),
  PayoutBatch: statesOf(batchMachine),
  Swap: statesOf(swapMachine),
  LimitOrder: LIMIT_ORDER_STATUSES,
  PaymentIntent: PAYMENT_INTENT_STATUSES,
  Report: statesOf(reportMachine),
  WebhookEndpoint: [...new Set(statesOf(webhookEndpointMachine).map((s) => endpointStatus(s).status))],
  "Recipient.screening_status": SCREENING_STATUSES,
};

/** Statuses that are views of other facts, not lifecycles, each with what it is derived from. */
const DERIVED_VIEWS: Record<string, string> = {
  Settlement: "the deposit's ledger state and finality (payment-intent-doc.ts settlementStatus)",
  ApiKey: "revocation and expiry at the time of reading (api-keys-service.ts)",
  WebhookDelivery: "the outcome of one attempt, which never changes once logged",
  Reconciliation: "one reading of a chain against the books, which never changes once kept (reconciler.ts)",
  ReconciliationSummary: "the same reading as lists show it",
};

function statusEnums(): Map<string, readonly string[]> {
  const roots: NamedSchema<unknown>[] = [];
  for (const module of DEFAULT_MODULES) {
    for (const route of module.routes ?? []) roots.push(route.returns);
    for (const event of module.events ?? []) roots.push(event.object);
  }
  const out = new Map<string, readonly string[]>();
  for (const [name, schema] of reachable(roots)) {
    const properties = schema.definition.properties as Record<string, { enum?: string[] }> | undefined;
    for (const [field, property] of Object.entries(properties ?? {})) {
      if (!property.enum || !/(^|_)status$/.test(field)) continue;
      out.set(field === "status" ? name : `${name}.${field}`, property.enum);
    }
  }
  return out;
}

describe("API status enums", () => {
  const enums = statusEnums();

  it.each(Object.entries(MACHINE_STATUSES))("%s.status lists its machine's states, in order", (name, states) => {
    expect(enums.get(name)).toEqual([...states]);
  });

  it("has no status enum that is neither a machine's nor a named derived view", () => {
    const unexplained = [...enums.keys()].filter((name) => !(name in MACHINE_STATUSES) && !(name in DERIVED_VIEWS));
    expect(unexplained).toEqual([]);
    // and both tables name only objects the API answers
    for (const name of [...Object.keys(MACHINE_STATUSES), ...Object.keys(DERIVED_VIEWS)]) expect(enums.has(name)).toBe(true);
  });

  it("has an event for every status a machine announces, and every event type in the catalogue", () => {
    for (const status of PAYMENT_INTENT_STATUSES.filter((s) => s !== "requires_payment")) {
      expect(DEFAULT_CATALOGUE.isEventType(`payment_intent.${status}`)).toBe(true);
    }
    for (const status of statesOf(swapMachine)) expect(DEFAULT_CATALOGUE.isEventType(`swap.${status}`)).toBe(true);
    for (const status of LIMIT_ORDER_STATUSES) expect(DEFAULT_CATALOGUE.isEventType(`limit_order.${status}`)).toBe(true);
  });
});
