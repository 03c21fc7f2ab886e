import { err, ok, type Result } from "neverthrow";
import { ApiError } from "../errors";
import { derivedId, type IdGenerator } from "../ids";
import type { AssetDefinition } from "../money/assets";
import type { BalanceKey, BalanceRecord, LedgerEntryRecord, StorageTx } from "../ports/storage";
import { keyOf, keyText, compareKeys } from "./balance-keys";
import { COUNTER, isBalanced, isCustomerBook, reversal, transfer, type PostingLine } from "./postings";

/** A programmer mistake against the ledger's rules; thrown, so the transaction rolls back. */
export class LedgerInvariantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LedgerInvariantError";
  }
}

/** One posting: its lines, the account it is for, and the step of the resource that makes it. */
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

/**
 * The posting half of the ledger (`Ledger` adds reservations): balance rows locked in key order
 * for the rest of the transaction and kept as its postings leave them, and postings checked
 * (each nets to zero per asset; no customer book below zero) and written, all or none.
 */
export class LedgerPostings {
  /** Balance rows this transaction has locked, as they stand after its postings. */
  private readonly rows = new Map<string, BalanceRecord>();
  private readonly touched = new Map<string, { accountId: string; asset: string }>();
  private readonly posted = new Map<string | null, LedgerEntryRecord[]>();

  constructor(
    protected readonly tx: StorageTx,
    protected readonly ids: IdGenerator,
    protected readonly now: number,
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

  /** Locks the balance rows of the named keys' assets (once per transaction) and caches them. */
  private async lock(keys: BalanceKey[]): Promise<void> {
    if (keys.every((k) => this.rows.has(keyOf(k)))) return;
    for (const row of await this.tx.ledger.lockBalances(keys)) {
      if (!this.rows.has(keyOf(row))) this.rows.set(keyOf(row), row);
    }
  }
}
