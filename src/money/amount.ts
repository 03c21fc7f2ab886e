import { ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../errors";
import type { AssetDefinition } from "./assets";
import { isDecimalString } from "./decimal";

/** Base-unit amounts beyond 38 digits are refused: no asset has that much supply. */
const MAX_UNITS = 10n ** 38n;

/**
 * Parses an API amount into integer base units of `asset` (docs/decisions.md §1). Refuses anything
 * that is not a decimal string, carries a sign, exponent or spaces, has more fractional digits
 * than the asset's precision (never rounds silently), or is zero unless `allowZero`.
 */
export function parseAmount(value: unknown, asset: AssetDefinition, param: string, options: { allowZero?: boolean } = {}): Result<bigint, ApiError> {
  if (typeof value !== "string") {
    return fail("amount_invalid", `${param} must be a decimal string such as "10.25"`, { param });
  }
  if (!isDecimalString(value)) {
    return fail("amount_invalid", `${param} must be a decimal string without sign, exponent or spaces`, { param });
  }
  const [whole, fraction = ""] = value.split(".") as [string, string?];
  if (fraction.length > asset.decimals) {
    return fail("amount_invalid", `${param} has more than ${asset.decimals} decimals, the precision of ${asset.code}`, {
      param,
    });
  }
  const units = BigInt(whole + fraction.padEnd(asset.decimals, "0"));
  if (units >= MAX_UNITS) return fail("amount_invalid", `${param} is too large`, { param });
  if (units === 0n && !options.allowZero) return fail("amount_invalid", `${param} must be greater than zero`, { param });
  return ok(units);
}

/** Formats base units in the shortest exact decimal form: "10.25", "10", "0.000001", "-3.5". */
export function formatUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString();
  if (decimals === 0) return negative ? `-${digits}` : digits;
  const padded = digits.padStart(decimals + 1, "0");
  const whole = padded.slice(0, padded.length - decimals);
  const fraction = padded.slice(padded.length - decimals).replace(/0+$/, "");
  const text = fraction ? `${whole}.${fraction}` : whole;
  return negative && text !== "0" ? `-${text}` : text;
}

/** Formats base units of an asset. */
export function formatAmount(units: bigint, asset: AssetDefinition): string {
  return formatUnits(units, asset.decimals);
}
