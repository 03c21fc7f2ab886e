import createClient from "openapi-fetch";
import type { components, paths } from "./.generated/api";

/**
 * A whole scenario through a client generated from the OpenAPI document (openapi-typescript
 * types, openapi-fetch calls). `test/adapters/http/openapi-contract.test.ts` compiles it under `tsc --strict`
 * and runs it: no casts anywhere, and the `@ts-expect-error` lines prove that bodies are typed
 * objects, not `{}` (each fails to compile if its line type-checks).
 */
type Payout = components["schemas"]["Payout"];
type ApiError = components["schemas"]["Error"];

export async function scenario(fetchImpl: (request: Request) => Promise<Response>, apiKey: string): Promise<string[]> {
  const client = createClient<paths>({
    baseUrl: "http://payrail.test",
    fetch: fetchImpl,
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  const log: string[] = [];
  const fail = (what: string, error: ApiError | undefined): never => {
    throw new Error(`${what}: ${error ? `${error.error.code} ${error.error.message}` : "no body"}`);
  };

  const funded = await client.POST("/v1/test_helpers/balances/fund", { body: { asset: "USDC", chain: "base", amount: "1000" } });
  if (!funded.data) return fail("fund", funded.error);
  const available: string = funded.data.available;
  log.push(`funded ${available} ${funded.data.asset}`);

  const recipient = await client.POST("/v1/recipients", {
    body: { name: "Ada Lovelace", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } },
  });
  if (!recipient.data) return fail("recipient", recipient.error);
  const screening: "not_screened" | "pending" | "cleared" | "flagged" = recipient.data.screening_status;
  log.push(`recipient ${recipient.data.object} ${screening}`);

  const quote = await client.POST("/v1/quotes", { body: { from: { asset: "USDC", amount: "100" }, to: { asset: "EURC" }, ttl: 60 } });
  if (!quote.data) return fail("quote", quote.error);
  log.push(`quote ${quote.data.object} ${quote.data.venues.length > 0 ? "with venues" : "without venues"}`);

  const created = await client.POST("/v1/payouts", {
    params: { header: { "Idempotency-Key": "typed-client-payout-1" } },
    body: { amount: "25.5", asset: "USDC", recipient: recipient.data.id, reference: "invoice-1" },
  });
  if (!created.data) return fail("payout", created.error);
  const payout: Payout = created.data;
  // @ts-expect-error amounts are decimal strings, never numbers
  const asNumber: number = payout.amount;
  void asNumber;
  // @ts-expect-error status is an enum of the payout's states
  const unknownStatus: Payout["status"] = "exploded";
  void unknownStatus;
  const legChains: string[] = payout.legs.map((leg) => leg.chain);
  log.push(`payout ${payout.amount} ${payout.asset} in ${legChains.length} leg(s), fee ${payout.fee}`);

  const replay = await client.POST("/v1/payouts", {
    params: { header: { "Idempotency-Key": "typed-client-payout-1" } },
    body: { amount: "25.5", asset: "USDC", recipient: recipient.data.id, reference: "invoice-1" },
  });
  log.push(`replayed ${replay.response.headers.get("Idempotent-Replayed") ?? "no"} ${replay.data?.id === payout.id ? "same payout" : "other"}`);

  const list = await client.GET("/v1/payouts", { params: { query: { limit: 10, status: "executing", search: "invoice" } } });
  if (!list.data) return fail("list", list.error);
  const hasMore: boolean = list.data.has_more;
  log.push(`listed ${list.data.data.length} payout(s), more: ${hasMore}, cursor: ${list.data.next_cursor ?? "none"}`);

  const expanded = await client.GET("/v1/payouts/{id}", { params: { path: { id: payout.id }, query: { "expand[]": ["recipient"] } } });
  if (!expanded.data) return fail("retrieve", expanded.error);
  const to = expanded.data.recipient;
  log.push(`retrieved with recipient ${typeof to === "string" ? to : to.name}`);

  const endpoint = await client.POST("/v1/webhook_endpoints", {
    body: { url: "https://hooks.example.com/payrail", enabled_events: ["payout.settled", "payout.failed"] },
  });
  if (!endpoint.data) return fail("webhook endpoint", endpoint.error);
  log.push(`endpoint ${endpoint.data.status} with ${endpoint.data.secret?.startsWith("whsec_") ? "a secret" : "no secret"}`);

  const balances = await client.GET("/v1/balances");
  if (!balances.data) return fail("balances", balances.error);
  const usdc = balances.data.data.find((b) => b.asset === "USDC");
  log.push(`USDC reserved ${usdc?.reserved ?? "?"}`);

  const missing = await client.GET("/v1/payouts/{id}", { params: { path: { id: "po_missing" } } });
  const code: ApiError["error"]["code"] | undefined = missing.error?.error.code;
  log.push(`missing ${missing.response.status} ${code ?? "no error"} ${missing.response.headers.get("Request-Id")?.slice(0, 4) ?? ""}`);

  const approve = await client.POST("/v1/payouts/{id}/approve", { params: { path: { id: payout.id } } });
  log.push(`approve ${approve.response.status} ${approve.error?.error.code ?? "approved"}`);
  return log;
}
