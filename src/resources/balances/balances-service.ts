import { err, ok, type Result } from "neverthrow";
import type { ApiError } from "../../errors";
import { balanceObjects, type BalanceObject } from "../../ledger/balances";
import { type ListEnvelope, type PagedList, pagedList } from "../../lists/list-page";
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
    const binding = { accountId: ctx.accountId, list: "balances", filters: "[]" };
    let after: string | null = null;
    if (parsed.value.starting_after !== undefined) {
      const position = this.deps.cursors.decode(parsed.value.starting_after, binding);
      if (position.isErr()) return err(position.error);
      after = position.value.id;
    }
    const rows = await this.deps.storage.read((tx) => tx.ledger.listBalances(ctx.accountId));
    const all = balanceObjects(this.deps.assets, rows, this.deps.clock.now()).filter((b) => after === null || b.asset > after);
    const limit = parsed.value.limit ?? DEFAULT_LIMIT;
    const data = all.slice(0, limit);
    const hasMore = all.length > limit;
    return ok({
      object: "list",
      data,
      has_more: hasMore,
      next_cursor: hasMore ? this.deps.cursors.encode({ created: 0, id: data[data.length - 1]!.asset }, binding) : null,
    });
  }
}
