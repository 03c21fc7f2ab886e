import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_ASSETS, parseAmount } from "../../../src/money";
import { testWorld, type TestWorld } from "../../support/engine";
import { expectLedgerConsistent } from "../../support/ledger-checks";
import { ScriptedVenue } from "../../support/scripted-venue";
import { closeSharedStorage, storageKinds } from "../../support/storage";
import type { LimitOrderObject } from "../../../src/resources/limit-orders/limit-order-doc";

/**
 * Research §9, properties 13 to 18, through the engine: random orders and random sequences of
 * price moves, clock advances (which run the matching and expiry work as it falls due), leaps
 * of time after which late work runs at once, and cancels. After every
 * step, read back through the storage inspector: no fill below target after all fees and
 * rounding, all-or-nothing fills at most once and whole, nothing fills after expiry, the
 * reservations never go negative, hold exactly what open orders have left, and are released
 * exactly once; the fills' fees are what the books hold; the ledger stays balanced.
 */

const ETH = DEFAULT_ASSETS.find((a) => a.code === "ETH")!;
const USDC = DEFAULT_ASSETS.find((a) => a.code === "USDC")!;
const units = (text: string, asset = ETH) => parseAmount(text, asset, "x", { allowZero: true })._unsafeUnwrap();
const FUNDED = 1_000n * 10n ** 18n;

const orderArb = fc.record({
  amount: fc.integer({ min: 1, max: 450 }).map(String),
  target: fc.integer({ min: 2_850, max: 3_350 }).map(String),
  partial: fc.boolean(),
  slippage: fc.option(fc.constantFrom("0.001", "0.01", "0.05"), { nil: undefined }),
  expiresIn: fc.integer({ min: 60, max: 900 }),
});

const actionArb = fc.oneof(
  fc.record({ kind: fc.constant("price" as const), price: fc.integer({ min: 2_800, max: 3_500 }) }),
  fc.record({ kind: fc.constant("advance" as const), seconds: fc.integer({ min: 1, max: 45 }) }),
  // the workers were away: time leaps, then everything due runs at once (stale steps first)
  fc.record({ kind: fc.constant("jump" as const), seconds: fc.integer({ min: 30, max: 900 }) }),
  fc.record({ kind: fc.constant("cancel" as const), index: fc.nat() }),
);

const scenarioArb = fc.record({
  orders: fc.array(orderArb, { minLength: 1, maxLength: 3 }),
  actions: fc.array(actionArb, { maxLength: 14 }),
});

function setPrice(venue: ScriptedVenue, price: number) {
  venue.setPool("ETH", 10_000n * 10n ** 18n, "USDC", 10_000n * BigInt(price) * 10n ** 6n);
}

async function check(w: TestWorld, placed: string[]): Promise<void> {
  const orders: LimitOrderObject[] = [];
  for (const id of placed) orders.push((await w.engine.limitOrders.retrieve(w.ctx, id))._unsafeUnwrap());
  let filledTotal = 0n;
  let reservedOpen = 0n;
  const reservations = await w.harness.inspect.reservations(w.accountId);
  const entries = await w.harness.inspect.entries(w.accountId);
  for (const o of orders) {
    const amount = units(o.from.amount);
    let filled = 0n;
    const target = o.target_rate.split(".");
    const tNum = BigInt(target.join(""));
    const tDen = 10n ** BigInt(target[1]?.length ?? 0);
    for (const f of o.fills) {
      const a = units(f.from_amount);
      const out = units(f.to_amount, USDC);
      // never worse than target, in base units: out/10^6 ÷ a/10^18 ≥ tNum/tDen
      expect(out * 10n ** 18n * tDen >= a * 10n ** 6n * tNum, `fill ${f.id} below target`).toBe(true);
      expect(Date.parse(f.created) <= Date.parse(o.expires_at), `fill ${f.id} after expiry`).toBe(true);
      if (o.max_slippage !== null) expect(Number(f.price_impact)).toBeLessThanOrEqual(Number(o.max_slippage));
      filled += a;
    }
    expect(filled <= amount).toBe(true);
    expect(units(o.filled.from_amount)).toBe(filled);
    expect(o.status === "filled").toBe(filled === amount);
    if (!o.partial_fills) {
      expect(o.fills.length).toBeLessThanOrEqual(1);
      if (o.fills.length === 1) expect(filled).toBe(amount);
    }
    const open = o.status === "working" || o.status === "partially_filled";
    expect(units(o.reserved_amount)).toBe(open ? amount - filled : 0n);
    const own = reservations.filter((r) => r.resource === o.id);
    for (const r of own) expect(r.remaining >= 0n && r.remaining <= r.amount).toBe(true);
    expect(own.reduce((s, r) => s + r.remaining, 0n)).toBe(open ? amount - filled : 0n);
    if (!open) expect(own.every((r) => r.status === "resolved")).toBe(true);
    // released exactly once: what came back to `available` is exactly what was not filled
    const released = entries
      .filter((e) => e.resource === o.id && e.asset === "ETH" && e.book === "available" && e.amount > 0n)
      .reduce((s, e) => s + e.amount, 0n);
    expect(released).toBe(o.status === "canceled" ? amount - filled : 0n);
    filledTotal += filled;
    if (open) reservedOpen += amount - filled;
  }
  const eth = (await w.engine.balances.list(w.ctx))._unsafeUnwrap().data.find((b) => b.asset === "ETH")!;
  expect(units(eth.reserved)).toBe(reservedOpen);
  expect(units(eth.available) + units(eth.reserved)).toBe(FUNDED - filledTotal);
  // the output side: what the customer got, the fees, and what the venues delivered, per book
  const fills = orders.flatMap((o) => o.fills);
  const sum = (f: (x: (typeof fills)[number]) => bigint) => fills.reduce((s, x) => s + f(x), 0n);
  const usdcBook = async (book: string, accountId = w.accountId) =>
    (await w.harness.inspect.balances(accountId)).filter((b) => b.asset === "USDC" && b.book === book).reduce((s, b) => s + b.amount, 0n);
  const gross = (x: (typeof fills)[number]) => units(x.to_amount, USDC) + units(x.network_fee, USDC) + units(x.platform_fee, USDC);
  for (const f of fills) expect(units(f.platform_fee, USDC)).toBe((gross(f) * 20n + 9_999n) / 10_000n);
  expect(await usdcBook("available")).toBe(sum((x) => units(x.to_amount, USDC)));
  // platform fees are the house's, never the customer's books
  expect(await usdcBook("available", w.engine.accounts.house(false))).toBe(sum((x) => units(x.platform_fee, USDC)));
  expect(await usdcBook("counter:network_fees")).toBe(sum((x) => units(x.network_fee, USDC)));
  expect(await usdcBook("counter:venues")).toBe(-sum(gross));
  await expectLedgerConsistent(w.harness.inspect, w.accountId, w.engine.accounts.house(false));
}

afterAll(closeSharedStorage);

for (const kind of storageKinds()) {
  describe(`limit-order invariants over ${kind.name}`, () => {
    it("hold after every price move, clock advance and cancel", async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArb, async ({ orders, actions }) => {
          const venue = new ScriptedVenue();
          setPrice(venue, 3_000);
          const w = await testWorld(kind, { venues: [venue] });
          try {
            await w.engine.testHelpers.fund(w.ctx, { asset: "ETH", chain: "base", amount: "600" });
            await w.engine.testHelpers.fund(w.ctx, { asset: "ETH", chain: "arbitrum", amount: "400" });
            const placed: string[] = [];
            for (const o of orders) {
              const created = await w.engine.limitOrders.create(w.ctx, {
                from: { asset: "ETH", amount: o.amount },
                to: { asset: "USDC" },
                target_rate: o.target,
                partial_fills: o.partial,
                expires_in: o.expiresIn,
                ...(o.slippage ? { max_slippage: o.slippage } : {}),
              });
              if (created.isOk()) placed.push(created.value.id);
              else expect(created.error.code).toBe("insufficient_funds");
            }
            await check(w, placed);
            for (const action of actions) {
              if (action.kind === "price") setPrice(venue, action.price);
              else if (action.kind === "advance") (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: action.seconds }))._unsafeUnwrap();
              else if (action.kind === "jump") {
                w.clock.advance(action.seconds * 1000);
                await w.engine.worker.runDue();
              } else if (placed.length > 0) {
                const r = await w.engine.limitOrders.cancel(w.ctx, placed[action.index % placed.length]!);
                if (r.isErr()) expect(r.error.code).toBe("limit_order_not_cancelable");
              }
              await check(w, placed);
            }
            // past every expiry: everything is terminal and released
            (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 1_000 }))._unsafeUnwrap();
            await check(w, placed);
            const eth = (await w.engine.balances.list(w.ctx))._unsafeUnwrap().data.find((b) => b.asset === "ETH")!;
            expect(eth.reserved).toBe("0");
          } finally {
            await w.close();
          }
        }),
        { numRuns: kind.name === "memory" ? 40 : 6 },
      );
    });
  });
}
