export type * from "./storage";
export type * from "./adapter-state";
export type * from "./chain";
export type * from "./venue";
export type * from "./delivery";
export type * from "./screening";
export type * from "./blobs";
export { isManualClock, type Clock, type ManualClockControl } from "./clock";
export { isChainSimulation } from "./chain";
export { isBlobKey, assertBlobKey } from "./blobs";
export {
  assertStateKey,
  assertStateNamespace,
  compareStateKeys,
  decodeCounter,
  decodeSortableUint,
  encodeSortableUint,
  inStateRange,
  isStateKey,
  MAX_STATE_KEY_LENGTH,
  prefixEnd,
  SORTABLE_UINT_DIGITS,
  stateRangeBounds,
} from "./state-keys";
export type * from "./observer";
export { NO_OBSERVER, OBSERVER_MEMBERS, combineObservers } from "./observer";
export type * from "./tracer";
export { NO_TRACER, inSpan } from "./tracer";
