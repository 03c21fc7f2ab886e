import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../adapters/clock";
import { SimulatedVenues } from "../../../adapters/venues/simulated";
import { testWorld, type TestWorld } from "../../support/engine";
import { ScriptedVenue } from "../../support/scripted-venue";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const json = (res: Response): Promise<any> => res.json();

afterAll(closeSharedStorage);

/**
 * Issue 20: live accounts get the real venues, test accounts the simulated ones (the separation
 * the chain directory has); a live account is never priced by a simulation.
 */
for (const kind of storageKinds().slice(0, 1)) {
  describe(`venues by account mode (${kind.name})`, () => {
    let w: TestWorld;
    afterEach(() => w.close());

    const liveKey = async () => {
      const live = await w.engine.accounts.create({ name: "Live", livemode: true });
      return (await w.engine.accounts.createApiKey(live.id))._unsafeUnwrap().key;
    };
    const quote = (key: string) => w.request("POST", "/v1/quotes", { body: { from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" } }, key });

    it("without a real venue, a live account's quote is refused with no_route, while test accounts keep the simulated venues", async () => {
      w = await testWorld(kind);
      const refused = await quote(await liveKey());
      expect(refused.status).toBe(402);
      const body = await json(refused);
      expect(body.error).toMatchObject({ code: "no_route", param: "to.asset" });
      expect(body.error.message).toMatch(/no live venue/i);
      const test = await json(await quote(w.apiKey));
      expect(test.venues.every((v: any) => v.name.startsWith("sim-"))).toBe(true);
    });

    it("a live account is priced only by the real venues, a test account only by the simulations", async () => {
      const clock = new ManualClock();
      const real = new ScriptedVenue("real-pool", false);
      real.setPool("ETH", 1_000n * 10n ** 18n, "USDC", 3_000_000n * 10n ** 6n);
      w = await testWorld(kind, { clock, venues: [new SimulatedVenues({ clock }), real] });
      const live = await json(await quote(await liveKey()));
      expect(live.venues.map((v: any) => v.name)).toEqual(["real-pool"]);
      const test = await json(await quote(w.apiKey));
      expect(test.venues.length).toBeGreaterThan(0);
      expect(test.venues.some((v: any) => v.name === "real-pool")).toBe(false);
    });
  });
}
