export { SystemClock } from "./system-clock";
export { ManualClock } from "./manual-clock";
