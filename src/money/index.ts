export { Decimal, decimal, formatDecimal, formatRoundedDown, isDecimalString } from "./decimal";
export { divFloor, divCeil, allocate } from "./rounding";
export { parseAmount, formatUnits, formatAmount } from "./amount";
export {
  AssetRegistry,
  DEFAULT_ASSETS,
  DEFAULT_CHAINS,
  type AssetDefinition,
  type ChainDefinition,
  type ChainFamily,
} from "./assets";
