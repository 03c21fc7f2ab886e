import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ResourceRecord } from "../../src/ports/storage";
import { LIMIT_ORDERS } from "../../src/resources/limit-orders/limit-order-doc";
import { QUOTES } from "../../src/resources/quotes/quote-doc";
import { SWAPS } from "../../src/resources/swaps/swap-doc";
import { testWorld, type TestWorld } from "../support/engine";
import { ScriptedVenue } from "../support/scripted-venue";
import { closeSharedStorage, storageKinds } from "../support/storage";

const json = (res: Response): Promise<any> => res.json();

afterAll(closeSharedStorage);

/**
 * Documents written by the engine before shape 2 (the API object with an `internal` part, and
 * no `_v`) are read as the current shape: the API answers exactly what it answered then, and the
 * next write stores the current shape.
 */
for (const kind of storageKinds()) {
  describe(`stored documents of shape 1 on ${kind.name}`, () => {
    let w: TestWorld;
    let venue: ScriptedVenue;
    beforeEach(async () => {
      venue = new ScriptedVenue();
      venue.setPool("ETH", 10_000n * 10n ** 18n, "USDC", 30_000_000n * 10n ** 6n);
      w = await testWorld(kind, { venues: [venue] });
      await w.request("POST", "/v1/test_helpers/balances/fund", { body: { asset: "ETH", chain: "base", amount: "6000" } });
    });
    afterEach(() => w.close());

    /** Rewrites a stored document as shape 1 would have stored it. */
    async function rewrite(id: string, toV1: (data: any) => unknown): Promise<ResourceRecord> {
      return w.engine.storage.transaction(async (tx) => {
        const record = (await tx.resources.get(w.accountId, id, { lock: true }))!;
        const { _v, ...data } = record.data as Record<string, unknown>;
        expect(_v).toBe(2);
        const old = { ...record, data: toV1(data), version: record.version + 1 };
        expect(await tx.resources.update(old)).toBe(true);
        return old;
      });
    }

    it("quotes and swaps answer as they did, and are rewritten in the current shape", async () => {
      const quote = await json(await w.request("POST", "/v1/quotes", { body: { from: { asset: "ETH", amount: "2" }, to: { asset: "USDC" } } }));
      await rewrite(quote.id, (d) => ({ ...quote, internal: { pricing: d.pricing, expires_at_ms: d.expiresAt, swap: d.swap } }));
      expect(await json(await w.request("GET", `/v1/quotes/${quote.id}`))).toEqual(quote);

      const swap = await json(
        await w.request("POST", "/v1/swaps", { body: { quote: quote.id, destination_chain: "base" }, headers: { "idempotency-key": "s1" } }),
      );
      await rewrite(swap.id, (d) => ({
        ...swap,
        internal: { pricing: d.pricing, reservations: d.reservations, livemode: false, failure_reason: d.failureReason },
      }));
      expect(await json(await w.request("GET", `/v1/swaps/${swap.id}`))).toEqual(swap);
      // the quote read back in shape 1 was marked used in shape 2 by the swap
      const storedQuote = await w.engine.storage.transaction((tx) => tx.resources.get(w.accountId, quote.id));
      expect((storedQuote!.data as { _v: number; swap: string })._v).toBe(2);
      expect(QUOTES.read(storedQuote!).swap).toBe(swap.id);

      await w.engine.worker.runDue(); // the swap settles: written again, in shape 2
      const settled = await json(await w.request("GET", `/v1/swaps/${swap.id}`));
      expect(settled).toMatchObject({
        ...swap,
        status: "settled",
        settled: expect.any(String),
        executions: [expect.objectContaining({ venue: "scripted-pool", chain: null, tx_hash: null, from_amount: swap.from.amount })],
      });
      const stored = await w.engine.storage.transaction((tx) => tx.resources.get(w.accountId, swap.id));
      expect(stored!.data).toMatchObject({ _v: 2, status: "settled", destinationChain: "base" });
      expect(SWAPS.read(stored!).settledAt).toBe(Date.parse(settled.settled));
    });

    it("limit orders with fills answer as they did, to the last digit of every amount", async () => {
      const placed = await json(
        await w.request("POST", "/v1/limit_orders", {
          body: { from: { asset: "ETH", amount: "5000" }, to: { asset: "USDC" }, target_rate: "2900", expires_in: 3600 },
          headers: { "idempotency-key": "lo1" },
        }),
      );
      await w.request("POST", "/v1/test_helpers/clock/advance", { body: { seconds: 15 } });
      const order = await json(await w.request("GET", `/v1/limit_orders/${placed.id}`));
      expect(order.status).toBe("partially_filled");
      await rewrite(order.id, (d) => ({
        ...order,
        internal: {
          reservations: d.reservations,
          pending: d.pending && { id: d.pending.id, pricing: d.pending.pricing, decided_at: d.pending.decidedAt },
          livemode: false,
          expires_at_ms: d.expiresAt,
          amount: d.amount,
          filled_in: d.filledIn,
          filled_out: d.filledOut,
          reserved: d.reserved,
        },
      }));
      // shape 1 kept no executions: its fills show none (the amounts are all there)
      const asStored = { ...order, fills: order.fills.map((f: object) => ({ ...f, executions: [] })) };
      expect(await json(await w.request("GET", `/v1/limit_orders/${order.id}`))).toEqual(asStored);
      const record = await w.engine.storage.transaction((tx) => tx.resources.get(w.accountId, order.id));
      const upgraded = LIMIT_ORDERS.read(record!);
      expect(upgraded.fills.reduce((s, f) => s + BigInt(f.amountIn), 0n)).toBe(BigInt(upgraded.filledIn));
      expect(upgraded.fills.reduce((s, f) => s + BigInt(f.netOut), 0n)).toBe(BigInt(upgraded.filledOut));
      const canceled = await json(await w.request("DELETE", `/v1/limit_orders/${order.id}`));
      expect(canceled).toMatchObject({ ...asStored, status: "canceled", cancellation_reason: "requested", reserved_amount: "0" });
    });

    it("webhook endpoints answer as they did, secrets and all, and keep their state", async () => {
      const created = await json(
        await w.request("POST", "/v1/webhook_endpoints", { body: { url: "https://example.com/hooks", enabled_events: ["payout.settled"] } }),
      );
      const { secret: _, ...endpoint } = created;
      await w.request("POST", `/v1/webhook_endpoints/${endpoint.id}`, { body: { status: "disabled" } });
      const disabled = { ...endpoint, status: "disabled", disabled_reason: "manual" };
      await rewrite(endpoint.id, (d) => ({
        ...disabled,
        secrets: d.secrets.map((s: any) => ({ secret: s.secret, expires_at: s.expiresAt })),
      }));
      const read = await w.request("GET", `/v1/webhook_endpoints/${endpoint.id}`);
      expect(await read.text()).toBe(JSON.stringify(disabled)); // the documented field order too
      const enabled = await json(await w.request("POST", `/v1/webhook_endpoints/${endpoint.id}`, { body: { status: "enabled" } }));
      expect(enabled).toEqual({ ...endpoint, status: "enabled", disabled_reason: null });
      const record = await w.engine.storage.transaction((tx) => tx.resources.get(w.accountId, endpoint.id));
      expect(record!.data).toMatchObject({ _v: 2, state: "enabled", secrets: [{ secret: created.secret, expiresAt: null }] });
    });

    it("refuses a document written by a newer engine instead of misreading it", async () => {
      const quote = await json(await w.request("POST", "/v1/quotes", { body: { from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" } } }));
      await rewrite(quote.id, (d) => ({ ...d, _v: 3 }));
      const res = await w.request("GET", `/v1/quotes/${quote.id}`);
      expect(res.status).toBe(500);
    });
  });
}
