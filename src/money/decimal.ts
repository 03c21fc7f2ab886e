import BigJs from "big.js";

/**
 * The project's private big.js constructor. Strict (a JavaScript number is refused, so money can
 * never enter as a float), 40 decimal places on division, toward-zero rounding by default, and
 * no exponent notation in toString. Global `Big` is never touched (research §7 pitfall 5).
 */
export const Decimal = BigJs();
Decimal.strict = true;
Decimal.DP = 40;
Decimal.RM = Decimal.roundDown;
Decimal.NE = -1_000_000;
Decimal.PE = 1_000_000;

export type Decimal = BigJs.Big;

const DECIMAL_PATTERN = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** True when `value` is a decimal string of docs/decisions.md §1: no sign, exponent or spaces. */
export function isDecimalString(value: unknown): value is string {
  return typeof value === "string" && DECIMAL_PATTERN.test(value);
}

/** Parses a §1 decimal string; the caller has checked the format with `isDecimalString`. */
export function decimal(value: string): Decimal {
  return new Decimal(value);
}

/**
 * The shortest exact decimal form (docs/decisions.md §1): "10.25", "10", "0.000001"; never trailing
 * zeros, an exponent or "-0".
 */
export function formatDecimal(value: Decimal): string {
  const text = value.toFixed();
  if (!text.includes(".")) return text === "-0" ? "0" : text;
  const trimmed = text.replace(/0+$/, "").replace(/\.$/, "");
  return trimmed === "-0" ? "0" : trimmed;
}

/**
 * Rounds toward zero at `dp` decimals (rates and impacts, docs/decisions.md §1) and formats in the
 * shortest form. For non-negative values that is rounding down.
 */
export function formatRoundedDown(value: Decimal, dp: number): string {
  return formatDecimal(value.round(dp, Decimal.roundDown));
}
