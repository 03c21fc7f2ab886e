import type {
  ChainAddressRecord,
  ChainBlockRecord,
  ChainDepositRecord,
  ChainSweepRecord,
  ChainTransactionRecord,
  SimulatedTransferRecord,
} from "../../src/ports/storage";
import { table } from "./tables";

/** The chain-state tables (migration 7), described once like the others in `tables.ts`. */
export const CHAIN_TRANSACTIONS = table<ChainTransactionRecord>("chain_transactions", {
  chain: "text",
  transferId: "text",
  kind: "text",
  keyIndex: "integer",
  from: ["from_address", "text"],
  to: ["to_address", "text"],
  asset: "text",
  amount: "numeric",
  nonce: "bigint",
  status: "text",
  reason: "text",
  attempts: "jsonb",
  minedHash: "text",
  gasCost: "numeric",
  created: "bigint",
  updated: "bigint",
});

export const CHAIN_ADDRESSES = table<ChainAddressRecord>("chain_addresses", {
  wallet: "text",
  key: "text",
  index: ["key_index", "integer"],
  address: "text",
  chain: "text",
  fromBlock: "bigint",
  created: "bigint",
});

export const CHAIN_BLOCKS = table<ChainBlockRecord>(
  "chain_blocks",
  { chain: "text", number: "bigint", hash: "text" },
  { onConflict: "(chain, number) DO UPDATE SET hash = EXCLUDED.hash" },
);

export const CHAIN_DEPOSITS = table<ChainDepositRecord>(
  "chain_deposits",
  {
    chain: "text",
    transferId: "text",
    address: "text",
    asset: "text",
    amount: "numeric",
    txHash: "text",
    blockNumber: "bigint",
    blockHash: "text",
    blockTime: "bigint",
    revertedAt: "bigint",
    sweep: "text",
    created: "bigint",
  },
  { onConflict: "(chain, transfer_id) DO NOTHING" },
);

export const CHAIN_SWEEPS = table<ChainSweepRecord>("chain_sweeps", {
  chain: "text",
  id: "text",
  address: "text",
  keyIndex: "integer",
  asset: "text",
  amount: "numeric",
  status: "text",
  attempt: "integer",
  reason: "text",
  created: "bigint",
  updated: "bigint",
});

/** What the simulated chains keep (migration 10). */
export const SIMULATED_TRANSFERS = table<SimulatedTransferRecord>(
  "simulated_transfers",
  {
    chain: "text",
    transferId: "text",
    direction: "text",
    asset: "text",
    address: "text",
    amount: "numeric",
    txHash: "text",
    includedAt: "bigint",
    droppedAt: "bigint",
    refused: "text",
    failure: "text",
    created: "bigint",
  },
  { onConflict: "(chain, transfer_id) DO NOTHING" },
);
