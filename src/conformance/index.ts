export {
  storageConformance,
  type StorageConformanceOptions,
  type StorageHarness,
  type StorageInspector,
} from "./storage-conformance";
