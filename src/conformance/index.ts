export {
  storageConformance,
  type StorageConformanceOptions,
  type StorageHarness,
  type StorageInspector,
} from "./storage-conformance";
export { venueConformance, type VenueConformanceOptions, type VenueHarness } from "./venue-conformance";
