import { ManualClock } from "../../adapters/clock";
import { SimulatedVenues } from "../../adapters/venues/simulated";
import { venueConformance } from "../../src/conformance";
import { ScriptedVenue } from "../support/scripted-venue";

venueConformance({
  name: "simulated venues",
  factory: async () => {
    const clock = new ManualClock();
    return {
      adapter: new SimulatedVenues({ clock, seed: 7 }),
      pairs: [
        ["ETH", "USDC"],
        ["BTC", "SOL"],
        ["USDC", "EURC"],
      ],
      now: () => clock.now(),
    };
  },
});

venueConformance({
  name: "scripted venue (tests)",
  factory: async () => {
    const venue = new ScriptedVenue();
    venue.setPool("ETH", 10n ** 22n, "USDC", 3n * 10n ** 13n);
    return { adapter: venue, pairs: [["ETH", "USDC"]], now: () => 0 };
  },
});
