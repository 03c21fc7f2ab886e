import { benchLayout } from "./layout";
import { benchLedger } from "./ledger";
import { benchLists } from "./lists";
import { benchPayouts } from "./payouts";
import { benchWebhooks } from "./webhooks";
import { benchWebhookFairness } from "./webhook-fairness";
import { benchQuotes } from "./quotes";
import { benchReports } from "./reports";
import { benchScaleOut } from "./scale-out";
import { benchSettle, settleFigures } from "./settle";
import { formatTable, type Figure } from "./table";

/**
 * `npm run bench [name…]`: runs the named benchmarks (default all), each printing its detail
 * lines as it goes, then one table of every figure beside its raw floor of the same run
 * (docs/performance.md says how to read it).
 */
const BENCHES: Record<string, () => Promise<Figure[] | void>> = {
  payouts: benchPayouts,
  "scale-out": benchScaleOut,
  settle: async () => (await benchSettle()).flatMap(settleFigures),
  webhooks: benchWebhooks,
  "webhook-fairness": benchWebhookFairness,
  quotes: benchQuotes,
  lists: benchLists,
  ledger: benchLedger,
  reports: benchReports,
  layout: benchLayout,
};

const wanted = process.argv.slice(2);
const figures: Figure[] = [];
for (const name of wanted.length ? wanted : Object.keys(BENCHES)) {
  const bench = BENCHES[name];
  if (!bench) {
    console.error(`unknown benchmark ${name}; known: ${Object.keys(BENCHES).join(", ")}`);
    process.exit(2);
  }
  figures.push(...((await bench()) ?? []));
}
if (figures.length) console.log(`\n${formatTable(figures)}`);
