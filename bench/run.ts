import { benchLedger } from "./ledger";
import { benchPayouts } from "./payouts";
import { benchWebhooks } from "./webhooks";
import { benchQuotes } from "./quotes";
import { benchReports } from "./reports";
import { benchSettle } from "./settle";

/** `npm run bench [name…]`: runs the named benchmarks (default all) and prints their figures. */
const BENCHES: Record<string, () => Promise<void>> = {
  ledger: benchLedger,
  payouts: benchPayouts,
  webhooks: benchWebhooks,
  quotes: benchQuotes,
  reports: benchReports,
  settle: async () => {
    await benchSettle();
  },
};

const wanted = process.argv.slice(2);
for (const name of wanted.length ? wanted : Object.keys(BENCHES)) {
  const bench = BENCHES[name];
  if (!bench) {
    console.error(`unknown benchmark ${name}; known: ${Object.keys(BENCHES).join(", ")}`);
    process.exit(2);
  }
  await bench();
}
