import { groupBy } from "../../collections/group-by";
import type { ChainDirectory } from "../../chains/chain-directory";
import type { ChainAdapter, OutboundTransfer, TransferStatus } from "../../ports/chain";
import type { LegEvent } from "./leg-machine";
import type { LegDoc, PayoutDoc } from "./payout-doc";

/**
 * The payout workers' calls to chains, outside any transaction: many at once where an adapter
 * can (`broadcastMany`, `transferStatusMany`), else one by one; a call that fails without
 * deciding anything is `Transient` and asked again later.
 */

/** A chain call that failed without deciding anything: asked again later. */
export type Transient = { transient: string };

/** What one send of a claimed leg came to. */
export type SendResult = { event: LegEvent } | Transient;

/**
 * Broadcasts the transfers, outcomes in the order given: one `broadcastMany` call per adapter
 * that has it, else one `broadcast` per transfer.
 */
export async function sendTransfers(chains: ChainDirectory, transfers: readonly OutboundTransfer[], livemode: boolean): Promise<SendResult[]> {
  const outcomes: SendResult[] = new Array(transfers.length);
  for (const [adapter, indices] of groupBy(transfers.keys(), (i) => chains.for(transfers[i]!.chain, livemode))) {
    const sent = await callEach(
      adapter,
      indices.map((i) => transfers[i]!),
      (a, many) => a.broadcastMany?.(many),
      (a, one) => a.broadcast(one),
    );
    indices.forEach((i, n) => {
      const outcome = sent[n]!;
      outcomes[i] =
        "transient" in outcome
          ? outcome
          : "txHash" in outcome
            ? { event: { type: "broadcast", txHash: outcome.txHash } }
            : { event: { type: "rejected", reason: outcome.rejected } };
    });
  }
  return outcomes;
}

/**
 * The chain statuses of broadcast transactions, in the order given: one `transferStatusMany`
 * call per chain whose adapter has it, else one `transferStatus` per transaction.
 */
export async function transferStatuses(
  chains: ChainDirectory,
  asked: readonly { chain: string; txHash: string }[],
  livemode: boolean,
): Promise<(TransferStatus | Transient)[]> {
  const out: (TransferStatus | Transient)[] = new Array(asked.length);
  for (const [chain, indices] of groupBy(asked.keys(), (i) => asked[i]!.chain)) {
    const found = await callEach(
      chains.for(chain, livemode),
      indices.map((i) => asked[i]!.txHash),
      (a, many) => a.transferStatusMany?.(chain, many),
      (a, one) => a.transferStatus(chain, one),
    );
    indices.forEach((i, n) => (out[i] = found[n]!));
  }
  return out;
}

/** The chain transfer of a leg: its id is the leg's, so a chain answers a repeat with the first outcome. */
export function transferOf(doc: PayoutDoc, leg: LegDoc): OutboundTransfer {
  return { transferId: leg.id, chain: leg.chain, asset: doc.asset, amount: BigInt(leg.amount), to: leg.address };
}

/**
 * A chain call for each item, in order: `many` once for all of them (undefined when the adapter
 * lacks that call), else `one` per item. An item whose call threw is `Transient`, and so is
 * every item when no adapter serves its chain now (the host removed it: the work keeps retrying,
 * money in flight is never left untracked).
 */
async function callEach<T, R>(
  adapter: ChainAdapter | null,
  items: T[],
  many: (adapter: ChainAdapter, items: T[]) => Promise<R[]> | undefined,
  one: (adapter: ChainAdapter, item: T) => Promise<R>,
): Promise<(R | Transient)[]> {
  const failed = (e: unknown): Transient => ({ transient: e instanceof Error ? e.message : String(e) });
  if (!adapter) return items.map(() => ({ transient: "no chain adapter serves this chain on this engine" }));
  try {
    const all = await many(adapter, items);
    if (all) return all;
  } catch (e) {
    return items.map(() => failed(e));
  }
  const out: (R | Transient)[] = [];
  for (const item of items) out.push(await one(adapter, item).catch(failed));
  return out;
}
