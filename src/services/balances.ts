import { balanceObjects, type BalanceObject } from "../ledger/balances";
import type { ListEnvelope } from "../lists/list-page";
import type { EngineDeps, RequestContext } from "./context";

/** `GET /v1/balances`: every asset of the registry, with per-chain amounts. */
export class BalancesService {
  constructor(private readonly deps: EngineDeps) {}

  async list(ctx: RequestContext): Promise<ListEnvelope<BalanceObject>> {
    const rows = await this.deps.storage.transaction((tx) => tx.ledger.listBalances(ctx.accountId));
    return {
      object: "list",
      data: balanceObjects(this.deps.assets, rows, this.deps.clock.now()),
      has_more: false,
      next_cursor: null,
    };
  }
}
