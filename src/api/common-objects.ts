import { ERROR_CATALOGUE, type ErrorCode } from "../errors";
import { o, type NamedSchema, type ResponseSchema } from "./response-schema";

/**
 * What the API's objects are made of (docs/decisions.md §1–§5): references to the registry's asset
 * codes and chain names and to the engine's event types and scopes (components the OpenAPI
 * document lists from the running engine), amounts, the list envelope and the error object.
 * Each resource's objects are in its folder (`*-objects.ts`); the presenters' return types are
 * derived from them (`RecipientObject = Out<typeof Recipient>`), and the OpenAPI document's
 * components are they, so what the document promises is what the code answers.
 */

/** Asset codes and chain names: the document's `AssetCode` and `ChainName` list the registry's. */
export const ASSET_CODE = "AssetCode";
export const CHAIN_NAME = "ChainName";
/** Event types and key scopes: the document's `EventType` and `Scope` list the engine's modules'. */
export const EVENT_TYPE = "EventType";
export const SCOPE = "Scope";

const ref = <T extends string>(name: string, description: string): ResponseSchema<T> => ({
  json: { $ref: `#/components/schemas/${name}`, description },
});
export const asset = (description = "Asset code of the registry (docs/decisions.md §1)") => ref<string>(ASSET_CODE, description);
export const chain = (description = "Chain name of the registry (docs/decisions.md §1)") => ref<string>(CHAIN_NAME, description);
export const eventType = (description = "An event type of the catalogue") => ref<string>(EVENT_TYPE, description);
export const scope = (description = "A scope: `<resource>:read` or `<resource>:write`") => ref<string>(SCOPE, description);

export const FINALITIES = ["pending", "included", "final", "reverted"] as const;
export const money = (description: string) => o.decimal({ description });
export const txHash = o.string({
  description: "The transaction's hash on its chain",
  example: "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060",
});
/** One side of a conversion (quotes, swaps, limit orders). */
export const conversionSide = o.object({ asset: asset(), amount: o.decimal() });
/** One leg of a conversion as a venue executed it (a swap's `executions`, a fill's). */
export const ConversionExecution = o.named(
  "ConversionExecution",
  o.object(
    {
      venue: o.string({ description: "The venue, as the quote's `venues[].name`", example: "uniswap-v2-base:ETH-USDC" }),
      chain: o.nullable(chain("The chain its transaction is on; null for a venue off chain (the simulated venues)")),
      tx_hash: o.nullable(txHash),
      block: o.nullable(o.integer({ description: "The block that carried the transaction", minimum: 0 })),
      from_amount: o.decimal({ description: "What the leg sold, in the conversion's `from.asset`" }),
      to_amount: o.decimal({ description: "What the leg delivered, in `to.asset`, before the conversion's network and platform fees" }),
      path: o.array(asset(), { description: "The assets it traded through, in order: the pair, or a route's hops" }),
    },
    { description: "One leg of a conversion as its venue executed it, traceable on chain by `tx_hash`" },
  ),
);

const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
const ERROR_TYPES = [...new Set(Object.values(ERROR_CATALOGUE).map((e) => e.type))];

export const ApiErrorObject = o.named(
  "Error",
  o.object(
    {
      error: o.object({
        type: o.enum(ERROR_TYPES),
        code: o.enum(ERROR_CODES),
        message: o.string({ example: "Missing required parameter: amount" }),
        param: o.optional(o.string({ description: "The parameter at fault, as a path (`legs[3].amount`)", example: "amount" })),
        errors: o.optional(
          o.array(o.object({ row: o.integer({ minimum: 0 }), param: o.string(), code: o.enum(ERROR_CODES), message: o.string() }), {
            description: "Every bad row of a batch (batch_invalid)",
          }),
        ),
        request_id: o.nullable(o.string({ pattern: "^req_[0-9a-z]+$", example: "req_01jd5x3kq8b7m2c9v4n6p0r1s2" })),
      }),
    },
    { description: "An error of the catalogue (docs/decisions.md §2)" },
  ),
);

/** The list envelope of docs/decisions.md §5 around `item`. */
export function listOf<T>(name: string, item: NamedSchema<T>) {
  return o.named(
    `${name}List`,
    o.object(
      {
        object: o.literal("list"),
        data: o.array(item),
        has_more: o.boolean(),
        next_cursor: o.nullable(
          o.string({ pattern: "^cur_[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$", description: "Pass as `starting_after` for the next page; null on the last" }),
        ),
        previous_cursor: o.nullable(
          o.string({ pattern: "^cur_[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$", description: "Pass as `ending_before` for the page before; null on the first" }),
        ),
      },
      { description: `A page of ${name} objects, newest first` },
    ),
  );
}
