import { err, ok, type Result } from "neverthrow";
import { ApiError } from "../errors";
import { derivedId, type IdGenerator } from "../ids";
import type { AssetDefinition } from "../money/assets";
import { formatAmount } from "../money/amount";
import type { BalanceKey, BalanceRecord, Book, LedgerEntryRecord, ReservationRecord, StorageTx } from "../ports/storage";
import { COUNTER, isBalanced, isCustomerBook, reversal, transfer, type PostingLine } from "./postings";

/** A programmer mistake against the ledger's rules; thrown, so the transaction rolls back. */
export class LedgerInvariantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LedgerInvariantError";
  }
}

export interface PostRequest {
  accountId: string;
  /** The resource that caused the posting, recorded on every entry. */
  resource: string | null;
  /**
   * Names the step of the resource that posts (`leg_…:final`, `fill_…:settle`): the posting's id
   * is derived from (resource, transition), and storage keeps one posting per id, so a transition
   * applied twice fails instead of moving money twice. Postings of no resource get a fresh id.
   */
  transition: string;
  lines: PostingLine[];
}

/** Why `postMany` or `reserveMany` changed nothing: the first request refused, by its index. */
export interface Refusal {
  index: number;
  error: ApiError;
}

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
 * nothing) when a customer book would go below zero. Reservations move value from `available`
 * to `reserved` and resolve exactly once: captured in full, or released.
 */
export class Ledger {
  /** Balance rows this transaction has locked, as they stand after its postings. */
  private readonly rows = new Map<string, BalanceRecord>();
  private readonly touched = new Map<string, { accountId: string; asset: string }>();
  private readonly posted = new Map<string | null, LedgerEntryRecord[]>();
  /** Reservations this transaction has locked, as they stand after its captures and releases. */
  private readonly reservations = new Map<string, ReservationRecord>();

  constructor(
    private readonly tx: StorageTx,
    private readonly ids: IdGenerator,
    private readonly now: number,
    /** The house accounts: their books are the engine's, so their changes announce no balance. */
    private readonly isHouse: (accountId: string) => boolean = () => false,
  ) {}

  /** Entries this unit of work posted for `resource`, oldest first (what a resource lists as its own). */
  postedFor(resource: string): LedgerEntryRecord[] {
    return this.posted.get(resource) ?? [];
  }

  /** Every entry this unit of work posted (for metrics). */
  allPosted(): LedgerEntryRecord[] {
    return [...this.posted.values()].flat();
  }

  /** (account, asset) pairs whose balances this unit of work changed, for `balance.updated`. */
  touchedBalances(): { accountId: string; asset: string }[] {
    return [...this.touched.values()];
  }

  /**
   * Every balance row of an (account, asset) this transaction has locked, with its postings
   * applied: exact, because the whole asset stays locked until commit.
   */
  lockedRows(accountId: string, asset: string): BalanceRecord[] {
    return [...this.rows.values()].filter((r) => r.accountId === accountId && r.asset === asset);
  }

  async post(request: PostRequest): Promise<Result<LedgerEntryRecord[], ApiError>> {
    const posted = await this.postMany([request]);
    return posted.isOk() ? ok(posted.value[0]!) : err(posted.error.error);
  }

  /**
   * Posts several postings as one step, all or none: each is checked as if they were posted one
   * after another (no customer book below zero after any of them), and the first one refused
   * refuses them all, changing nothing, with its index. One lock and one storage call for all of
   * them, so bulk work (the reservations of a 25,000-leg batch) pays per posting only for the
   * entries themselves. `post` is this with one posting.
   */
  async postMany(requests: readonly PostRequest[]): Promise<Result<LedgerEntryRecord[][], Refusal>> {
    // each line's balance key, made once: a batch posts 50,000 lines in one call
    const postings: { request: PostRequest; lines: PostingLine[]; keys: string[] }[] = [];
    const keys = new Map<string, BalanceKey>();
    for (const request of requests) {
      const lines = request.lines.filter((l) => l.amount !== 0n);
      if (lines.length && !isBalanced(lines)) throw new LedgerInvariantError("posting does not net to zero per asset");
      const lineKeys = lines.map((line) => {
        const accountId = line.accountId ?? request.accountId;
        const k = keyText(accountId, line.asset, line.chain, line.book);
        if (!keys.has(k)) keys.set(k, { accountId, asset: line.asset, chain: line.chain, book: line.book });
        return k;
      });
      postings.push({ request, lines, keys: lineKeys });
    }
    if (keys.size === 0) return ok(postings.map(() => []));
    await this.lock([...keys.values()].sort(compareKeys));
    // each key's amount as the postings leave it, checked after every posting that moves it
    const after = new Map<string, bigint>();
    for (let index = 0; index < postings.length; index++) {
      const { lines, keys: lineKeys } = postings[index]!;
      lines.forEach((line, i) => after.set(lineKeys[i]!, (after.get(lineKeys[i]!) ?? this.rows.get(lineKeys[i]!)!.amount) + line.amount));
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        if (isCustomerBook(line.book) && after.get(lineKeys[i]!)! < 0n) {
          return err({ index, error: new ApiError("insufficient_funds", `Insufficient ${line.book} ${line.asset} on ${line.chain}`) });
        }
      }
    }
    const out: LedgerEntryRecord[][] = [];
    const all: LedgerEntryRecord[] = [];
    for (const { request, lines } of postings) {
      if (lines.length === 0) {
        out.push([]);
        continue;
      }
      const postingId = request.resource === null ? this.ids.next("pst") : derivedId("pst", request.resource, request.transition);
      const entries: LedgerEntryRecord[] = lines.map((line, i) => ({
        id: this.ids.next("le"),
        accountId: line.accountId ?? request.accountId,
        postingId,
        line: i,
        asset: line.asset,
        chain: line.chain,
        book: line.book,
        amount: line.amount,
        resource: request.resource,
        created: this.now,
      }));
      out.push(entries);
      all.push(...entries);
    }
    await this.tx.ledger.appendEntries(all);
    postings.forEach(({ request, lines }, index) => {
      const entries = out[index]!;
      if (!entries.length) return;
      const mine = this.posted.get(request.resource);
      if (mine) mine.push(...entries);
      else this.posted.set(request.resource, [...entries]);
      // `balance.updated` is for every customer account whose books moved (the posting's, or
      // another's, as a transfer between accounts moves both); the house accounts' are the engine's.
      for (const line of lines) {
        const accountId = line.accountId ?? request.accountId;
        if (isCustomerBook(line.book) && !this.isHouse(accountId)) {
          this.touched.set(`${accountId}\u0000${line.asset}`, { accountId, asset: line.asset });
        }
      }
    });
    for (const [k, amount] of after) this.rows.set(k, { ...this.rows.get(k)!, amount });
    return ok(out);
  }

  /** Funds from outside the system (test helpers, deposits made final elsewhere). */
  fund(accountId: string, asset: string, chain: string, amount: bigint, resource: string | null, transition = "fund") {
    return this.post({ accountId, resource, transition, lines: transfer(asset, chain, COUNTER.external, "available", amount) });
  }

  /**
   * Undoes a posting with new, opposite entries (history is never edited): for example a
   * deposit credit removed by a chain reorganisation. Refused with `insufficient_funds`, changing
   * nothing, when a customer book no longer holds what it would give back.
   */
  reverse(accountId: string, entries: readonly LedgerEntryRecord[], resource: string | null, transition: string) {
    if (entries.some((e) => e.accountId !== accountId)) throw new LedgerInvariantError("reversal across accounts");
    return this.post({
      accountId,
      resource,
      transition,
      lines: reversal(entries.map((e) => ({ asset: e.asset, chain: e.chain, book: e.book, amount: e.amount }))),
    });
  }

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
   * What is available of `asset` on each chain it lives on, with the asset's balance rows locked
   * for the rest of the transaction (so what it says still holds when this transaction posts).
   */
  async availableByChain(accountId: string, asset: AssetDefinition): Promise<Map<string, bigint>> {
    await this.lock(asset.chains.map((chain) => ({ accountId, asset: asset.code, chain, book: "available" as const })));
    const out = new Map<string, bigint>(asset.chains.map((chain) => [chain, 0n]));
    for (const row of this.lockedRows(accountId, asset.code)) {
      if (row.book === "available" && out.has(row.chain)) out.set(row.chain, row.amount);
    }
    return out;
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

  /** Locks the balance rows of the named keys' assets (once per transaction) and caches them. */
  private async lock(keys: BalanceKey[]): Promise<void> {
    if (keys.every((k) => this.rows.has(keyOf(k)))) return;
    for (const row of await this.tx.ledger.lockBalances(keys)) {
      if (!this.rows.has(keyOf(row))) this.rows.set(keyOf(row), row);
    }
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
      remaining === 0n
        ? { ...reservation, remaining: 0n, status: "resolved", resolvedAt: this.now }
        : { ...reservation, remaining };
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

function keyOf(key: BalanceKey): string {
  return keyText(key.accountId, key.asset, key.chain, key.book);
}

function keyText(accountId: string, asset: string, chain: string, book: string): string {
  return `${accountId}\u0000${asset}\u0000${chain}\u0000${book}`;
}

/** The one order in which balance rows are locked, everywhere. */
export function compareKeys(a: BalanceKey, b: BalanceKey): number {
  return (
    cmp(a.accountId, b.accountId) || cmp(a.asset, b.asset) || cmp(a.chain, b.chain) || cmp(a.book, b.book)
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
