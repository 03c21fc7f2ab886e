import type { EventDefinition } from "../engine/module";
import { balanceObject } from "./balances";
import { Balance } from "./ledger-objects";

/**
 * Events the engine itself emits, whatever its modules: `balance.updated`, once per asset whose
 * customer balances a transaction changed (the ledger is the core's, not a module's).
 */
export const CORE_EVENTS: readonly EventDefinition[] = [
  {
    type: "balance.updated",
    description: "An account's balance of an asset changed (one event per asset and transaction, in the order of the commits)",
    object: Balance,
    sample: ({ assets, now }) => balanceObject(assets.get("USDC")!, [], now),
  },
];
