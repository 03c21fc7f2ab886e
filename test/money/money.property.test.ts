import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { AssetRegistry, Decimal, allocate, divCeil, divFloor, formatAmount, formatDecimal, formatUnits, parseAmount } from "../../src/money";

const assets = AssetRegistry.withDefaults();
const assetArb = fc.constantFrom(...assets.list());

describe("amount parsing", () => {
  test.prop([assetArb, fc.bigInt({ min: 1n, max: 10n ** 30n })])("format then parse gives the same base units", (asset, units) => {
    const text = formatAmount(units, asset);
    expect(parseAmount(text, asset, "amount")._unsafeUnwrap()).toBe(units);
  });

  test.prop([assetArb, fc.bigInt({ min: 0n, max: 10n ** 30n })])("formatting is shortest: no trailing zeros, no exponent", (asset, units) => {
    const text = formatAmount(units, asset);
    expect(text).toMatch(/^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/);
  });

  test.prop([fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: 0, max: 18 })])(
    "formatUnits agrees with exact decimal arithmetic",
    (units, decimals) => {
      const expected = formatDecimal(new Decimal(units.toString()).div(new Decimal((10n ** BigInt(decimals)).toString())));
      expect(formatUnits(units, decimals)).toBe(expected);
    },
  );

  it.each([
    ["1e6", "amount_invalid"],
    ["-1", "amount_invalid"],
    ["+1", "amount_invalid"],
    [" 1", "amount_invalid"],
    ["1 ", "amount_invalid"],
    ["01", "amount_invalid"],
    ["1.", "amount_invalid"],
    [".5", "amount_invalid"],
    ["0", "amount_invalid"],
    ["0.0", "amount_invalid"],
    ["1.0000001", "amount_invalid"],
    ["NaN", "amount_invalid"],
    ["Infinity", "amount_invalid"],
    ["", "amount_invalid"],
    ["1,5", "amount_invalid"],
    ["9".repeat(40), "amount_invalid"],
  ])("refuses %j for USDC with %s", (text, code) => {
    const r = parseAmount(text, assets.get("USDC")!, "amount");
    expect(r.isErr() && r.error.code).toBe(code);
    expect(r.isErr() && r.error.param).toBe("amount");
  });

  it.each([[10], [10.5], [null], [undefined], [true], [{}], [["1"]], [10n]])("refuses the non-string %s", (value) => {
    const r = parseAmount(value, assets.get("USDC")!, "amount");
    expect(r.isErr() && r.error.code).toBe("amount_invalid");
  });

  it("accepts every precision up to the asset's and zero when allowed", () => {
    const usdc = assets.get("USDC")!;
    expect(parseAmount("10.25", usdc, "a")._unsafeUnwrap()).toBe(10_250_000n);
    expect(parseAmount("0.000001", usdc, "a")._unsafeUnwrap()).toBe(1n);
    expect(parseAmount("10.250000", usdc, "a")._unsafeUnwrap()).toBe(10_250_000n);
    expect(parseAmount("0", usdc, "a", { allowZero: true })._unsafeUnwrap()).toBe(0n);
    expect(parseAmount("1.000000000000000001", assets.get("ETH")!, "a")._unsafeUnwrap()).toBe(10n ** 18n + 1n);
    expect(formatAmount(10_250_000n, usdc)).toBe("10.25");
    expect(formatAmount(1n, usdc)).toBe("0.000001");
    expect(formatAmount(10_000_000n, usdc)).toBe("10");
  });
});

describe("rounding", () => {
  const nonZero = fc.bigInt({ min: -(10n ** 24n), max: 10n ** 24n }).filter((d) => d !== 0n);
  test.prop([fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), nonZero])("divFloor <= exact quotient <= divCeil, within one unit", (n, d) => {
    const lo = divFloor(n, d);
    const hi = divCeil(n, d);
    // lo <= n/d  <=>  lo*d <= n when d > 0 (reversed when d < 0)
    if (d > 0n) {
      expect(lo * d <= n && n < (lo + 1n) * d).toBe(true);
      expect(hi * d >= n && n > (hi - 1n) * d).toBe(true);
    } else {
      expect(lo * d >= n && n > (lo + 1n) * d).toBe(true);
      expect(hi * d <= n && n < (hi - 1n) * d).toBe(true);
    }
    expect(hi - lo).toBe(n % d === 0n ? 0n : 1n);
  });

  it("rounds what is received down and what is paid up", () => {
    expect(divFloor(7n, 2n)).toBe(3n);
    expect(divCeil(7n, 2n)).toBe(4n);
    expect(divFloor(-7n, 2n)).toBe(-4n);
    expect(divCeil(-7n, 2n)).toBe(-3n);
  });
});

describe("allocate (largest remainder)", () => {
  const weights = fc.array(fc.bigInt({ min: 0n, max: 10n ** 12n }), { minLength: 1, maxLength: 12 }).filter((w) => w.some((x) => x > 0n));
  test.prop([fc.bigInt({ min: 0n, max: 10n ** 24n }), weights])("parts sum to exactly the whole", (total, w) => {
    const parts = allocate(total, w);
    expect(parts.reduce((a, b) => a + b, 0n)).toBe(total);
  });

  test.prop([fc.bigInt({ min: 0n, max: 10n ** 24n }), weights])("each part is its exact share, floored or plus one", (total, w) => {
    const sum = w.reduce((a, b) => a + b, 0n);
    allocate(total, w).forEach((part, i) => {
      const floor = (total * w[i]!) / sum;
      expect(part === floor || part === floor + 1n).toBe(true);
      if (w[i] === 0n) expect(part).toBe(0n);
    });
  });

  it("gives ties to the earlier part, deterministically", () => {
    expect(allocate(10n, [1n, 1n, 1n])).toEqual([4n, 3n, 3n]);
    expect(allocate(2n, [1n, 1n, 1n])).toEqual([1n, 1n, 0n]);
  });
});
