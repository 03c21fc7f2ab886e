export { storageConformance, type StorageConformanceOptions, type StorageHarness, type StorageInspector } from "./storage";
export { venueConformance, type VenueConformanceOptions, type VenueHarness } from "./venue-conformance";
export { chainConformance, type ChainConformanceOptions, type ChainHarness } from "./chain-conformance";
export { blobConformance, type BlobConformanceOptions, type BlobHarness } from "./blob-conformance";
