import { err, ok, type Result } from "neverthrow";
import { ApiError } from "../errors";
import type { AssetDefinition } from "../money/assets";
import { formatAmount } from "../money/amount";
import type { Book, LedgerEntryRecord, ReservationRecord } from "../ports/storage";
import { LedgerInvariantError, LedgerPostings, type Refusal } from "./ledger-postings";
import { transfer, type PostingLine } from "./postings";

// the ledger's vocabulary, imported from here across the engine
export { LedgerInvariantError, type PostRequest, type Refusal } from "./ledger-postings";

/** A reservation to make: `amount` of `asset` on `chain` moved from available to reserved. */
export interface ReserveRequest {
  accountId: string;
  asset: AssetDefinition;
  chain: string;
  amount: bigint;
  resource: string | null;
}

/**
 * Double-entry postings inside one storage transaction. Every posting nets to zero per asset,
 * takes its balance-row locks in key order, and is refused with `insufficient_funds` (changing
 * nothing) when a customer book would go below zero (`LedgerPostings`). Reservations move value
 * from `available` to `reserved` and resolve exactly once: captured in full, or released.
 */
export class Ledger extends LedgerPostings {
  /** Reservations this transaction has locked, as they stand after its captures and releases. */
  private readonly reservations = new Map<string, ReservationRecord>();

  /** Moves `amount` from available to reserved and records the reservation. */
  async reserve(request: ReserveRequest): Promise<Result<ReservationRecord, ApiError>> {
    const reserved = await this.reserveMany([request]);
    return reserved.isOk() ? ok(reserved.value[0]!.reservation) : err(reserved.error.error);
  }

  /**
   * Reserves each request as `reserve` would, all or none (see `postMany`): one posting and one
   * reservation per request, with one lock and one storage call of each kind for all of them.
   * Returns each reservation with the entries of its posting; a shortage refuses them all with
   * the index of the first request that does not fit after the ones before it.
   */
  async reserveMany(requests: readonly ReserveRequest[]): Promise<Result<{ reservation: ReservationRecord; entries: LedgerEntryRecord[] }[], Refusal>> {
    const ids = requests.map(() => this.ids.next("rsv"));
    const posted = await this.postMany(
      requests.map(({ accountId, asset, chain, amount, resource }, i) => ({
        accountId,
        resource,
        transition: `reserve:${ids[i]}`,
        lines: transfer(asset.code, chain, "available", "reserved", amount),
      })),
    );
    if (posted.isErr()) {
      const { index } = posted.error;
      const { asset, chain, amount } = requests[index]!;
      const message = `Insufficient available ${asset.code} on ${chain} to reserve ${formatAmount(amount, asset)}`;
      return err({ index, error: new ApiError("insufficient_funds", message) });
    }
    const reservations: ReservationRecord[] = requests.map(({ accountId, asset, chain, amount, resource }, i) => ({
      id: ids[i]!,
      accountId,
      asset: asset.code,
      chain,
      amount,
      remaining: amount,
      status: "active",
      resource,
      created: this.now,
      resolvedAt: null,
    }));
    await this.tx.ledger.insertReservations(reservations);
    // new: no one else can see them yet
    for (const r of reservations) this.reservations.set(reservationKey(r.accountId, r.id), r);
    return ok(reservations.map((reservation, i) => ({ reservation, entries: posted.value[i]! })));
  }

  /**
   * Spends `amount` of a reservation into `to`: a counter-account (outbound, venues, fees) of
   * the reservation's account, or a book of another account (the house account's earnings).
   * With `final`, whatever remains is released and the reservation resolves; without it the
   * reservation resolves only when nothing remains. `transition` names the step (see `post`).
   */
  async capture(
    accountId: string,
    reservationId: string,
    amount: bigint,
    to: Book | { accountId: string; book: Book },
    options: { transition: string; final?: boolean; resource?: string | null },
  ): Promise<Result<ReservationRecord, ApiError>> {
    const reservation = await this.activeReservation(accountId, reservationId);
    if (amount < 0n || amount > reservation.remaining) {
      throw new LedgerInvariantError(`capture of ${amount} exceeds the ${reservation.remaining} reserved`);
    }
    const resource = options.resource === undefined ? reservation.resource : options.resource;
    const lines: PostingLine[] = [];
    if (amount > 0n) {
      const [from, into] = transfer(reservation.asset, reservation.chain, "reserved", typeof to === "string" ? to : to.book, amount);
      lines.push(from!, typeof to === "string" ? into! : { ...into!, accountId: to.accountId });
    }
    const left = reservation.remaining - amount;
    if (options.final && left > 0n) {
      lines.push(...transfer(reservation.asset, reservation.chain, "reserved", "available", left));
    }
    const posted = await this.post({ accountId, resource, transition: options.transition, lines });
    if (posted.isErr()) throw new LedgerInvariantError("reserved book short of an active reservation");
    const remaining = options.final ? 0n : left;
    return ok(await this.saveReservation(reservation, remaining));
  }

  /** Releases everything a reservation still holds back to available; it resolves (once). */
  async release(accountId: string, reservationId: string): Promise<Result<ReservationRecord, ApiError>> {
    const reservation = await this.activeReservation(accountId, reservationId);
    if (reservation.remaining > 0n) {
      const posted = await this.post({
        accountId,
        resource: reservation.resource,
        transition: `release:${reservation.id}`,
        lines: transfer(reservation.asset, reservation.chain, "reserved", "available", reservation.remaining),
      });
      if (posted.isErr()) throw new LedgerInvariantError("reserved book short of an active reservation");
    }
    return ok(await this.saveReservation(reservation, 0n));
  }

  /**
   * Reserves `amount` of an asset held on several chains, drawing from the chains with the most
   * available first (ties by chain name), so an order touches as few chains as it can. One
   * reservation per chain drawn from; `insufficient_funds`, changing nothing, when the asset's
   * available total is short.
   */
  async reserveAcrossChains(request: Omit<ReserveRequest, "chain">): Promise<Result<ReservationRecord[], ApiError>> {
    const { accountId, asset, amount, resource } = request;
    const plan = drawLargestFirst(await this.availableByChain(accountId, asset), amount);
    if (!plan) {
      return err(new ApiError("insufficient_funds", `Insufficient available ${asset.code} for ${formatAmount(amount, asset)}`));
    }
    const reservations: ReservationRecord[] = [];
    for (const { chain, amount: part } of plan) {
      const reserved = await this.reserve({ accountId, asset, chain, amount: part, resource });
      if (reserved.isErr()) throw new LedgerInvariantError("available changed under a lock");
      reservations.push(reserved.value);
    }
    return ok(reservations);
  }

  /**
   * Locks these reservations of the account in one statement, ahead of the captures and releases
   * a use case will make of many of them (a chunk of a batch settling), which then need no
   * statement of their own to find them.
   */
  async lockReservations(accountId: string, ids: readonly string[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.reservations.has(reservationKey(accountId, id)));
    if (missing.length === 0) return;
    for (const r of await this.tx.ledger.lockReservations(accountId, missing)) this.reservations.set(reservationKey(accountId, r.id), r);
  }

  private async activeReservation(accountId: string, id: string): Promise<ReservationRecord> {
    const key = reservationKey(accountId, id);
    const reservation = this.reservations.get(key) ?? (await this.tx.ledger.lockReservation(accountId, id));
    if (!reservation) throw new LedgerInvariantError(`reservation ${id} does not exist`);
    this.reservations.set(key, reservation);
    if (reservation.status !== "active") throw new LedgerInvariantError(`reservation ${id} is already resolved`);
    return reservation;
  }

  private async saveReservation(reservation: ReservationRecord, remaining: bigint): Promise<ReservationRecord> {
    const updated: ReservationRecord =
      remaining === 0n ? { ...reservation, remaining: 0n, status: "resolved", resolvedAt: this.now } : { ...reservation, remaining };
    await this.tx.ledger.updateReservation(updated);
    this.reservations.set(reservationKey(updated.accountId, updated.id), updated);
    return updated;
  }
}

/**
 * How `amount` is drawn from per-chain balances: largest available first, ties by chain name;
 * null when they do not cover it. Parts are positive and sum exactly to `amount`.
 */
export function drawLargestFirst(available: ReadonlyMap<string, bigint>, amount: bigint): { chain: string; amount: bigint }[] | null {
  const chains = [...available].sort(([a, x], [b, y]) => (x === y ? (a < b ? -1 : a > b ? 1 : 0) : x > y ? -1 : 1));
  const plan: { chain: string; amount: bigint }[] = [];
  let left = amount;
  for (const [chain, held] of chains) {
    if (left === 0n) break;
    if (held <= 0n) continue;
    const take = held < left ? held : left;
    plan.push({ chain, amount: take });
    left -= take;
  }
  return left === 0n ? plan : null;
}

/** A reservation's key in the transaction's cache of locked reservations. */
function reservationKey(accountId: string, id: string): string {
  return `${accountId}\u0000${id}`;
}
