import { groupBy } from "../../collections/group-by";
import type { ReadTx } from "../../engine/context";
import { COUNTER, isCustomerBook } from "../../ledger/postings";
import type { Book, ReservationRecord } from "../../ports/storage";
import { LIMIT_ORDERS } from "../limit-orders/limit-order-doc";
import { PAYOUTS } from "../payouts/payout-doc";

/** A leg the books still hold reserved: booked only at finality, though the chain may have carried it. */
export interface UnbookedLeg {
  transferId: string;
  asset: string;
  amount: bigint;
}

/** What the books say of one chain in one mode, read in one transaction. */
export interface BooksReading {
  /** Every account's books on the chain, per asset, then per book (base units, signed). */
  totals: Map<string, Map<Book, bigint>>;
  /** Legs between their claim and finality (`pending` or `broadcast`), with their reservations active. */
  unbooked: UnbookedLeg[];
  /**
   * A conversion is being executed at venues on this chain (a swap, or a limit order's fill):
   * its input or output may have moved on chain before the books post it, by an amount the
   * books cannot state until the venue answers.
   */
  converting: boolean;
  /** All of it as text: two readings with the same fingerprint are the same books. */
  fingerprint: string;
}

/** Books the operator holds on chain for others than the accounts' own balances (docs/reconciliation.md). */
const OPERATOR_FEES: readonly Book[] = [COUNTER.networkFees, "counter:platform_fees"];

/**
 * Reads what every account of the mode books on `chain` (`LedgerStore.listBalanceTotals`), the
 * legs its active reservations hold (payouts' own), and whether a conversion is executing there
 * (swaps and limit orders whose venues trade on the chain: `venuesOnChain`).
 */
export async function readBooks(tx: ReadTx, chain: string, livemode: boolean, venuesOnChain: boolean): Promise<BooksReading> {
  const totals = new Map<string, Map<Book, bigint>>();
  for (const row of await tx.ledger.listBalanceTotals({ livemode, chain })) {
    const books = totals.get(row.asset) ?? new Map<Book, bigint>();
    books.set(row.book, row.amount);
    totals.set(row.asset, books);
  }
  const reservations = await tx.ledger.listActiveReservations({ livemode, chain });
  const unbooked = await unbookedLegs(
    tx,
    reservations.filter((r) => r.resource?.startsWith("po_")),
  );
  const converting = venuesOnChain && (await conversionUnderWay(tx, reservations));
  const fingerprint = JSON.stringify({
    totals: [...totals].map(([asset, books]) => [asset, [...books].map(([book, amount]) => [book, amount.toString()])]),
    unbooked: unbooked.map((l) => `${l.transferId}:${l.amount}`),
    reservations: reservations.map((r) => `${r.id}:${r.remaining}`),
    converting,
  });
  return { totals, unbooked, converting, fingerprint };
}

/** The legs whose own reservations are among `reservations` (payouts'), not yet final nor failed. */
async function unbookedLegs(tx: ReadTx, reservations: readonly ReservationRecord[]): Promise<UnbookedLeg[]> {
  const legs: UnbookedLeg[] = [];
  for (const [accountId, theirs] of groupBy(reservations, (r) => r.accountId)) {
    const held = new Set(theirs.map((r) => r.id));
    const payouts = [...new Set(theirs.map((r) => r.resource!))];
    for (let i = 0; i < payouts.length; i += 500) {
      for (const doc of (await PAYOUTS.getMany(tx, accountId, payouts.slice(i, i + 500))).values()) {
        for (const leg of doc.legs) {
          if (held.has(leg.reservation) && (leg.status === "pending" || leg.status === "broadcast")) {
            legs.push({ transferId: leg.id, asset: doc.asset, amount: BigInt(leg.amount) });
          }
        }
      }
    }
  }
  return legs.sort((a, b) => (a.transferId < b.transferId ? -1 : a.transferId > b.transferId ? 1 : 0));
}

/** A swap still executing, or a limit order with a fill sent to its venues and not applied. */
async function conversionUnderWay(tx: ReadTx, reservations: readonly ReservationRecord[]): Promise<boolean> {
  if (reservations.some((r) => r.resource?.startsWith("sw_"))) return true;
  for (const [accountId, theirs] of groupBy(
    reservations.filter((r) => r.resource?.startsWith("lo_")),
    (r) => r.accountId,
  )) {
    const orders = await LIMIT_ORDERS.getMany(tx, accountId, [...new Set(theirs.map((r) => r.resource!))]);
    if ([...orders.values()].some((o) => o.pending !== null)) return true;
  }
  return false;
}

/** What the books say the chain's addresses should hold of `asset`, before the float, part by part. */
export interface BooksSide {
  balances: bigint;
  operatorFees: bigint;
  unallocated: bigint;
  offChain: bigint;
  inFlight: bigint;
}

/**
 * The parts of `in_books` the ledger gives for one asset: the accounts' own books; what the
 * operator holds for the network (fees customers paid) and for payers (deposits credited to no
 * one); what was booked without touching the chain, taken back out (test funding, and
 * conversions at venues off the chains, `counter:venues`: those on a chain post to
 * `counter:venues_on_chain`, which the chain shows); and the legs the chain carried (`carried`)
 * that the books still hold reserved.
 */
export function booksSide(reading: BooksReading, asset: string, carried: ReadonlySet<string>): BooksSide {
  const books = reading.totals.get(asset) ?? new Map<Book, bigint>();
  let balances = 0n;
  let operatorFees = 0n;
  for (const [book, amount] of books) {
    if (isCustomerBook(book)) balances += amount;
    else if (OPERATOR_FEES.includes(book)) operatorFees += amount;
  }
  const offChain = (books.get(COUNTER.external) ?? 0n) + (books.get(COUNTER.venues) ?? 0n);
  const inFlight = reading.unbooked.filter((l) => l.asset === asset && carried.has(l.transferId)).reduce((sum, l) => sum - l.amount, 0n);
  return { balances, operatorFees, unallocated: books.get(COUNTER.unallocated) ?? 0n, offChain, inFlight };
}
