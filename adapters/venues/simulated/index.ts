export {
  SimulatedVenues,
  DEFAULT_SIMULATED_ASSETS,
  DEFAULT_SIMULATED_VENUES,
  type SimulatedAsset,
  type SimulatedBookSpec,
  type SimulatedPoolSpec,
  type SimulatedVenueSpec,
  type SimulatedVenuesOptions,
} from "./simulated-venues";
