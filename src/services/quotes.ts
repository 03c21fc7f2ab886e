import { err, ok, type Result } from "neverthrow";
import { ApiError, fail } from "../errors";
import type { AssetDefinition } from "../money/assets";
import { formatAmount, parseAmount } from "../money/amount";
import { priceImpact, type Pricing } from "../quoting/order-pricer";
import { toPricingRecord, type PricingRecord } from "../quoting/pricing-record";
import { formatFraction, formatRate, venueWeights, type VenueWeight } from "../quoting/quote-metrics";
import { s, type Infer } from "../validation/schema";
import { isoTime } from "../validation/timestamp";
import { runCommand } from "./command";
import type { EngineDeps, RequestContext } from "./context";
import { distinctAssets, priceNow } from "./conversion";
import { ResourceStore } from "./resource-store";

/** DECISIONS.md §4: a quote lives 5 to 600 seconds, 30 by default. */
export const QUOTE_TTL = { min: 5, max: 600, default: 30 } as const;

export const createQuoteSchema = s.object({
  from: s.object({ asset: s.asset(), amount: s.amount().describe("Amount of `from.asset` to convert") }),
  to: s.object({ asset: s.asset() }),
  ttl: s
    .integer({ min: QUOTE_TTL.min, max: QUOTE_TTL.max })
    .optional()
    .describe("Seconds the quote is usable, 5 to 600, default 30"),
});

export type CreateQuoteInput = Infer<typeof createQuoteSchema>;

/** The quote object of the seed, plus `approximate` (research §11.6). */
export interface QuoteObject {
  id: string;
  object: "quote";
  from: { asset: string; amount: string };
  to: { asset: string; amount: string };
  /** Net output per input after all fees and impact, 18 decimals rounded down. */
  rate: string;
  /** 1 − gross / (amount · r0), r0 the best zero-size rate net of venue fees. */
  price_impact: string;
  /** In `to.asset`: the fixed costs of the venues used. */
  network_fee: string;
  /** In `to.asset`: zero on stablecoin pairs. */
  platform_fee: string;
  venues: VenueWeight[];
  /** True when a heuristic chose the venues (more than 12 of them with a fixed cost). */
  approximate: boolean;
  created: string;
  expires_at: string;
}

/** The stored document: the object, plus what a swap executes and who used the quote. */
export interface QuoteDoc extends QuoteObject {
  internal: {
    pricing: PricingRecord;
    expires_at_ms: number;
    /** The swap that consumed the quote (a quote backs one swap only). */
    swap: string | null;
  };
}

export const QUOTES = new ResourceStore<QuoteDoc>({
  kind: "quote",
  status: (q) => (q.internal.swap ? "used" : "open"),
  reference: () => null,
});

/** The quote's figures from a pricing, in display units. */
export function quoteFigures(pricing: Pricing, from: AssetDefinition, to: AssetDefinition) {
  return {
    from: { asset: from.code, amount: formatAmount(pricing.amountIn, from) },
    to: { asset: to.code, amount: formatAmount(pricing.netOut, to) },
    rate: formatRate(pricing.netOut, pricing.amountIn, from, to),
    price_impact: formatFraction(priceImpact(pricing)),
    network_fee: formatAmount(pricing.networkFee, to),
    platform_fee: formatAmount(pricing.platformFee, to),
    venues: venueWeights(pricing.legs),
    approximate: pricing.approximate,
  };
}

/** The API object, fields in their documented order (jsonb storage does not keep key order). */
export function presentQuote(q: QuoteDoc): QuoteObject {
  return {
    id: q.id,
    object: "quote",
    from: { asset: q.from.asset, amount: q.from.amount },
    to: { asset: q.to.asset, amount: q.to.amount },
    rate: q.rate,
    price_impact: q.price_impact,
    network_fee: q.network_fee,
    platform_fee: q.platform_fee,
    venues: q.venues.map((v) => ({ name: v.name, weight: v.weight })),
    approximate: q.approximate,
    created: q.created,
    expires_at: q.expires_at,
  };
}

/** `POST /v1/quotes`, `GET /v1/quotes/{id}`: short-lived price commitments (research §3, §4). */
export class QuotesService {
  constructor(private readonly deps: EngineDeps) {}

  async create(ctx: RequestContext, input: unknown): Promise<Result<QuoteObject, ApiError>> {
    const parsed = createQuoteSchema.parse(input, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    const { from, to } = parsed.value;
    const distinct = distinctAssets(from.asset, to.asset);
    if (distinct.isErr()) return err(distinct.error);
    const amount = parseAmount(from.amount, from.asset, "from.amount");
    if (amount.isErr()) return err(amount.error);
    // Venues are asked outside the transaction (DESIGN.md: no I/O inside one).
    const priced = await priceNow(this.deps, from.asset, to.asset, amount.value);
    if (priced.isErr()) return err(priced.error);
    const pricing = priced.value;
    const ttl = parsed.value.ttl ?? QUOTE_TTL.default;
    return runCommand(this.deps, ctx, async (uow) => {
      const expiresAt = uow.now + ttl * 1000;
      const doc: QuoteDoc = {
        id: this.deps.ids.next("qt"),
        object: "quote",
        ...quoteFigures(pricing, from.asset, to.asset),
        created: isoTime(uow.now),
        expires_at: isoTime(expiresAt),
        internal: { pricing: toPricingRecord(pricing, pricing.pricedAt), expires_at_ms: expiresAt, swap: null },
      };
      await QUOTES.insert(uow.tx, ctx.accountId, uow.now, [doc]);
      return ok(presentQuote(doc));
    });
  }

  async get(ctx: RequestContext, id: string): Promise<Result<QuoteObject, ApiError>> {
    const stored = await this.deps.storage.transaction((tx) => QUOTES.get(tx, ctx.accountId, id));
    return stored ? ok(presentQuote(stored.doc)) : fail("resource_missing", `No such quote: ${id}`, { param: "id" });
  }
}
