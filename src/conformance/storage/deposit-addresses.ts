import { describe, expect, it } from "vitest";
import { type SuiteContext, T0 } from "./fixtures";

export function depositAddressSuite(s: SuiteContext): void {
  describe("deposit addresses", () => {
    it("finds addresses on any chain, refuses a second record of one address on a chain", async () => {
      const evm = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
      const rec = (chain: string, address: string, resource: string) => ({ chain, address, accountId: "acct_a", resource, created: T0 });
      await s.storage.transaction((tx) =>
        tx.depositAddresses.insert([rec("base", evm, "pi_1"), rec("ethereum", evm, "pi_1"), rec("solana", "So1111", "pi_2")]),
      );
      const found = await s.storage.transaction((tx) => tx.depositAddresses.find([evm, "nowhere"]));
      expect(found.map((r) => `${r.chain}:${r.resource}`).sort()).toEqual(["base:pi_1", "ethereum:pi_1"]);
      expect(found[0]).toMatchObject({ address: evm, accountId: "acct_a", created: T0 });
      const twice = await s.storage
        .transaction((tx) => tx.depositAddresses.insert([rec("base", evm, "pi_3")]).then(() => tx.meta.get("x")))
        .then(
          () => "stored",
          () => "refused",
        );
      expect(twice).toBe("refused");
      expect(await s.storage.transaction((tx) => tx.depositAddresses.find([]))).toEqual([]);
    });
  });
}
