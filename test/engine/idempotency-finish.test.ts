import { afterAll, describe, expect, it, vi } from "vitest";
import { testWorld } from "../support/engine";
import { closeSharedStorage, storageKinds } from "../support/storage";

/**
 * After a request under an Idempotency-Key: a success whose command saved its answer with its
 * effect needs no session to end the key (its replay still answers it), while an answer no
 * command saved (a 402 refusal, rolled back) is saved afterwards and replayed.
 */
for (const kind of storageKinds()) {
  describe(`ending a key after its request on ${kind.name}`, () => {
    it("opens no session for a success its command saved, and saves a refusal that no command did", async () => {
      const w = await testWorld(kind);
      try {
        const saveIfHeld = vi.spyOn(w.engine.idempotency, "saveIfHeld");
        const fund = () =>
          w.request("POST", "/v1/test_helpers/balances/fund", {
            body: { asset: "USDC", chain: "base", amount: "10" },
            headers: { "Idempotency-Key": "fund-1" },
          });
        const first = await fund();
        expect(first.status).toBe(200);
        expect(saveIfHeld).not.toHaveBeenCalled();
        const replay = await fund();
        expect(replay.headers.get("idempotent-replayed")).toBe("true");
        expect(await replay.json()).toEqual(await first.json());

        const rcp = (
          await w.engine.recipients.create(w.ctx, { name: "R", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } })
        )._unsafeUnwrap().id;
        const pay = () => w.request("POST", "/v1/payouts", { body: { amount: "50", asset: "USDC", recipient: rcp }, headers: { "Idempotency-Key": "pay-1" } });
        const refused = await pay();
        expect(refused.status).toBe(402);
        expect(saveIfHeld).toHaveBeenCalledTimes(1);
        const again = await pay();
        expect(again.status).toBe(402);
        expect(again.headers.get("idempotent-replayed")).toBe("true");
      } finally {
        await w.close();
      }
    });
  });
}

afterAll(closeSharedStorage);
