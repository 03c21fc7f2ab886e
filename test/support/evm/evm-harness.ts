import { randomBytes } from "node:crypto";
import { ManualClock } from "../../../adapters/clock";
import { EvmChain, MnemonicSigner } from "../../../adapters/chains/evm";
import { MemoryStorage } from "../../../adapters/memory";
import type { ChainHarness } from "../../../src/conformance/chain-conformance";
import type { StorageAdapter } from "../../../src/ports/storage";
import { EvmTestNode, TEST_MNEMONIC, inProcessNode } from "./evm-node";

export const TOKEN_DECIMALS = 6;
/** What the hot wallet is minted of the test token, and funded in ETH, at the start of a world. */
export const HOT_TOKENS = 1_000_000_000_000n;
export const HOT_ETH = 100n * 10n ** 18n;

export interface EvmWorld {
  node: EvmTestNode;
  token: string;
  /** A multisend contract every payer (1 to 3) approved for `token`. */
  disperse: string;
  signer: MnemonicSigner;
  hot: string;
  /** The chain as the snapshot left it; `restore()` brings it back (each test starts from it). */
  restore(): Promise<void>;
}

let world: Promise<EvmWorld> | null = null;

/**
 * The in-process hardhat chain of this test file with the test token deployed, the engine's hot
 * wallet funded in ETH and minted tokens, and a snapshot of that state to go back to.
 */
export function evmWorld(): Promise<EvmWorld> {
  world ??= (async () => {
    const node = new EvmTestNode(await inProcessNode());
    const signer = new MnemonicSigner(TEST_MNEMONIC);
    const hot = await signer.address(0);
    const token = await node.deployToken("USDC", TOKEN_DECIMALS);
    await node.mint(token, hot, HOT_TOKENS);
    await node.setBalance(hot, HOT_ETH);
    const disperse = await node.deployDisperse();
    for (const payer of [1, 2, 3]) {
      await node.mint(token, await node.account(payer), HOT_TOKENS);
      await node.tokenCall(token, "approve", [disperse, 2n ** 256n - 1n], await node.account(payer));
    }
    let snapshot = await node.snapshot();
    return {
      node,
      token,
      disperse,
      signer,
      hot,
      async restore() {
        await node.setAutomine(true);
        await node.revert(snapshot);
        snapshot = await node.snapshot(); // a snapshot is used up by reverting to it
      },
    };
  })();
  return world;
}

/** An `EvmChain` for `base` on the world's node, with fast test settings. */
export function evmChainOn(
  w: EvmWorld,
  options: { storage?: StorageAdapter; clock?: ManualClock; finalityConfirmations?: number; replaceAfterMs?: number } = {},
): { adapter: EvmChain; storage: StorageAdapter; clock: ManualClock } {
  const storage = options.storage ?? new MemoryStorage();
  const clock = options.clock ?? new ManualClock(Date.now());
  const adapter = new EvmChain({
    chain: "base",
    transport: w.node.transport,
    storage,
    signer: w.signer,
    clock,
    tokens: { USDC: w.token },
    finalityConfirmations: options.finalityConfirmations ?? 3,
    blockTimeMs: 100,
    feeRates: { USDC: "3000" },
    chainId: 31337,
    ...(options.replaceAfterMs !== undefined ? { replaceAfterMs: options.replaceAfterMs } : {}),
  });
  return { adapter, storage, clock };
}

export const randomAddress = () => `0x${randomBytes(20).toString("hex")}`;

/** The chain suite's harness on the EVM adapter against the in-process node. */
export async function evmHarness(): Promise<ChainHarness> {
  const w = await evmWorld();
  await w.restore();
  const { adapter } = evmChainOn(w);
  let lastPayment: { snapshot: string; head: number } | null = null;
  return {
    adapter,
    chain: "base",
    asset: "USDC",
    amount: 1_250_000n,
    recipient: async () => randomAddress(),
    mine: (blocks) => w.node.mine(blocks),
    async pay(address, amount) {
      lastPayment = { snapshot: await w.node.snapshot(), head: await w.node.head() };
      await w.node.pay(w.token, 1, address, amount);
    },
    async payMany(outputs) {
      lastPayment = { snapshot: await w.node.snapshot(), head: await w.node.head() };
      await w.node.payMany(w.token, w.disperse, 1, outputs);
    },
    async reorgLastPayment() {
      if (!lastPayment) throw new Error("no payment to reorganise away");
      const replaced = (await w.node.head()) - lastPayment.head;
      await w.node.revert(lastPayment.snapshot);
      await w.node.mine(replaced + 2); // a longer branch without the payment
    },
    balanceOf: (address) => w.node.tokenBalance(w.token, address),
    async failNext() {
      await w.node.tokenCall(w.token, "setReverting", [true]);
    },
    async close() {},
  };
}
