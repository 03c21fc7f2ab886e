import {
  type Instruction,
  type TransactionSigner,
  type KeyPairSigner,
  address,
  appendTransactionMessageInstructions,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64Encoder,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from "@solana-program/token";
import { ManualClock } from "../../../adapters/clock";
import { MnemonicSolanaSigner, SolanaChain, associatedTokenAccount } from "../../../adapters/chains/solana";
import { MemoryStorage } from "../../../adapters/memory";
import type { ChainHarness } from "../../../src/conformance/chain-conformance";
import type { StorageAdapter } from "../../../src/ports/storage";
import { TEST_MNEMONIC } from "../evm/evm-node";
import { SvmNode } from "./svm-node";
import { startSvmRpc } from "./svm-rpc";

export const USDC_DECIMALS = 6;
/** What the hot wallet holds at the start of a world: USDC base units and lamports. */
export const HOT_USDC = 1_000_000_000_000n;
export const HOT_LAMPORTS = 100n * 10n ** 9n;
/** The rent-exempt minimum of an SPL token account (what creating an ATA costs). */
export const ATA_RENT = 2_039_280n;

export const solanaSigner = new MnemonicSolanaSigner(TEST_MNEMONIC);

/**
 * A Solana world for one test: an `SvmNode` (litesvm) behind the JSON-RPC server on loopback, a
 * USDC mint, the engine's hot wallet (key 0 of the test mnemonic) funded with SOL and USDC, and
 * a payer outside the engine holding both.
 */
export interface SolanaWorld {
  node: SvmNode;
  rpc: Awaited<ReturnType<typeof startSvmRpc>>;
  mint: string;
  hot: string;
  payer: KeyPairSigner;
  /** Held sends, lost sends: what the server does before it answers (set per test). */
  onRequest: { fn: ((method: string, params: unknown[]) => Promise<void> | void) | null };
  /**
   * The payer sends `amount` of USDC (or SOL) to `owner`, creating its ATA; lands in a block of
   * its own. `viaLookupTable`: the destination is loaded from an address lookup table (a v0
   * transaction as aggregators send them), not listed in the message's own keys.
   */
  pay(owner: string, amount: bigint, asset?: "USDC" | "SOL", options?: { viaLookupTable?: boolean }): Promise<string>;
  /**
   * The payer sends one transaction with an instruction per output (an exchange's batched
   * withdrawal): USDC outputs create each owner's ATA once, then transfer; SOL outputs are system
   * transfers. The same owner may appear more than once, assets mixed.
   */
  payMany(outputs: readonly { owner: string; amount: bigint; asset?: "USDC" | "SOL" }[], options?: { from?: TransactionSigner }): Promise<string>;
  usdcOf(owner: string): Promise<bigint>;
  close(): Promise<void>;
}

export async function solanaWorld(options: { finalityDepth?: number; blockhashValidity?: number } = {}): Promise<SolanaWorld> {
  const node = new SvmNode(options.finalityDepth ?? 4, options.blockhashValidity ?? 10);
  const world = { node } as { node: SvmNode };
  const onRequest: SolanaWorld["onRequest"] = { fn: null };
  const rpc = await startSvmRpc(() => world.node, { onRequest: (m, p) => onRequest.fn?.(m, p) });
  const mintKey = await generateKeyPairSigner();
  const mint = mintKey.address as string;
  const hot = await solanaSigner.address(0);
  const payer = await generateKeyPairSigner();
  node.setMint(mint, USDC_DECIMALS, mint);
  node.airdrop(hot, HOT_LAMPORTS);
  node.setTokenAccount(await associatedTokenAccount(hot, mint), mint, hot, HOT_USDC);
  node.airdrop(payer.address, HOT_LAMPORTS);
  node.setTokenAccount(await associatedTokenAccount(payer.address, mint), mint, payer.address, HOT_USDC);
  node.mine(1);

  /** One transaction of the payer's with the outputs' instructions; `viaLookupTable`: that output's destination loaded from a table. */
  const send = async (
    outputs: readonly { owner: string; amount: bigint; asset?: "USDC" | "SOL" }[],
    viaLookupTable: { owner: string; asset: "USDC" | "SOL" } | null,
    from: TransactionSigner = payer,
  ): Promise<string> => {
    const n = world.node;
    const { blockhash, lastValidBlockHeight } = n.latestBlockhash("confirmed");
    const created = new Set<string>();
    const ixs: Instruction[] = [];
    for (const { owner, amount, asset = "USDC" } of outputs) {
      if (asset === "SOL") {
        ixs.push(getTransferSolInstruction({ source: from, destination: address(owner), amount }));
        continue;
      }
      const ata = await associatedTokenAccount(owner, mint);
      if (!created.has(ata)) {
        created.add(ata);
        ixs.push(getCreateAssociatedTokenIdempotentInstruction({ payer: from, ata: address(ata), owner: address(owner), mint: address(mint) }));
      }
      ixs.push(
        getTransferCheckedInstruction({
          source: address(await associatedTokenAccount(from.address, mint)),
          mint: address(mint),
          destination: address(ata),
          authority: from,
          amount,
          decimals: USDC_DECIMALS,
        }),
      );
    }
    let message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(from, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as never, lastValidBlockHeight: BigInt(lastValidBlockHeight) }, m),
      (m) => appendTransactionMessageInstructions(ixs, m),
    );
    if (viaLookupTable) {
      const table = (await generateKeyPairSigner()).address;
      const destination = viaLookupTable.asset === "SOL" ? viaLookupTable.owner : await associatedTokenAccount(viaLookupTable.owner, mint);
      n.setLookupTable(table, [destination]);
      message = compressTransactionMessageUsingAddressLookupTables(message, { [table]: [address(destination)] }) as typeof message;
    }
    const tx = await signTransactionMessageWithSigners(message);
    const wire = new Uint8Array(getBase64Encoder().encode(getBase64EncodedWireTransaction(tx)));
    const sig = n.send(wire);
    if (!n.landed.has(sig) && !n.holdSends) throw new Error(`the payment did not land: ${sig}`);
    return sig;
  };

  return {
    get node() {
      return world.node;
    },
    rpc,
    mint,
    hot,
    payer,
    onRequest,
    pay(owner, amount, asset = "USDC", options = {}) {
      return send([{ owner, amount, asset }], options.viaLookupTable ? { owner, asset } : null);
    },
    payMany(outputs, options = {}) {
      return send(outputs, null, options.from);
    },
    async usdcOf(owner) {
      return world.node.tokenBalance(await associatedTokenAccount(owner, mint));
    },
    async close() {
      await rpc.close();
    },
  };
}

/** A `SolanaChain` on the world's RPC server, with test settings. */
export function solanaChainOn(
  w: SolanaWorld,
  options: { storage?: StorageAdapter; clock?: ManualClock; signaturesPerCall?: number } = {},
): { adapter: SolanaChain; storage: StorageAdapter; clock: ManualClock } {
  const storage = options.storage ?? new MemoryStorage();
  const clock = options.clock ?? new ManualClock(Date.now());
  const adapter = new SolanaChain({
    rpcUrl: w.rpc.url,
    storage,
    signer: solanaSigner,
    clock,
    tokens: { USDC: w.mint },
    finalityConfirmations: w.node.finalityDepth,
    blockTimeMs: 400,
    feeRates: { USDC: "150" },
    ...(options.signaturesPerCall ? { signaturesPerCall: options.signaturesPerCall } : {}),
  });
  return { adapter, storage, clock };
}

export const randomSolanaAddress = async () => (await generateKeyPairSigner()).address as string;

/** The chain suite's harness on the Solana adapter against litesvm behind the JSON-RPC server. */
export async function solanaHarness(storage?: { storage: StorageAdapter; close(): Promise<void> }): Promise<ChainHarness> {
  const w = await solanaWorld();
  if (storage) await storage.storage.init();
  const { adapter } = solanaChainOn(w, storage ? { storage: storage.storage } : {});
  let before: ReturnType<SvmNode["snapshot"]> | null = null;
  return {
    adapter,
    chain: "solana",
    asset: "USDC",
    amount: 1_250_000n,
    recipient: randomSolanaAddress,
    mine: async (blocks) => w.node.mine(blocks),
    async pay(owner, amount) {
      before = w.node.snapshot();
      await w.pay(owner, amount);
    },
    async payMany(outputs) {
      before = w.node.snapshot();
      await w.payMany(outputs.map((o) => ({ owner: o.address, amount: o.amount })));
    },
    async reorgLastPayment() {
      if (!before) throw new Error("no payment to drop");
      w.node.dropFork(before);
    },
    balanceOf: (owner) => w.usdcOf(owner),
    async failNext() {
      // the hot wallet's token account frozen: the Token program refuses every transfer out of it
      w.node.setTokenAccount(await associatedTokenAccount(w.hot, w.mint), w.mint, w.hot, HOT_USDC, true);
    },
    async close() {
      await w.close();
      await storage?.close();
    },
  };
}
