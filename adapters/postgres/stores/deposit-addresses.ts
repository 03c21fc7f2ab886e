import type { DepositAddressStore } from "../../../src/ports/public";
import type { PgTxContext } from "../pg-tx";
import { DEPOSIT_ADDRESSES } from "../tables";

export function depositAddressStore(tx: PgTxContext): DepositAddressStore {
  const s = tx.s;
  return {
    async insert(records) {
      if (records.length) await tx.run(DEPOSIT_ADDRESSES.insertSql(s), [DEPOSIT_ADDRESSES.jsonRows(records)]);
    },
    async find(addresses) {
      if (!addresses.length) return [];
      const { rows } = await tx.read(`SELECT * FROM ${s}.deposit_addresses WHERE address = ANY($1::text[])`, [[...addresses]]);
      return rows.map(DEPOSIT_ADDRESSES.fromRow);
    },
  };
}
