import { err, ok, type Result } from "neverthrow";
import type { ModuleDeps, RequestContext } from "../../engine/context";
import { fail, type ApiError } from "../../errors";
import { presentLedgerEntries, type LedgerEntryObject } from "../../ledger/ledger-entries";
import { listPage, pagedList, type ListEnvelope, type PagedList } from "../../lists/list-page";
import { listParamsShape } from "../../lists/list-params";
import { s, type Input } from "../../validation/schema";

export const listLedgerEntriesSchema = s.object({ ...listParamsShape });

export type ListLedgerEntriesParams = Input<typeof listLedgerEntriesSchema>;

/**
 * `GET /v1/ledger_entries[/{id}]`: the account's own books (available, reserved, pending),
 * newest first, with the list contract; what a report of type `ledger_entries` can be checked
 * against, row for row.
 */
export class LedgerEntriesService {
  constructor(private readonly deps: Pick<ModuleDeps, "assets" | "cursors" | "parse" | "storage">) {}

  async retrieve(ctx: RequestContext, id: string): Promise<Result<LedgerEntryObject, ApiError>> {
    const found = await this.deps.storage.read((tx) => tx.ledger.listEntries(ctx.accountId, { ids: [id] }));
    const [entry] = presentLedgerEntries(this.deps.assets, found);
    return entry ? ok(entry) : fail("resource_missing", `No such ledger entry: ${id}`, { param: "id" });
  }

  /** A page of entries, newest first (also an async iterator over all of them). */
  list(ctx: RequestContext, params: ListLedgerEntriesParams = {}): PagedList<LedgerEntryObject> {
    return pagedList(params, (p) => this.page(ctx, p));
  }

  private async page(ctx: RequestContext, input: ListLedgerEntriesParams): Promise<Result<ListEnvelope<LedgerEntryObject>, ApiError>> {
    const parsed = listLedgerEntriesSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    return listPage({
      codec: this.deps.cursors,
      accountId: ctx.accountId,
      list: "ledger_entries",
      params: parsed.value,
      fetch: (q) =>
        this.deps.storage.read((tx) =>
          tx.ledger.pageEntries({
            accountId: q.accountId,
            order: q.order ?? "desc",
            limit: q.limit,
            ...(q.createdGte !== undefined ? { createdGte: q.createdGte } : {}),
            ...(q.createdLt !== undefined ? { createdLt: q.createdLt } : {}),
            ...(q.after ? { after: q.after } : {}),
          }),
        ),
      position: (row) => ({ created: row.created, id: row.id }),
      present: (row) => presentLedgerEntries(this.deps.assets, [row])[0]!,
    });
  }
}
