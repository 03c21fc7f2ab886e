export { UniswapV2Venues, ExecutionPending, type UniswapV2VenuesOptions } from "./uniswap-v2-venues";
export { UNISWAP_V2_NAMESPACE, type ExecutionRecord, type PlannedLeg } from "./uniswap-state";
export { routesFor, pairKey, type Route } from "./uniswap-routes";
export { parseVenuesConfig, venuesFromConfig, type VenuesConfig, type UniswapV2ConfigEntry } from "./venues-config";
