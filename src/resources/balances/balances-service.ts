import { err, ok, type Result } from "neverthrow";
import type { ApiError } from "../../errors";
import { balanceObjects, type BalanceObject } from "../../ledger/balances";
import { type ListEnvelope, type PagedList, cursorBinding, pageByKey, pageStart, pagedList } from "../../lists/list-page";
import { DEFAULT_LIMIT } from "../../lists/list-params";
import type { ModuleDeps, RequestContext } from "../../engine/context";
import { type ListBalancesParams, listBalancesSchema } from "./balance-schemas";

/** `GET /v1/balances`: every asset of the registry, with per-chain amounts, ordered by code. */
export class BalancesService {
  constructor(private readonly deps: Pick<ModuleDeps, "assets" | "clock" | "cursors" | "parse" | "storage">) {}

  list(ctx: RequestContext, params: ListBalancesParams = {}): PagedList<BalanceObject> {
    return pagedList(params, (p) => this.page(ctx, p));
  }

  private async page(ctx: RequestContext, query: ListBalancesParams): Promise<Result<ListEnvelope<BalanceObject>, ApiError>> {
    const parsed = listBalancesSchema.parse(query, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const binding = cursorBinding(ctx.accountId, "balances", []);
    const start = pageStart(this.deps.cursors, parsed.value, binding);
    if (start.isErr()) return err(start.error);
    const rows = await this.deps.storage.read((tx) => tx.ledger.listBalances(ctx.accountId));
    // in the order of asset codes, from the cursor's code in the direction asked, nearest first
    const all = balanceObjects(this.deps.assets, rows, this.deps.clock.now());
    return ok(pageByKey(all, (b) => b.asset, parsed.value.limit ?? DEFAULT_LIMIT, start.value, this.deps.cursors, binding));
  }
}
