import { defineEvent, type SampleContext } from "../../engine/module";
import { AssetRegistry } from "../../money/assets";
import { presentReconciliation } from "./reconciliation-doc";
import { Reconciliation } from "./reconciliation-objects";
import { DRIFT_DETECTED } from "./reconciler";

/** A sample drift: a base hot wallet holding 250 USDC the books do not know of (an outside transfer in). */
function sampleDrift({ ids, now }: SampleContext) {
  const usdc = AssetRegistry.withDefaults().get("USDC")!;
  return presentReconciliation(usdc, {
    id: ids.next("rec"),
    livemode: true,
    chain: "base",
    asset: "USDC",
    status: "drift",
    onChain: "1250000000",
    inBooks: "1000000000",
    difference: "250000000",
    at: "23104512",
    hotWallet: { address: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94", amount: "1250000000" },
    depositAddresses: "0",
    parts: { balances: "990000000", operatorFees: "10000000", unallocated: "0", offChain: "0", networkFeesPaid: "0", inFlight: "0", float: "0" },
    addresses: [],
    unknownTransfers: [
      {
        txHash: "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060",
        address: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94",
        amount: "250000000",
        at: "23104400",
      },
    ],
    opening: false,
    accepted: null,
    metadata: { asset: "USDC" },
    created: now,
  });
}

/** Reconciliation's event: engine-wide, delivered only to endpoints that name it (docs/decisions.md §12). */
export const RECONCILIATION_EVENTS = [
  defineEvent({
    type: DRIFT_DETECTED,
    description:
      "A chain's addresses and the books disagree about an asset: the reconciliation record, with what explains the difference (delivered only to endpoints that name it, in every account of the mode)",
    object: Reconciliation,
    namedOnly: true,
    engineWide: { readScope: "reconciliations:read" },
    sample: sampleDrift,
  }),
] as const;
