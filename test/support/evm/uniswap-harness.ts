import { keccak256 } from "viem";
import { custom } from "viem";
import { EvmChain } from "../../../adapters/chains/evm";
import { ManualClock } from "../../../adapters/clock";
import { MemoryStorage } from "../../../adapters/memory";
import { UniswapV2Venues } from "../../../adapters/venues/uniswap-v2";
import type { StorageAdapter } from "../../../src/ports/storage";
import { UNI_CHAIN, type UniswapWorld } from "./uniswap-world";

/** Called before the node sees a raw transaction: `drop` keeps it from the node (a crash before sending). */
export type SendHook = (raw: string, txHash: string) => Promise<"send" | "drop">;

export interface UniswapRig {
  chain: EvmChain;
  venues: UniswapV2Venues;
  storage: StorageAdapter;
  clock: ManualClock;
  /** Replaces the hook every raw transaction goes through (default: send). */
  onSend(hook: SendHook | null): void;
}

/**
 * An `EvmChain` and `UniswapV2Venues` on the world's node, over one storage, both through a
 * transport that lets a test see (and drop) every raw transaction before the node does.
 * `rig(w, { storage })` again on the same storage is the same engine restarted.
 */
export function uniswapRig(
  w: UniswapWorld,
  options: { storage?: StorageAdapter; clock?: ManualClock; waitMs?: number; finalityConfirmations?: number } = {},
): UniswapRig {
  const storage = options.storage ?? new MemoryStorage();
  const clock = options.clock ?? new ManualClock(Date.now());
  let hook: SendHook | null = null;
  const transport = custom({
    async request(args: { method: string; params?: unknown[] }) {
      if (args.method === "eth_sendRawTransaction" && hook) {
        const raw = (args.params as string[])[0]!;
        if ((await hook(raw, keccak256(raw as `0x${string}`))) === "drop") throw new Error("the process died before sending");
      }
      return w.node.provider.request(args);
    },
  });
  const { ETH: _weth, ...erc20 } = w.tokens;
  const chain = new EvmChain({
    chain: UNI_CHAIN,
    transport,
    storage,
    signer: w.signer,
    clock,
    tokens: erc20,
    finalityConfirmations: options.finalityConfirmations ?? 1,
    blockTimeMs: 100,
    chainId: 31337,
  });
  const venues = new UniswapV2Venues({
    chain,
    transport,
    storage,
    router: w.router,
    factory: w.factory,
    tokens: w.tokens,
    clock,
    pollMs: 5,
    waitMs: options.waitMs ?? 5_000,
  });
  return { chain, venues, storage, clock, onSend: (h) => (hook = h) };
}

/** Whether the EVM adapter's state holds a transaction under this hash (saved before it was sent). */
export async function savedTransaction(storage: StorageAdapter, txHash: string): Promise<boolean> {
  const key = `txhash/${UNI_CHAIN}/${txHash.toLowerCase()}`;
  return storage.adapterState("evm").transaction(async (tx) => (await tx.get([key])).has(key));
}
