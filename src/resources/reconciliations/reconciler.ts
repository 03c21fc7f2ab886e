import { ok } from "neverthrow";
import { systemContext, type ModuleDeps } from "../../engine/context";
import { engineWideSubscribers } from "../../events/engine-wide";
import { formatAmount } from "../../money/amount";
import type { AssetDefinition } from "../../money/assets";
import type { ChainHoldings } from "../../ports/chain";
import type { ChainWatchers } from "../payment-intents/chain-watchers";
import { type BooksReading, booksSide, readBooks } from "./reconciliation-books";
import { RECONCILIATIONS, type ReconciliationDoc, presentReconciliation } from "./reconciliation-doc";

/** The event a drift emits (docs/decisions.md §12). */
export const DRIFT_DETECTED = "reconciliation.drift_detected";
/** Readings of the chain and the books tried before a run gives up on books that keep moving. */
const READINGS = 3;
/** A balanced reading of a chain and asset is kept at most this often by the scheduled runs (drift always). */
const BALANCED_KEPT_EVERY_MS = 3_600_000;

/** What a run came to: the records it made, or why it made none (money between the chain and the books it cannot state). */
export interface RunOutcome {
  records: ReconciliationDoc[];
  deferred: string | null;
}

const mode = (livemode: boolean) => (livemode ? "live" : "test");
const floatKey = (livemode: boolean, chain: string, asset: string) => `reconciliation.float:${mode(livemode)}:${chain}:${asset}`;
/** The latest reading of a chain and asset: `{id, status, created, at}` (what the next one compares with). */
const latestKey = (livemode: boolean, chain: string, asset: string) => `reconciliation.latest:${mode(livemode)}:${chain}:${asset}`;
/** Where the chain was read the last time it balanced: explanations look no further back. */
const balancedAtKey = (livemode: boolean, chain: string, asset: string) => `reconciliation.balanced_at:${mode(livemode)}:${chain}:${asset}`;

interface Latest {
  id: string;
  status: string;
  created: number;
  /** Where the chain was read (absent on the first records kept). */
  at?: string;
}

/** Whether chain position `a` is past `b` (block numbers, slots, heights: digits); other texts are never. */
function isLater(a: string, b: string): boolean {
  return /^[0-9]+$/.test(a) && /^[0-9]+$/.test(b) && BigInt(a) > BigInt(b);
}

/**
 * Compares what a chain's addresses hold with what the books say they should (docs/
 * reconciliation.md): per asset, `on_chain` (the adapter's `holdings`: the hot wallet and every
 * deposit address, read from the chain) against `in_books` (every account's balances, what the
 * operator holds for the network and for payers, less what was booked off chain, the network
 * fees paid, and the legs the chain carried before their finality, plus the operator's float).
 * The chain's deposits are read first, so the books know what the chain received; the books are
 * read before and after the chain, and a run whose books moved meanwhile reads again. While a
 * conversion executes at venues on the chain, the run waits for the next one.
 */
export class Reconciler {
  constructor(
    private readonly deps: Pick<ModuleDeps, "assets" | "chains" | "clock" | "house" | "ids" | "observer" | "storage" | "venues">,
    private readonly watchers: Pick<ChainWatchers, "poll">,
  ) {}

  /** The chains of a mode whose adapter reports its holdings (`ChainAdapter.holdings`). */
  chainsOf(livemode: boolean): string[] {
    return this.deps.chains.chains(livemode).filter((chain) => this.deps.chains.for(chain, livemode)?.holdings !== undefined);
  }

  /**
   * Reconciles every asset of `chain` in one mode. A scheduled run keeps a balanced reading at
   * most hourly per asset; a requested one (`keepAll`) keeps every reading.
   */
  async run(chain: string, livemode: boolean, keepAll: boolean): Promise<RunOutcome> {
    const adapter = this.deps.chains.for(chain, livemode);
    if (!adapter?.holdings) return { records: [], deferred: `no chain adapter of this mode reports what it holds on ${chain}` };
    const venuesOnChain = this.deps.venues.for(livemode).tradesOn(chain);
    const assets = this.deps.assets.list().filter((a) => a.chains.includes(chain));
    const since = await this.deps.storage.read(async (tx) => {
      const out = new Map<string, string | null>();
      for (const a of assets) out.set(a.code, await tx.meta.get(balancedAtKey(livemode, chain, a.code)));
      return out;
    });
    let reading: { books: BooksReading; held: Map<string, ChainHoldings> } | null = null;
    for (let i = 0; i < READINGS && !reading; i++) {
      // what the chain received is read into the books first
      await this.watchers.poll(chain, livemode);
      const books = await this.deps.storage.read((tx) => readBooks(tx, chain, livemode, venuesOnChain));
      if (books.converting) return { records: [], deferred: `a conversion is executing at venues on ${chain}: the next run compares` };
      const held = new Map<string, ChainHoldings>();
      for (const asset of assets) {
        const unbooked = books.unbooked.filter((l) => l.asset === asset.code).map((l) => l.transferId);
        const holdings = await adapter.holdings({ chain, asset: asset.code, unbooked, since: since.get(asset.code) ?? null });
        if (holdings) held.set(asset.code, holdings);
      }
      await this.watchers.poll(chain, livemode);
      const again = await this.deps.storage.read((tx) => readBooks(tx, chain, livemode, venuesOnChain));
      if (again.fingerprint === books.fingerprint) reading = { books, held };
    }
    if (!reading) return { records: [], deferred: `the books of ${chain} kept moving while the chain was read: the next run compares` };
    const ours = await this.knownAddresses([...reading.held.values()]);
    return this.keep(chain, livemode, assets, reading.books, reading.held, ours, keepAll);
  }

  /** The deposit addresses among those the adapters report that the engine issued (a simulation cannot tell its own). */
  private async knownAddresses(held: readonly ChainHoldings[]): Promise<Set<string>> {
    const addresses = [...new Set(held.flatMap((h) => h.depositAddresses.map((d) => d.address)))];
    const found = new Set<string>();
    for (let i = 0; i < addresses.length; i += 1_000) {
      for (const r of await this.deps.storage.read((tx) => tx.depositAddresses.find(addresses.slice(i, i + 1_000)))) found.add(r.address);
    }
    return found;
  }

  /** Computes each asset's reading and keeps it: records, the float, the event, the gauge, in one transaction of the house account. */
  private async keep(
    chain: string,
    livemode: boolean,
    assets: readonly AssetDefinition[],
    books: BooksReading,
    held: Map<string, ChainHoldings>,
    ours: Set<string>,
    keepAll: boolean,
  ): Promise<RunOutcome> {
    const house = this.deps.house[livemode ? "live" : "test"];
    const result = await this.deps.storage.command(systemContext(house, livemode), async (uow) => {
      const kept: ReconciliationDoc[] = [];
      for (const asset of assets) {
        const holdings = held.get(asset.code);
        if (!holdings) continue;
        // the float's key exists before it is locked, so two first readings at once take turns
        // (the second finds the first's float) instead of both taking one
        const key = floatKey(livemode, chain, asset.code);
        await uow.tx.meta.setIfAbsent(key, "");
        const floatText = await uow.tx.meta.get(key, { lock: true });
        const doc = this.reading(chain, livemode, asset, books, holdings, ours, floatText ? BigInt(floatText) : null, uow.now);
        if (doc.opening) await uow.tx.meta.set(key, doc.parts.float);
        const latestText = await uow.tx.meta.get(latestKey(livemode, chain, asset.code), { lock: true });
        const latest = latestText ? (JSON.parse(latestText) as Latest) : null;
        // a run that read the chain before another's but commits after it is not the latest reading
        if (latest?.at !== undefined && isLater(latest.at, doc.at)) continue;
        this.deps.observer.domainObserved?.({
          type: "reconciliation",
          chain,
          asset: asset.code,
          livemode,
          difference: Number(formatAmount(BigInt(doc.difference), asset)),
          drift: doc.status === "drift",
        });
        if (doc.status === "balanced") await uow.tx.meta.set(balancedAtKey(livemode, chain, asset.code), doc.at);
        const worthKeeping =
          keepAll ||
          doc.status === "drift" ||
          doc.opening ||
          latest === null ||
          latest.status !== "balanced" ||
          uow.now - latest.created >= BALANCED_KEPT_EVERY_MS;
        if (!worthKeeping) continue;
        await RECONCILIATIONS.insert(uow.tx, house, uow.now, [doc]);
        await uow.tx.meta.set(
          latestKey(livemode, chain, asset.code),
          JSON.stringify({ id: doc.id, status: doc.status, created: doc.created, at: doc.at } satisfies Latest),
        );
        if (doc.status === "drift") {
          const object = presentReconciliation(asset, doc);
          uow.emit(DRIFT_DETECTED, object, house);
          for (const account of await engineWideSubscribers(uow.tx, DRIFT_DETECTED, livemode)) {
            if (account !== house) uow.emit(DRIFT_DETECTED, object, account);
          }
        }
        kept.push(doc);
      }
      return ok(kept);
    });
    if (result.isErr()) throw result.error;
    return { records: result.value, deferred: null };
  }

  /** One asset's reading, computed (nothing kept yet). `float` null: the first reading, which takes it. */
  private reading(
    chain: string,
    livemode: boolean,
    asset: AssetDefinition,
    books: BooksReading,
    holdings: ChainHoldings,
    ours: Set<string>,
    float: bigint | null,
    now: number,
  ): ReconciliationDoc {
    const deposits = holdings.depositAddresses.filter((d) => ours.has(d.address));
    const onDeposits = deposits.reduce((sum, d) => sum + d.amount, 0n);
    const onChain = holdings.hotWallet.amount + onDeposits;
    const side = booksSide(books, asset.code, new Set(holdings.carried));
    const withoutFloat = side.balances + side.operatorFees + side.unallocated + side.offChain - holdings.feesPaid + side.inFlight;
    const excess = deposits.filter((d) => d.expected !== null && d.amount > d.expected!);
    const unread = excess.reduce((sum, d) => sum + d.amount - d.expected!, 0n);
    // the first reading takes what the hot wallet holds beyond the books as the operator's own;
    // money on a deposit address the adapter never read stays a difference, even then
    const opening = float === null;
    const theFloat = float ?? onChain - withoutFloat - unread;
    const inBooks = withoutFloat + theFloat;
    const difference = onChain - inBooks;
    return {
      id: this.deps.ids.next("rec"),
      livemode,
      chain,
      asset: asset.code,
      status: difference === 0n && excess.length === 0 ? "balanced" : "drift",
      onChain: onChain.toString(),
      inBooks: inBooks.toString(),
      difference: difference.toString(),
      at: holdings.at,
      hotWallet: { address: holdings.hotWallet.address, amount: holdings.hotWallet.amount.toString() },
      depositAddresses: onDeposits.toString(),
      parts: {
        balances: side.balances.toString(),
        operatorFees: side.operatorFees.toString(),
        unallocated: side.unallocated.toString(),
        offChain: side.offChain.toString(),
        networkFeesPaid: (-holdings.feesPaid).toString(),
        inFlight: side.inFlight.toString(),
        float: theFloat.toString(),
      },
      addresses: excess.map((d) => ({ address: d.address, amount: d.amount.toString(), expected: d.expected!.toString() })),
      unread: unread.toString(),
      unknownTransfers: holdings.unknownTransfers.map((t) => ({ txHash: t.txHash, address: t.address, amount: t.amount.toString(), at: t.at })),
      opening,
      accepted: null,
      metadata: { asset: asset.code },
      created: now,
    };
  }

  /**
   * The operator accepts a drift as their own (a top-up of the hot wallet, an outside payout they
   * made): its difference joins the float, so the next reading balances. Only the latest reading
   * of its chain and asset, and only once. What deposit addresses hold beyond the deposits read on
   * them is the payers' and never joins the float: it stays a drift until the deposit is handled.
   */
  async accept(livemode: boolean, id: string, reason: string): Promise<"accepted" | "missing" | "not_drift" | "accepted_already" | "superseded"> {
    const house = this.deps.house[livemode ? "live" : "test"];
    const result = await this.deps.storage.command(systemContext(house, livemode), async (uow) => {
      const stored = await RECONCILIATIONS.get(uow.tx, house, id, { lock: true });
      if (!stored) return ok("missing" as const);
      const doc = stored.doc;
      if (doc.status !== "drift") return ok("not_drift" as const);
      if (doc.accepted) return ok("accepted_already" as const);
      const latest = await uow.tx.meta.get(latestKey(livemode, doc.chain, doc.asset));
      if (!latest || (JSON.parse(latest) as Latest).id !== doc.id) return ok("superseded" as const);
      const key = floatKey(livemode, doc.chain, doc.asset);
      const float = BigInt((await uow.tx.meta.get(key, { lock: true })) || "0");
      await uow.tx.meta.set(key, (float + BigInt(doc.difference) - BigInt(doc.unread ?? "0")).toString());
      await RECONCILIATIONS.update(uow.tx, stored, { ...doc, accepted: { at: uow.now, reason } }, uow.now);
      return ok("accepted" as const);
    });
    if (result.isErr()) throw result.error;
    return result.value;
  }
}
