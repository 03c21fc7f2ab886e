import type { ChainAdapter } from "../ports/chain";
import { guardMethods } from "../ports/guard";

/**
 * Which chain adapter serves which chain, for which mode. Adapters are wrapped by the core
 * (errors become AdapterError with the adapter's name). A `testModeOnly` adapter (a simulator)
 * never serves a live account: a live account without a real adapter for a chain has no route
 * on it.
 */
export class ChainDirectory {
  private readonly byChain = new Map<string, ChainAdapter>();

  constructor(adapters: readonly ChainAdapter[]) {
    for (const adapter of adapters) {
      const guarded = guardMethods(adapter.name, adapter);
      for (const chain of adapter.chains) {
        if (this.byChain.has(chain)) throw new Error(`two chain adapters serve ${chain}`);
        this.byChain.set(chain, guarded);
      }
    }
  }

  /** The adapter serving `chain` for an account of this mode, or null. */
  for(chain: string, livemode: boolean): ChainAdapter | null {
    const adapter = this.byChain.get(chain);
    if (!adapter || (livemode && adapter.testModeOnly)) return null;
    return adapter;
  }

  /** The adapter serving `chain` regardless of mode (test helpers, workers on known legs). */
  any(chain: string): ChainAdapter | null {
    return this.byChain.get(chain) ?? null;
  }
}
