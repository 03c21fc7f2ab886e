import { custom } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../adapters/clock";
import { EvmChain, MnemonicSigner } from "../../../adapters/chains/evm";
import { EVM_NAMESPACE, EvmState } from "../../../adapters/chains/evm/evm-state";
import { SimulatedChains } from "../../../adapters/chains/simulated";
import { SIMULATED_NAMESPACE, SimulatedState } from "../../../adapters/chains/simulated/simulated-state";
import { MemoryStorage } from "../../../adapters/memory";
import { MIGRATIONS, type PostgresStorage } from "../../../adapters/postgres";
import { TEST_MNEMONIC } from "../../support/evm/evm-node";
import { closeSharedStorage, storageKinds } from "../../support/storage";

/**
 * Migration 13 moves what the EVM adapter and the simulated chains kept in their own tables
 * (migrations 7 and 10) into the adapter-state seam. A database made by the migrations before it
 * (1 to 12, the released list: migrations are never edited) is filled with rows as the old stores
 * wrote them, migrated by `init`, and read back through the adapters' state modules and the
 * adapters themselves: nonces, signed transactions, addresses, the scan tip, deposits, sweeps and
 * the simulated world survive the upgrade.
 */
const T0 = 1_767_225_600_000;
const GENESIS = Date.UTC(2020, 0, 1);
/** The simulated base chain (500 ms blocks) at this time is at height 1,000,000 plus the blocks mined on demand. */
const NOW = GENESIS + 1_000_000 * 500;
const H0 = 999_000;
const H1 = 1_000_004;
const simHash = (height: number, fill: string) => `0x${height.toString(16).padStart(16, "0")}${fill.repeat(24)}`;
const SIM_HASH = simHash(H0, "ab");
/** Sent reverted (its hash cannot tell), and sent into the tip (a reorganisation after the upgrade moves it). */
const REVERTED_HASH = simHash(H0 + 1, "cd");
const TIP = 1_000_000 + 5;
const LATE_HASH = simHash(TIP, "ef");
const RECIPIENT = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

const signer = new MnemonicSigner(TEST_MNEMONIC);

async function legacyDatabase(storage: PostgresStorage, hot: string, addresses: [string, string]): Promise<void> {
  const s = `"${storage.schema}"`;
  const attempt = (hash: string, at: number) => ({ txHash: hash, raw: `0x02${hash.slice(2)}`, maxFeePerGas: "100", maxPriorityFeePerGas: "2", signedAt: at });
  const json = (v: unknown) => `'${JSON.stringify(v)}'`;
  await storage.driver.transaction(async (c) => {
    await c.exec(
      `CREATE SCHEMA IF NOT EXISTS ${s}; CREATE TABLE ${s}.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const m of MIGRATIONS.filter((m) => m.version <= 12)) {
      await c.exec(m.sql.replaceAll("{s}", s));
      await c.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
    }
    const hotLower = hot.toLowerCase();
    await c.exec(`
INSERT INTO ${s}.chain_sequences VALUES ('nonce:base:${hotLower}', 5), ('address_index:${hotLower}', 3);
INSERT INTO ${s}.chain_transactions VALUES
  ('base', 'leg_sent', 'payout', 0, '${hot}', '${RECIPIENT}', 'USDC', 7000000, 3, 'signed', NULL,
   ${json([attempt("0xa1", T0), attempt("0xa2", T0 + 1)])}, NULL, NULL, ${T0}, ${T0 + 1}),
  ('base', 'leg_final', 'payout', 0, '${hot}', '${RECIPIENT}', 'USDC', 123456789012345678901234567890, 4, 'final', NULL,
   ${json([attempt("0xb1", T0 + 2)])}, '0xb1', 1152921504606846976, ${T0 + 2}, ${T0 + 3}),
  ('base', 'leg_refused', 'payout', 0, '${hot}', '${RECIPIENT}', 'EURC', 1, NULL, 'rejected', 'no EURC token is configured on base',
   '[]', NULL, NULL, ${T0 + 4}, ${T0 + 4});
INSERT INTO ${s}.chain_transaction_hashes VALUES ('base', '0xa1', 'leg_sent'), ('base', '0xa2', 'leg_sent'), ('base', '0xb1', 'leg_final');
INSERT INTO ${s}.chain_addresses VALUES
  ('${hot}', 'base:pi_1', 1, '${addresses[0]}', 'base', 100, ${T0}),
  ('${hot}', 'polygon:pi_2', 2, '${addresses[1]}', 'polygon', 50, ${T0 + 1});
INSERT INTO ${s}.chain_scan_tips VALUES ('base', 130, '0xtip');
INSERT INTO ${s}.chain_blocks VALUES ('base', 110, '0xb110'), ('base', 120, '0xb120'), ('base', 130, '0xtip');
INSERT INTO ${s}.chain_deposits VALUES
  ('base', 'base:0xb110:0', '${addresses[0]}', 'USDC', 5000000, '0xd1', 110, '0xb110', ${T0}, NULL, NULL, ${T0}),
  ('base', 'base:0xb120:1', '${addresses[0]}', 'USDC', 6000000, '0xd2', 120, '0xb120', ${T0 + 1}, 125, NULL, ${T0 + 1}),
  ('base', 'base:0xb100:0', '${addresses[0]}', 'USDC', 4000000, '0xd0', 100, '0xb100', ${T0 - 1}, NULL, 'swp_1', ${T0 - 1});
INSERT INTO ${s}.chain_sweeps VALUES
  ('base', 'swp_0', '${addresses[0]}', 1, 'USDC', 1, 'done', 1, NULL, ${T0 - 9}, ${T0 - 8}),
  ('base', 'swp_1', '${addresses[0]}', 1, 'USDC', 4000000, 'topping_up', 2, 'the token transfer would revert', ${T0 + 5}, ${T0 + 6});
INSERT INTO ${s}.simulated_counters VALUES ('spent:base:USDC', 1000000), ('blocks:base', 5), ('reorgs:base', 1), ('deposits:base', 2);
INSERT INTO ${s}.simulated_transfers VALUES
  ('base', 'leg_mig', 'out', 'USDC', '${RECIPIENT}', 1000000, '${SIM_HASH}', ${H0}, NULL, NULL, NULL, ${T0}),
  ('base', 'leg_ref', 'out', 'USDC', '${RECIPIENT}', 99, NULL, NULL, NULL, 'insufficient hot-wallet liquidity', NULL, ${T0}),
  ('base', 'leg_rev', 'out', 'USDC', '${RECIPIENT}', 5, '${REVERTED_HASH}', ${H0 + 1}, NULL, NULL, 'execution reverted', ${T0}),
  ('base', 'leg_late', 'out', 'USDC', '${RECIPIENT}', 6, '${LATE_HASH}', ${TIP}, NULL, NULL, NULL, ${T0}),
  ('base', 'base:in_a', 'in', 'USDC', '${addresses[0]}', 300, '0xin_a', ${H1}, NULL, NULL, NULL, ${T0}),
  ('base', 'base:in_b', 'in', 'USDC', '${addresses[0]}', 400, '0xin_b', ${H0}, ${H0 + 2}, NULL, NULL, ${T0});
`);
  });
}

for (const kind of storageKinds().filter((k) => k.name !== "memory")) {
  describe(`migration 13 on ${kind.name}: the chain adapters' tables into adapter state`, () => {
    it("keeps the EVM adapter's nonces, transactions, addresses, scan tip, deposits and sweeps, and drops the old tables", async () => {
      const h = await kind.factory();
      const storage = h.storage as PostgresStorage;
      try {
        const hot = await signer.address(0);
        const addresses: [string, string] = [await signer.address(1), await signer.address(2)];
        await legacyDatabase(storage, hot, addresses);
        await storage.init();

        const evm = <T>(fn: (state: EvmState) => Promise<T>) => storage.adapterState(EVM_NAMESPACE).transaction((tx) => fn(new EvmState(tx)));
        const sent = await evm((st) => st.getTransaction("base", "leg_sent"));
        expect(sent).toEqual({
          chain: "base",
          transferId: "leg_sent",
          kind: "payout",
          keyIndex: 0,
          from: hot,
          to: RECIPIENT,
          asset: "USDC",
          amount: 7_000_000n,
          nonce: 3,
          status: "signed",
          reason: null,
          attempts: [
            { txHash: "0xa1", raw: "0x02a1", maxFeePerGas: "100", maxPriorityFeePerGas: "2", signedAt: T0 },
            { txHash: "0xa2", raw: "0x02a2", maxFeePerGas: "100", maxPriorityFeePerGas: "2", signedAt: T0 + 1 },
          ],
          minedHash: null,
          gasCost: null,
          created: T0,
          updated: T0 + 1,
        });
        expect(await evm((st) => st.findTransactionByHash("base", "0xa2"))).toEqual(sent);
        const final = await evm((st) => st.findTransactionByHash("base", "0xb1"));
        expect(final).toMatchObject({
          transferId: "leg_final",
          amount: 123456789012345678901234567890n,
          gasCost: 2n ** 60n,
          status: "final",
          minedHash: "0xb1",
        });
        expect(await evm((st) => st.getTransaction("base", "leg_refused"))).toMatchObject({ status: "rejected", nonce: null, attempts: [] });
        expect((await evm((st) => st.listTransactionsFrom("base", hot, 0))).map((r) => r.transferId)).toEqual(["leg_sent", "leg_final"]);
        expect((await evm((st) => st.listTransactionsFrom("base", hot, 4))).map((r) => r.transferId)).toEqual(["leg_final"]);
        // the counters go on where they were
        expect(await evm((st) => st.takeSequence(`nonce:base:${hot.toLowerCase()}`, 0))).toBe(5);
        expect(await evm((st) => st.takeSequence(`address_index:${hot.toLowerCase()}`, 1))).toBe(3);

        expect(await evm((st) => st.getAddress(hot, "base:pi_1"))).toEqual({
          wallet: hot,
          key: "base:pi_1",
          index: 1,
          address: addresses[0],
          chain: "base",
          fromBlock: 100,
          created: T0,
        });
        expect((await evm((st) => st.listAddresses(hot))).map((a) => a.index)).toEqual([1, 2]);
        expect((await evm((st) => st.listAddresses(hot, 1))).map((a) => a.key)).toEqual(["polygon:pi_2"]);

        expect(await evm((st) => st.getScanTip("base"))).toEqual({ chain: "base", number: 130, hash: "0xtip" });
        expect(await evm((st) => st.listBlocks("base"))).toEqual([
          { chain: "base", number: 110, hash: "0xb110" },
          { chain: "base", number: 120, hash: "0xb120" },
          { chain: "base", number: 130, hash: "0xtip" },
        ]);
        expect((await evm((st) => st.listDeposits("base", { minBlock: 105 }))).map((d) => d.transferId)).toEqual(["base:0xb110:0"]);
        expect(await evm((st) => st.listDeposits("base", { revertedSince: 125 }))).toEqual([
          expect.objectContaining({ transferId: "base:0xb120:1", amount: 6_000_000n, revertedAt: 125, blockNumber: 120 }),
        ]);
        expect((await evm((st) => st.listDeposits("base", { unsweptTo: 1_000 }))).map((d) => d.transferId)).toEqual(["base:0xb110:0"]);
        expect((await evm((st) => st.listDeposits("base", { minBlock: 0, revertedSince: 0 }))).map((d) => d.transferId)).toEqual([
          "base:0xb100:0",
          "base:0xb110:0",
          "base:0xb120:1",
        ]);
        expect(await evm((st) => st.listOpenSweeps("base"))).toEqual([
          {
            chain: "base",
            id: "swp_1",
            address: addresses[0],
            keyIndex: 1,
            asset: "USDC",
            amount: 4_000_000n,
            status: "topping_up",
            attempt: 2,
            reason: "the token transfer would revert",
            created: T0 + 5,
            updated: T0 + 6,
          },
        ]);

        // the adapter itself finds the intent's address without asking the node
        const offline = custom({
          request: async () => {
            throw new Error("no node in this test");
          },
        });
        const chain = new EvmChain({ chain: "base", transport: offline, storage, signer, tokens: {} });
        expect(await chain.depositAddress("base", "USDC", "pi_1")).toBe(addresses[0]);

        const tables = await storage.driver.query<{ name: string }>(
          `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND (table_name LIKE 'chain_%' OR table_name LIKE 'simulated_%')`,
          [storage.schema],
        );
        expect(tables.rows).toEqual([]);
      } finally {
        await storage.close();
        await h.close();
      }
    });

    it("keeps the simulated world: a sent transfer answers the same, its status, the liquidity spent, deposits and counters", async () => {
      const h = await kind.factory();
      const storage = h.storage as PostgresStorage;
      try {
        const deposit = await signer.address(1);
        await legacyDatabase(storage, await signer.address(0), [deposit, await signer.address(2)]);
        await storage.init();
        const clock = new ManualClock(NOW);
        const sim = new SimulatedChains({ clock, storage });
        const untouched = new SimulatedChains({ clock, storage: new MemoryStorage() });

        const tip = TIP;
        expect(await sim.height("base")).toBe(tip);
        // asked by hash first, so the status is read from what migrated (not from the broadcast's answer)
        expect(await sim.transferStatus("base", SIM_HASH)).toEqual({ confirmations: tip - H0 + 1, finality: "final", failure: null });
        // idempotent across the upgrade: the same leg answers what it answered before
        expect(await sim.broadcast({ transferId: "leg_mig", chain: "base", asset: "USDC", amount: 1_000_000n, to: RECIPIENT })).toEqual({ txHash: SIM_HASH });
        expect(await sim.broadcast({ transferId: "leg_ref", chain: "base", asset: "USDC", amount: 99n, to: RECIPIENT })).toEqual({
          rejected: "insufficient hot-wallet liquidity",
        });
        expect(await sim.transferStatus("base", SIM_HASH)).toEqual({ confirmations: tip - H0 + 1, finality: "final", failure: null });
        expect(await sim.transferStatus("base", REVERTED_HASH)).toEqual({ confirmations: tip - H0, finality: "final", failure: "execution reverted" });
        expect(await sim.liquidity("base", "USDC")).toBe((await untouched.liquidity("base", "USDC")) - 1_000_000n);

        const { transfers } = await sim.inboundTransfers("base", String(H0));
        expect(transfers.map((t) => [t.transferId, t.finality, t.confirmations, t.amount])).toEqual([
          ["base:in_b", "reverted", 0, 400n],
          ["base:in_a", "included", tip - H1 + 1, 300n],
        ]);

        await sim.pay({ chain: "base", asset: "USDC", address: deposit, amount: 5n });
        const byHash = await storage
          .adapterState(SIMULATED_NAMESPACE)
          .transaction((tx) => new SimulatedState(tx).statusByHash("base", [SIM_HASH, REVERTED_HASH, "0xin_a"]));
        expect(byHash).toEqual(
          new Map([
            [SIM_HASH, { includedAt: H0, failure: null }],
            [REVERTED_HASH, { includedAt: H0 + 1, failure: "execution reverted" }],
          ]),
        );
        const counters = await storage
          .adapterState(SIMULATED_NAMESPACE)
          .transaction((tx) => new SimulatedState(tx).read(["deposits:base", "reorgs:base", "blocks:base", "spent:base:USDC"]));
        expect(counters.counters).toEqual(
          new Map([
            ["deposits:base", 3n],
            ["reorgs:base", 1n],
            ["blocks:base", 5n],
            ["spent:base:USDC", 1_000_000n],
          ]),
        );
        expect(await sim.transferStatus("base", LATE_HASH)).toEqual({ confirmations: 1, finality: "included", failure: null });
        // a reorganisation after the upgrade moves the migrated records like any others: the
        // deposit in the replaced blocks is reverted, the transfer sent into them is in the next one
        expect(await sim.reorg("base", 2)).toBe(2);
        const other = new SimulatedChains({ clock, storage }); // nothing cached: read from storage
        expect(await other.transferStatus("base", LATE_HASH)).toEqual({ confirmations: 0, finality: "pending", failure: null });
        expect(await sim.transferStatus("base", LATE_HASH)).toEqual({ confirmations: 0, finality: "pending", failure: null });
        expect((await sim.inboundTransfers("base", String(tip))).transfers.map((t) => [t.transferId, t.finality])).toEqual([
          ["base:in_a", "reverted"],
          [expect.stringMatching(/^base:/), "pending"], // paid after the upgrade, in the next block
        ]);
      } finally {
        await storage.close();
        await h.close();
      }
    });
  });
}

afterAll(closeSharedStorage);
