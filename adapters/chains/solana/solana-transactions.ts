import {
  type Address,
  type Base64EncodedWireTransaction,
  type Instruction,
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from "@solana-program/compute-budget";
import { getTransferSolInstruction } from "@solana-program/system";
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from "@solana-program/token";
import type { SolanaPlan } from "./solana-state";

/** The most compute units a transaction may ask for: the limit simulations run under. */
export const MAX_COMPUTE_UNITS = 1_400_000;

/** The instructions of a plan: the compute budget first, then the transfer (and the ATA it needs). */
export function instructionsOf(plan: SolanaPlan, feePayer: string): Instruction[] {
  const budget: Instruction[] = [
    getSetComputeUnitLimitInstruction({ units: plan.computeUnits }),
    getSetComputeUnitPriceInstruction({ microLamports: BigInt(plan.microLamports) }),
  ];
  if (plan.type === "sol") {
    return [
      ...budget,
      getTransferSolInstruction({ source: createNoopSigner(address(plan.from)), destination: address(plan.to), amount: BigInt(plan.lamports) }),
    ];
  }
  const create = plan.createDestination
    ? [
        getCreateAssociatedTokenIdempotentInstruction({
          payer: createNoopSigner(address(feePayer)),
          ata: address(plan.destination),
          owner: address(plan.destinationOwner),
          mint: address(plan.mint),
        }),
      ]
    : [];
  return [
    ...budget,
    ...create,
    getTransferCheckedInstruction({
      source: address(plan.source),
      mint: address(plan.mint),
      destination: address(plan.destination),
      authority: createNoopSigner(address(plan.owner)),
      amount: BigInt(plan.amount),
      decimals: plan.decimals,
    }),
  ];
}

/**
 * Compiles a plan into a transaction with `feePayer` and a blockhash lifetime, and signs it with
 * `sign` (called once per required signer, by address). Unsigned signers are left zero, which is
 * what a simulation without signature checks takes.
 */
export async function buildTransaction(
  plan: SolanaPlan,
  feePayer: string,
  lifetime: { blockhash: string; lastValidBlockHeight: bigint },
  sign: ((signer: Address, message: Uint8Array) => Promise<Uint8Array>) | null,
): Promise<{ wire: Base64EncodedWireTransaction; signature: string }> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(feePayer), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime as never, m),
    (m) => appendTransactionMessageInstructions(instructionsOf(plan, feePayer), m),
  );
  const compiled = compileTransaction(message);
  const signatures: Record<string, Uint8Array | null> = { ...compiled.signatures };
  if (sign) {
    for (const signer of Object.keys(signatures)) {
      const bytes = await sign(address(signer), new Uint8Array(compiled.messageBytes));
      if (bytes.length !== 64) throw new Error("the signer answered a signature that is not 64 bytes");
      signatures[signer] = bytes;
    }
  }
  const tx = { ...compiled, signatures } as typeof compiled;
  const first = signatures[feePayer];
  return {
    wire: getBase64EncodedWireTransaction(tx),
    signature: first ? getBase58Decoder().decode(first) : "",
  };
}
