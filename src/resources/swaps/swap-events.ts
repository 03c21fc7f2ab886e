import { defineEvent, type SampleContext } from "../../engine/module";
import { isoTime } from "../../validation/timestamp";
import type { SwapObject } from "./swap-doc";
import type { SwapStatus } from "./swap-machine";
import { Swap } from "./swap-objects";

/** A sample swap of 100 USDC into ETH in `status`. */
function sampleSwap({ ids, now }: SampleContext, status: SwapStatus): SwapObject {
  const created = isoTime(now);
  return {
    id: ids.next("sw"),
    object: "swap",
    status,
    quote: ids.next("qt"),
    from: { asset: "USDC", amount: "100" },
    to: { asset: "ETH", amount: "0.03" },
    destination_chain: "base",
    executed_rate: status === "failed" ? null : "0.0003",
    refreshed: false,
    executions:
      status === "settled"
        ? [
            {
              venue: "uniswap-v2-base:USDC-ETH",
              chain: "base",
              tx_hash: "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060",
              block: 23_104_512,
              from_amount: "100",
              to_amount: "0.0301",
              path: ["USDC", "ETH"],
            },
          ]
        : [],
    failure_code: status === "failed" ? "venue_rejected" : null,
    metadata: {},
    created,
    settled: status === "settled" ? created : null,
  };
}

const swapEvent = <const S extends SwapStatus>(status: S, description: string) =>
  defineEvent({ type: `swap.${status}`, description, object: Swap, sample: (ctx) => sampleSwap(ctx, status) });

/** The swaps' events (the seed's catalogue), each with a sample of its object. */
export const SWAP_EVENTS = [
  swapEvent("executing", "A swap was accepted and executes at its venues"),
  swapEvent("settled", "A swap's output was credited on its destination chain"),
  swapEvent("failed", "A swap's venues refused it; its input was released"),
] as const;
