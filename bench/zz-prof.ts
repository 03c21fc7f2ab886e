import { createMemoryStorage } from "../adapters/memory";
import { ManualClock } from "../adapters/clock";
import { createEngine } from "../src/engine";
import { systemContext } from "../src/services/context";
const clock = new ManualClock();
const engine = await createEngine({ storage: createMemoryStorage(), clock, worker: { concurrency: 4, batchSize: 4 } });
const a = await engine.accounts.create({ name: "x" });
const ctx = systemContext(a.id, false);
(await engine.testHelpers.fund(ctx, { asset: "USDC", chain: "base", amount: "10000000" }))._unsafeUnwrap();
const r = (await engine.recipients.create(ctx, { name: "r", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } }))._unsafeUnwrap().id;
const legs = Array.from({ length: 25000 }, (_, row) => ({ row, amount: "1.25", recipient: r }));
(await engine.batches.create(ctx, { funding: { asset: "USDC", source: "auto" }, legs }, {}))._unsafeUnwrap();
const t = performance.now();
for (let i = 0; i < 12; i++) { clock.advance(1000); await engine.worker.runDue(); }
console.log("settle ms", performance.now() - t);
await engine.close();
