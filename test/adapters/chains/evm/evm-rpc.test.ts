import { custom } from "viem";
import { describe, expect, it } from "vitest";

import { EvmRpc, ExecutionReverted, RpcError } from "../../../../adapters/chains/evm/evm-rpc";

/**
 * The JSON-RPC answers as nodes send them on the wire (hex quantities, the fields each chain
 * adds): what the adapter reads from them. Hardhat, the suite's node, has no L1 data fee and no
 * blobs, so an OP-stack receipt's and a blob transaction's fields are checked here.
 */

/** A node answering `method` with `answer` (a value, or an error thrown as the JSON-RPC error). */
function node(answers: Record<string, unknown>): EvmRpc {
  return new EvmRpc(
    custom({
      async request({ method }: { method: string }) {
        const answer = answers[method];
        if (answer instanceof Error) throw answer;
        if (answer === undefined) throw Object.assign(new Error(`no ${method}`), { code: -32601 });
        return answer;
      },
    }),
  );
}

const RECEIPT = {
  blockHash: "0x3a6c6e2bd7ac7c4e2b8b0d5b1d4c8a4f1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f60",
  blockNumber: "0x16d3a1c",
  contractAddress: null,
  cumulativeGasUsed: "0x2b8c4d",
  effectiveGasPrice: "0x5f5e100", // 0.1 gwei
  from: "0x9858effd232b4033e47d90003d41ec34ecaeda94",
  gasUsed: "0xb3a1", // 45,985
  logs: [],
  logsBloom: `0x${"0".repeat(512)}`,
  status: "0x1",
  to: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
  transactionHash: "0x7f2d0c8e5b1a4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d",
  transactionIndex: "0x1f",
  type: "0x2",
};

describe("EvmRpc, on the wire", () => {
  it("a receipt's fee is its gas at its price on a chain without an L1 fee", async () => {
    const receipt = await node({ eth_getTransactionReceipt: RECEIPT }).receipt(RECEIPT.transactionHash);
    expect(receipt).toMatchObject({ status: "success", blockNumber: 0x16d3a1c, gasUsed: 45_985n, effectiveGasPrice: 100_000_000n });
    expect(receipt!.fee).toBe(45_985n * 100_000_000n);
  });

  it("an OP-stack receipt's fee adds the L1 data fee the sender paid beside its gas (Base)", async () => {
    const base = {
      ...RECEIPT,
      l1BaseFeeScalar: "0x8dd",
      l1BlobBaseFee: "0x1",
      l1BlobBaseFeeScalar: "0x101c12",
      l1Fee: "0x2d79883d2000", // 50,000,000,000,000 wei: far more than the L2 gas here
      l1GasPrice: "0x3b9aca00",
      l1GasUsed: "0x640",
    };
    const receipt = await node({ eth_getTransactionReceipt: base }).receipt(base.transactionHash);
    expect(receipt!.fee).toBe(45_985n * 100_000_000n + 50_000_000_000_000n);
  });

  it("a blob transaction's fee adds its blob gas at the blob price", async () => {
    const blob = { ...RECEIPT, type: "0x3", blobGasUsed: "0x20000", blobGasPrice: "0x3" };
    const receipt = await node({ eth_getTransactionReceipt: blob }).receipt(blob.transactionHash);
    expect(receipt!.fee).toBe(45_985n * 100_000_000n + 131_072n * 3n);
  });

  it("a receipt not yet mined is null", async () => {
    expect(await node({ eth_getTransactionReceipt: null }).receipt(RECEIPT.transactionHash)).toBeNull();
    expect(await node({ eth_getTransactionReceipt: { ...RECEIPT, blockNumber: null } }).receipt(RECEIPT.transactionHash)).toBeNull();
  });

  it("a revert is an ExecutionReverted; a node that did not answer is not", async () => {
    const reverted = Object.assign(new Error("execution reverted"), { code: 3, data: "0x" });
    await expect(node({ eth_call: reverted }).call({ to: RECEIPT.to, data: "0x313ce567" })).rejects.toBeInstanceOf(ExecutionReverted);
    const down = Object.assign(new Error("fetch failed"), { code: -32603 });
    const failure = node({ eth_call: down }).call({ to: RECEIPT.to, data: "0x313ce567" });
    await expect(failure).rejects.toBeInstanceOf(RpcError);
    await expect(failure).rejects.not.toBeInstanceOf(ExecutionReverted);
  });
});
