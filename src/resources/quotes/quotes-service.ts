import { err, ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../../errors";
import { parseAmount } from "../../money/amount";
import { toPricingRecord } from "../../quoting/pricing-record";
import type { ModuleDeps, RequestContext } from "../../engine/context";
import { distinctAssets, priceNow } from "../conversion";
import { type CreateQuoteInput, QUOTE_TTL, createQuoteSchema } from "./quote-schemas";
import { QUOTES, type QuoteDoc, type QuoteObject, presentQuote } from "./quote-doc";
import { newMetadata } from "../../metadata/metadata";

/** `POST /v1/quotes`, `GET /v1/quotes/{id}`: short-lived price commitments (research §3, §4). */
export class QuotesService {
  constructor(private readonly deps: Pick<ModuleDeps, "assets" | "clock" | "config" | "ids" | "parse" | "storage" | "venues">) {}

  async create(ctx: RequestContext, input: CreateQuoteInput): Promise<Result<QuoteObject, ApiError>> {
    const parsed = createQuoteSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { from, to } = parsed.value;
    const distinct = distinctAssets(from.asset, to.asset);
    if (distinct.isErr()) return err(distinct.error);
    const amount = parseAmount(from.amount, from.asset, "from.amount");
    if (amount.isErr()) return err(amount.error);
    // Venues are asked outside the transaction (docs/architecture.md: adapters do I/O, outside a command's transaction).
    const priced = await priceNow(this.deps, ctx.livemode, from.asset, to.asset, amount.value);
    if (priced.isErr()) return err(priced.error);
    const pricing = priced.value;
    const ttl = parsed.value.ttl ?? QUOTE_TTL.default;
    return this.deps.storage.command(ctx, async (uow) => {
      const expiresAt = uow.now + ttl * 1000;
      const doc: QuoteDoc = {
        id: this.deps.ids.next("qt"),
        from: from.asset.code,
        to: to.asset.code,
        pricing: toPricingRecord(pricing, pricing.pricedAt),
        metadata: newMetadata(parsed.value.metadata),
        created: uow.now,
        expiresAt,
        swap: null,
      };
      await QUOTES.insert(uow.tx, ctx.accountId, uow.now, [doc]);
      return ok(presentQuote(this.deps.assets, doc));
    });
  }

  async retrieve(ctx: RequestContext, id: string): Promise<Result<QuoteObject, ApiError>> {
    const stored = await this.deps.storage.read((tx) => QUOTES.get(tx, ctx.accountId, id));
    return stored ? ok(presentQuote(this.deps.assets, stored.doc)) : fail("resource_missing", `No such quote: ${id}`, { param: "id" });
  }
}
