import type { ChainAdapter } from "../ports/chain";
import type { ModedChainObservation } from "../ports/domain-observations";
import { guardMethods, type CallTiming } from "../ports/guard";
import { PermanentWorkError } from "../workers/due-work";

/**
 * Which chain adapter serves which chain, for which mode (docs/decisions.md §9). A `testModeOnly`
 * adapter (a simulator) serves test-mode accounts; any other adapter moves real value and serves
 * live accounts only. So a chain may have one of each (the host's simulated chains beside its
 * EVM adapters), a test account never reaches a real chain (its balances are made by test
 * helpers: a payout of them must never leave a real hot wallet), and a live account never
 * "settles" against a simulator. A mode with no adapter for a chain has no route on it.
 * Adapters are wrapped by the core (errors become AdapterError with the adapter's name).
 */
export class ChainDirectory {
  private readonly test = new Map<string, ChainAdapter>();
  private readonly live = new Map<string, ChainAdapter>();

  /**
   * `timing(name)` times the calls of the adapter called `name` (metrics; see the observer port);
   * `report` hears what each adapter reports of its chains (`ChainAdapter.observe`), with its mode.
   */
  constructor(adapters: readonly ChainAdapter[], timing?: (adapter: string) => CallTiming, report?: (observation: ModedChainObservation) => void) {
    for (const adapter of adapters) {
      if (report && adapter.observe) {
        const livemode = !adapter.testModeOnly;
        adapter.observe((o) => report({ ...o, livemode }));
      }
      const guarded = guardMethods(adapter.name, adapter, "", timing?.(adapter.name));
      const byChain = adapter.testModeOnly ? this.test : this.live;
      for (const chain of adapter.chains) {
        if (byChain.has(chain)) throw new Error(`two ${adapter.testModeOnly ? "test-mode" : "live"} chain adapters serve ${chain}`);
        byChain.set(chain, guarded);
      }
    }
  }

  /** The adapter serving `chain` for an account of this mode, or null. */
  for(chain: string, livemode: boolean): ChainAdapter | null {
    return (livemode ? this.live : this.test).get(chain) ?? null;
  }

  /** The chains served in a mode, each once. */
  chains(livemode: boolean): string[] {
    return [...(livemode ? this.live : this.test).keys()];
  }

  /**
   * The adapter serving `chain` for this mode, for due work that cannot proceed without one: a
   * `PermanentWorkError` otherwise, so the work stops with that reason (the host removed the
   * chain) instead of retrying forever.
   */
  required(chain: string, livemode: boolean): ChainAdapter {
    const adapter = this.for(chain, livemode);
    if (!adapter) throw new PermanentWorkError(`no chain adapter serves ${chain} for ${livemode ? "live" : "test-mode"} accounts on this engine`);
    return adapter;
  }
}
