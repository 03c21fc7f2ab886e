import type { Balance } from "./ledger-objects";
import type { Out } from "../api/response-schema";
import type { AssetRegistry, AssetDefinition } from "../money/assets";
import { formatAmount } from "../money/amount";
import type { BalanceRecord } from "../ports/storage";
import { isoTime } from "../validation/timestamp";

export interface BalanceAmounts {
  available: string;
  reserved: string;
  pending: string;
}

/** The balance object of docs/decisions.md §4. */
export type BalanceObject = Out<typeof Balance>;

/**
 * The balance of one asset from its rows: totals over chains, and one entry per chain the asset
 * exists on (zeros included, so clients see every chain they can fund).
 */
export function balanceObject(asset: AssetDefinition, rows: readonly BalanceRecord[], asOf: number): BalanceObject {
  const perChain = new Map<string, { available: bigint; reserved: bigint; pending: bigint }>();
  for (const chain of asset.chains) perChain.set(chain, { available: 0n, reserved: 0n, pending: 0n });
  const total = { available: 0n, reserved: 0n, pending: 0n };
  for (const row of rows) {
    if (row.asset !== asset.code) continue;
    if (row.book !== "available" && row.book !== "reserved" && row.book !== "pending") continue;
    const chain = perChain.get(row.chain) ?? { available: 0n, reserved: 0n, pending: 0n };
    chain[row.book] += row.amount;
    perChain.set(row.chain, chain);
    total[row.book] += row.amount;
  }
  const fmt = (v: { available: bigint; reserved: bigint; pending: bigint }): BalanceAmounts => ({
    available: formatAmount(v.available, asset),
    reserved: formatAmount(v.reserved, asset),
    pending: formatAmount(v.pending, asset),
  });
  const chains: Record<string, BalanceAmounts> = {};
  for (const [chain, v] of perChain) chains[chain] = fmt(v);
  return { object: "balance", asset: asset.code, ...fmt(total), chains, as_of: isoTime(asOf) };
}

/** Every registry asset's balance, ordered by asset code. */
export function balanceObjects(assets: AssetRegistry, rows: readonly BalanceRecord[], asOf: number): BalanceObject[] {
  return assets.list().map((asset) => balanceObject(asset, rows, asOf));
}
