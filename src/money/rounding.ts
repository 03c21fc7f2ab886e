/**
 * Integer division with an explicit direction. What the user receives rounds down, what the user
 * pays rounds up (docs/decisions.md §1); these are the only two ways money is divided.
 */
export function divFloor(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError("division by zero");
  const q = numerator / denominator;
  const r = numerator % denominator;
  return r !== 0n && r < 0n !== denominator < 0n ? q - 1n : q;
}

export function divCeil(numerator: bigint, denominator: bigint): bigint {
  return -divFloor(-numerator, denominator);
}

/**
 * Splits `total` into parts proportional to `weights` with the largest-remainder method: every
 * part is floor(total·w/Σw) plus at most one unit, ties go to the earlier index, and the parts sum
 * to exactly `total` (research §3.5, dinero.js `allocate`).
 */
export function allocate(total: bigint, weights: readonly bigint[]): bigint[] {
  if (total < 0n) throw new RangeError("allocate: total must be non-negative");
  if (weights.length === 0) throw new RangeError("allocate: no weights");
  let sum = 0n;
  for (const w of weights) {
    if (w < 0n) throw new RangeError("allocate: negative weight");
    sum += w;
  }
  if (sum === 0n) throw new RangeError("allocate: weights sum to zero");
  const parts = weights.map((w) => (total * w) / sum);
  const remainders = weights.map((w, index) => ({ index, rem: (total * w) % sum }));
  let left = total - parts.reduce((a, b) => a + b, 0n);
  remainders.sort((a, b) => (a.rem === b.rem ? a.index - b.index : a.rem > b.rem ? -1 : 1));
  for (let i = 0; left > 0n; i++, left--) parts[remainders[i]!.index]! += 1n;
  return parts;
}
