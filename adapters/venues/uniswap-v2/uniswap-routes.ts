/**
 * Which routes the adapter offers for a directed pair, and their venue names. A route is a path
 * of assets: the direct pool `[from, to]` when the pair exists, and every two-pool path `[from,
 * m, to]` through another configured asset `m` when both pools exist. No two of them share a
 * pool (the direct one is from/to, each other one is from/m and m/to with its own m), which the
 * venue port asks of routes: the core prices each as if the others did not move it.
 *
 * A venue's name is the same in both directions: the adapter's name, then the path's two ends
 * in alphabetical order with the middle asset between them (`uniswap-v2-base:ETH-USDC`,
 * `uniswap-v2-base:EURC-ETH-USDC`).
 */

/** An unordered pair's key (`A/B`, alphabetical). */
export function pairKey(a: string, b: string): string {
  return a < b ? `${a}/${b}` : `${b}/${a}`;
}

export interface Route {
  venue: string;
  /** Asset codes in trading order: `from`, intermediates, `to`. */
  path: string[];
}

/** The routes for selling `from` into `to` over the pools that exist (`hasPair`). */
export function routesFor(name: string, assets: readonly string[], from: string, to: string, hasPair: (a: string, b: string) => boolean): Route[] {
  if (from === to || !assets.includes(from) || !assets.includes(to)) return [];
  const [first, last] = from < to ? [from, to] : [to, from];
  const routes: Route[] = [];
  if (hasPair(from, to)) routes.push({ venue: `${name}:${first}-${last}`, path: [from, to] });
  for (const middle of [...assets].sort()) {
    if (middle === from || middle === to) continue;
    if (hasPair(from, middle) && hasPair(middle, to)) routes.push({ venue: `${name}:${first}-${middle}-${last}`, path: [from, middle, to] });
  }
  return routes;
}
