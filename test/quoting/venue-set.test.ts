import { describe, expect, it } from "vitest";
import { AdapterError } from "../../src/errors";
import type { VenueAdapter, VenueSnapshot } from "../../src/ports/venue";
import { VenueSet } from "../../src/quoting/venue-set";

const pool = (venue: string, over: Partial<VenueSnapshot> = {}): VenueSnapshot =>
  ({ kind: "pool", venue, reserveIn: 1_000n, reserveOut: 2_000n, feePpm: 3_000n, networkCost: 0n, ...over }) as VenueSnapshot;

function adapter(name: string, snapshots: () => VenueSnapshot[]): VenueAdapter {
  return {
    name,
    snapshot: async () => snapshots(),
    execute: async () => ({ status: "rejected", reason: "not in this test" }),
  };
}

async function refusal(set: VenueSet): Promise<AdapterError> {
  const e = await set.snapshots("ETH", "USDC").then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(AdapterError);
  return e as AdapterError;
}

describe("the engine's venue set", () => {
  it("asks every adapter and sorts the venues by name", async () => {
    const set = new VenueSet([adapter("b", () => [pool("zeta")]), adapter("a", () => [pool("alpha"), pool("mid")])]);
    expect((await set.snapshots("ETH", "USDC")).map((s) => s.venue)).toEqual(["alpha", "mid", "zeta"]);
  });

  it("turns an adapter's throw into an AdapterError naming it", async () => {
    const e = await refusal(
      new VenueSet([
        adapter("flaky", () => {
          throw new Error("down");
        }),
      ]),
    );
    expect(e.adapter).toBe("flaky");
  });

  it.each([
    ["a venue offered twice", [pool("same"), pool("same")]],
    ["negative reserves", [pool("p", { reserveIn: -1n } as Partial<VenueSnapshot>)]],
    ["a fee of 100 %", [pool("p", { feePpm: 1_000_000n } as Partial<VenueSnapshot>)]],
    ["reserves beyond 10^60 (the solver's floats would overflow)", [pool("p", { reserveOut: 10n ** 400n } as Partial<VenueSnapshot>)]],
    [
      "book levels not best first",
      [
        {
          kind: "book",
          venue: "b",
          takerFeePpm: 0n,
          networkCost: 0n,
          levels: [
            { rateNum: 1n, rateDen: 2n, capacityIn: 5n },
            { rateNum: 1n, rateDen: 1n, capacityIn: 5n },
          ],
        } as VenueSnapshot,
      ],
    ],
    ["a number where a bigint belongs", [pool("p", { reserveIn: 1000 as unknown as bigint } as Partial<VenueSnapshot>)]],
  ])("refuses %s as an AdapterError", async (_, snapshots) => {
    const e = await refusal(new VenueSet([adapter("broken", () => snapshots as VenueSnapshot[])]));
    expect(e.adapter).toBe("broken");
  });
});
