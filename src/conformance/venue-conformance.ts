import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { VenueAdapter, VenueSnapshot } from "../ports/venue";
import { checkSnapshot, venueCapacity, venueOut } from "../quoting/venue-curves";

export interface VenueHarness {
  /** A fresh adapter. */
  adapter: VenueAdapter;
  /** Pairs it trades, as [from, to] asset codes; at least one. */
  pairs: [string, string][];
  /** Milliseconds since the epoch as the adapter sees them (its clock), for `pricedAt`. */
  now: () => number;
  close?: () => Promise<void>;
}

export interface VenueConformanceOptions {
  name: string;
  factory: () => Promise<VenueHarness>;
}

/**
 * The venue conformance suite: every venue adapter must pass it. Register it from a vitest
 * file: `venueConformance({ name: "mine", factory })`. It checks what the core relies on:
 * snapshots of the documented shape, both directions of a pair offered, execution at the
 * snapshot's own exact formulas, refusal below `minAmountOut`, and idempotency by
 * `executionId`.
 */
export function venueConformance(options: VenueConformanceOptions): void {
  describe(`venue conformance: ${options.name}`, () => {
    let h: VenueHarness;
    beforeEach(async () => {
      h = await options.factory();
      expect(h.pairs.length).toBeGreaterThan(0);
    });
    afterEach(async () => {
      await h.close?.();
    });

    /** A leg of about a thousandth of the venue's depth (a pool: of its input reserve). */
    const smallLeg = (s: VenueSnapshot) => {
      const depth = venueCapacity(s) ?? (s.kind === "pool" ? s.reserveIn : s.kind === "route" ? s.hops[0]!.reserveIn : 1n);
      return depth / 1000n > 0n ? depth / 1000n : 1n;
    };

    it("answers snapshots of the documented shape, with unique venue names", async () => {
      for (const [from, to] of h.pairs) {
        const snapshots = await h.adapter.snapshot(from, to);
        expect(snapshots.length).toBeGreaterThan(0);
        for (const s of snapshots) checkSnapshot(h.adapter.name, s);
        const names = snapshots.map((s) => s.venue);
        expect(new Set(names).size).toBe(names.length);
      }
    });

    it("offers both directions of a pair at the same venues", async () => {
      for (const [from, to] of h.pairs) {
        const there = (await h.adapter.snapshot(from, to)).map((s) => s.venue).sort();
        const back = (await h.adapter.snapshot(to, from)).map((s) => s.venue).sort();
        expect(back).toEqual(there);
      }
    });

    it("executes legs at what the snapshot's exact formulas promise, or better", async () => {
      const [from, to] = h.pairs[0]!;
      const pricedAt = h.now();
      const snapshots = await h.adapter.snapshot(from, to);
      const legs = snapshots.map((s) => {
        const amountIn = smallLeg(s);
        return { venue: s.venue, amountIn, minAmountOut: venueOut(s, amountIn) };
      });
      const result = await h.adapter.execute({ executionId: "conformance-1", from, to, pricedAt, legs });
      expect(result.status).toBe("executed");
      if (result.status !== "executed") return;
      for (const leg of legs) {
        const done = result.legs.find((l) => l.venue === leg.venue);
        expect(done).toBeDefined();
        expect(done!.amountIn).toBe(leg.amountIn);
        expect(done!.amountOut >= leg.minAmountOut).toBe(true);
      }
    });

    it("refuses the whole execution when a leg would deliver less than its minimum", async () => {
      const [from, to] = h.pairs[0]!;
      const snapshots = await h.adapter.snapshot(from, to);
      const legs = snapshots.map((s, i) => {
        const amountIn = smallLeg(s);
        const out = venueOut(s, amountIn);
        return { venue: s.venue, amountIn, minAmountOut: i === 0 ? out * 2n + 1n : out };
      });
      const result = await h.adapter.execute({ executionId: "conformance-2", from, to, pricedAt: h.now(), legs });
      expect(result.status).toBe("rejected");
    });

    it("refuses a venue it does not offer, without throwing", async () => {
      const [from, to] = h.pairs[0]!;
      const result = await h.adapter.execute({
        executionId: "conformance-3",
        from,
        to,
        pricedAt: h.now(),
        legs: [{ venue: "no-such-venue-anywhere", amountIn: 1n, minAmountOut: 0n }],
      });
      expect(result.status).toBe("rejected");
    });

    it("is idempotent by executionId: a repeat returns the first result and executes nothing", async () => {
      const [from, to] = h.pairs[0]!;
      const [s] = await h.adapter.snapshot(from, to);
      const amountIn = smallLeg(s!);
      const request = { executionId: "conformance-4", from, to, pricedAt: h.now(), legs: [{ venue: s!.venue, amountIn, minAmountOut: 0n }] };
      const first = await h.adapter.execute(request);
      const again = await h.adapter.execute(request);
      expect(again).toEqual(first);
      // even a different request under the same id gets the first answer
      const other = await h.adapter.execute({ ...request, legs: [{ venue: s!.venue, amountIn: amountIn * 2n, minAmountOut: 0n }] });
      expect(other).toEqual(first);
      const refused = { ...request, executionId: "conformance-5", legs: [{ venue: s!.venue, amountIn, minAmountOut: 10n ** 60n }] };
      expect((await h.adapter.execute(refused)).status).toBe("rejected");
      expect((await h.adapter.execute({ ...refused, legs: [{ venue: s!.venue, amountIn, minAmountOut: 0n }] })).status).toBe("rejected");
    });
  });
}
