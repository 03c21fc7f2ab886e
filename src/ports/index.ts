export type * from "./storage";
export type * from "./chain";
export type * from "./venue";
export type * from "./delivery";
export type * from "./screening";
export type * from "./blobs";
export { isManualClock, type Clock, type ManualClockControl } from "./clock";
export { isChainSimulation } from "./chain";
