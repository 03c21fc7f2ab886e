import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { engineDeps } from "../../../src/engine/engine";
import type { CommitOptions, DueWorkRecord, StorageTx } from "../../../src/ports";
import { BATCH_OPEN_SLICE, STAGED_SLICE_DELAY_MS } from "../../../src/resources/payouts/batch-acceptance";
import { testWorld, type TestWorld } from "../../support/engine";
import { expectLedgerConsistent } from "../../support/ledger-checks";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const json = (res: Response): Promise<any> => res.json();
const BASE = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

/**
 * A batch of more legs than `batchSlice` (here 4) over HTTP, as a client sees it: the answer comes
 * once every payout exists, a replay answers the same, the funds are held all or nothing, and a
 * refused batch leaves nothing behind (its staged slices do nothing when they come due).
 */
for (const kind of storageKinds()) {
  describe(`a batch accepted in slices, over HTTP on ${kind.name}`, () => {
    let w: TestWorld;
    beforeEach(async () => {
      w = await testWorld(kind, { config: { batchSlice: 4 } });
    });
    afterEach(() => w.close());

    const post = (path: string, body: unknown, key: string) => w.request("POST", path, { body, headers: { "Idempotency-Key": key } });
    const get = async (path: string) => json(await w.request("GET", path));
    const legsFor = (recipient: string, n: number, amount: string) =>
      Array.from({ length: n }, (_, row) => ({ row, amount, recipient, reference: `emp-${row}` }));
    const staged = async () => (await w.harness.inspect.work()).filter((item) => item.kind === BATCH_OPEN_SLICE.kind);

    it("answers once every payout exists, replays the same answer, and settles to completed", async () => {
      const recipient = (await json(await post("/v1/recipients", { name: "A", chain_addresses: { base: BASE } }, "r"))).id as string;
      await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "100" }, "f");
      const body = { reference: "payroll", funding: { asset: "USDC", source: "auto" }, legs: legsFor(recipient, 10, "2.5") };
      const res = await post("/v1/payouts/batches", body, "batch-1");
      expect(res.status).toBe(200);
      const created = await json(res);
      expect(created).toMatchObject({ object: "payout_batch", status: "processing", leg_count: 10, total_amount: "25", counts: { executing: 10 } });
      const payouts = (await get(`/v1/payouts?limit=100`)).data.filter((p: any) => p.batch === created.id);
      expect(payouts.map((p: any) => p.row).sort((a: number, b: number) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      for (const p of payouts) expect(p.reference).toBe(`emp-${p.row}`);
      expect(await get(`/v1/payouts/batches/${created.id}`)).toEqual(created);

      const replay = await post("/v1/payouts/batches", body, "batch-1");
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(await json(replay)).toEqual(created);

      // the three staged slices come due after the request opened them: they change nothing
      w.clock.advance(STAGED_SLICE_DELAY_MS);
      await w.engine.worker.runDue();
      expect(await staged()).toEqual([]);
      await post("/v1/test_helpers/clock/advance", { seconds: 10 }, "adv");
      const done = await get(`/v1/payouts/batches/${created.id}`);
      expect(done).toMatchObject({ status: "completed", counts: { settled: 10 } });
      expect((await get("/v1/events?type=payout.created&limit=100")).data).toHaveLength(10);
      expect((await get("/v1/events?type=payout.batch.completed")).data).toHaveLength(1);
      await expectLedgerConsistent(w.harness.inspect, w.accountId, engineDeps(w.engine).house.test);
    });

    it("holds the funds all or nothing: spent between planning and the hold, the batch is refused and its staged slices do nothing", async () => {
      const recipient = (await json(await post("/v1/recipients", { name: "A", chain_addresses: { base: BASE } }, "r"))).id as string;
      await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "30" }, "f");
      // once the batch's first slice is staged (after its planning), a payout spends most of the funds
      const storage = engineDeps(w.engine).storage;
      const transaction = storage.transaction.bind(storage);
      storage.transaction = (async (fn: (tx: StorageTx) => Promise<unknown>, options?: CommitOptions) => {
        let staging = false;
        const watched = (tx: StorageTx): StorageTx => ({
          ...tx,
          work: new Proxy(tx.work, {
            get(target, prop) {
              const value = Reflect.get(target, prop);
              if (prop !== "enqueue") return typeof value === "function" ? value.bind(target) : value;
              return (items: DueWorkRecord[]) => {
                if (items.some((item) => item.kind === BATCH_OPEN_SLICE.kind)) staging = true;
                return target.enqueue(items);
              };
            },
          }),
        });
        const result = await transaction((tx) => fn(watched(tx)), options);
        if (staging) {
          storage.transaction = transaction;
          (await w.engine.payouts.create(w.ctx, { amount: "20", asset: "USDC", recipient }))._unsafeUnwrap();
        }
        return result;
      }) as typeof storage.transaction;
      const res = await post("/v1/payouts/batches", { funding: { asset: "USDC", source: "auto" }, legs: legsFor(recipient, 9, "2.5") }, "batch-3");
      storage.transaction = transaction;
      expect(res.status).toBe(402);
      const error = (await json(res)).error;
      expect(error).toMatchObject({ code: "insufficient_funds" });
      expect(error.message).not.toContain("first short"); // refused by the hold, not by planning
      expect((await get("/v1/payouts/batches")).data).toEqual([]);
      expect((await get("/v1/payouts")).data.filter((p: any) => p.batch !== null)).toEqual([]);
      w.clock.advance(STAGED_SLICE_DELAY_MS);
      await w.engine.worker.runDue();
      expect(await staged()).toEqual([]);
      expect((await get("/v1/payouts")).data.filter((p: any) => p.batch !== null)).toEqual([]);
      expect((await w.harness.inspect.reservations(w.accountId)).filter((r) => r.resource?.startsWith("bat_"))).toEqual([]);
      await expectLedgerConsistent(w.harness.inspect, w.accountId, engineDeps(w.engine).house.test);
    });

    it("refuses a batch its funds do not cover with 402 and leaves nothing behind", async () => {
      const recipient = (await json(await post("/v1/recipients", { name: "A", chain_addresses: { base: BASE } }, "r"))).id as string;
      await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "20" }, "f");
      const before = await w.harness.inspect.balances(w.accountId);
      const res = await post("/v1/payouts/batches", { funding: { asset: "USDC", source: "auto" }, legs: legsFor(recipient, 9, "2.5") }, "batch-2");
      expect(res.status).toBe(402);
      expect((await json(res)).error.code).toBe("insufficient_funds");
      expect((await get("/v1/payouts/batches")).data).toEqual([]);
      expect((await get("/v1/payouts")).data).toEqual([]);
      expect(await w.harness.inspect.balances(w.accountId)).toEqual(before);
      w.clock.advance(STAGED_SLICE_DELAY_MS);
      await w.engine.worker.runDue();
      expect(await staged()).toEqual([]);
      expect((await get("/v1/payouts")).data).toEqual([]);
      expect(await w.harness.inspect.balances(w.accountId)).toEqual(before);
    });
  });
}

afterAll(closeSharedStorage);
