import type { ModuleDeps } from "../../engine/context";
import { formatUnits } from "../../money/amount";
import type { AssetRegistry } from "../../money/assets";
import type { LedgerEntryRecord, LedgerPageQuery } from "../../ports/storage";
import { isoTime } from "../../validation/timestamp";
import { PAYOUTS, type LegDoc } from "../payouts/payout-doc";
import { csvRecord } from "./report-csv";
import type { Metadata } from "../../metadata/metadata";
import type { ReportDoc, ReportType } from "./report-doc";

/** What building a report's rows takes: reads, and the asset registry to format amounts. */
export type ReportDeps = Pick<ModuleDeps, "storage" | "assets">;

type Row = (string | null)[];

/** What a report type reads and how one page of entries becomes its rows. */
interface ReportKind {
  /** The header row. */
  columns: readonly string[];
  /** Only entries of resources whose id starts with this (e.g. payouts). */
  resourcePrefix?: string;
  /** The rows of one page of entries, in the page's order (one row per entry). */
  rows(deps: ReportDeps, accountId: string, page: readonly LedgerEntryRecord[]): Promise<Row[]>;
}

/**
 * Formats of one page: entries of one posting share their time and asset, so the last ones are
 * kept (a million rows format in a fraction of the time, with less garbage).
 */
function pageFormats(assets: AssetRegistry) {
  let lastMs = Number.NaN;
  let lastIso = "";
  const decimals = new Map<string, number>();
  return {
    time(ms: number): string {
      if (ms !== lastMs) {
        lastMs = ms;
        lastIso = isoTime(ms);
      }
      return lastIso;
    },
    amount(units: bigint, asset: string): string {
      let d = decimals.get(asset);
      if (d === undefined) decimals.set(asset, (d = assets.get(asset)!.decimals));
      return formatUnits(units, d);
    },
  };
}

/** A `metadata` cell: the object's metadata as compact JSON (`{}` when none), or empty when there is no object. */
function metadataCell(metadata: unknown, found: boolean): string | null {
  return found ? JSON.stringify(metadata ?? {}) : null;
}

/**
 * Every entry of the account's own books: the ledger entry object, one column per field, and the
 * metadata of its resource (the page's resources are read in one statement).
 */
const LEDGER_ENTRIES: ReportKind = {
  columns: ["id", "created", "asset", "chain", "balance_type", "amount", "resource", "resource_metadata"],
  async rows(deps, accountId, page) {
    const ids = [...new Set(page.flatMap((e) => (e.resource ? [e.resource] : [])))];
    const records = ids.length ? await deps.storage.read((tx) => tx.resources.getMany(accountId, ids)) : [];
    // every kind keeps its metadata under the same key of its document, in every shape
    const metadataOf = new Map(records.map((r) => [r.id, (r.data as { metadata?: Metadata } | null)?.metadata]));
    const f = pageFormats(deps.assets);
    return page.map((e) => [
      e.id,
      f.time(e.created),
      e.asset,
      e.chain,
      e.book,
      f.amount(e.amount, e.asset),
      e.resource,
      metadataCell(e.resource ? metadataOf.get(e.resource) : undefined, e.resource !== null && metadataOf.has(e.resource)),
    ]);
  },
};

/**
 * The entries of payouts, each with its leg and the part of its amount that is network fee
 * (`LegDoc.entries`). The page's payouts are read in one statement.
 */
const PAYOUT_LEDGER: ReportKind = {
  columns: ["payout", "leg", "chain", "asset", "amount", "fee", "balance_type", "ledger_entry", "created", "metadata"],
  resourcePrefix: "po_",
  async rows(deps, accountId, page) {
    const ids = [...new Set(page.map((e) => e.resource!))];
    const payouts = await deps.storage.read((tx) => PAYOUTS.getMany(tx, accountId, ids));
    const legOf = new Map<string, { leg: LegDoc; fee: bigint }>();
    for (const payout of payouts.values()) {
      for (const leg of payout.legs) for (const entry of leg.entries ?? []) legOf.set(entry.id, { leg, fee: BigInt(entry.fee) });
    }
    const f = pageFormats(deps.assets);
    return page.map((e) => {
      const found = legOf.get(e.id);
      return [
        e.resource,
        found?.leg.id ?? null,
        e.chain,
        e.asset,
        f.amount(e.amount, e.asset),
        found ? f.amount(found.fee, e.asset) : null,
        e.book,
        e.id,
        f.time(e.created),
        metadataCell(payouts.get(e.resource!)?.metadata, payouts.has(e.resource!)),
      ];
    });
  },
};

export const REPORT_KINDS: Record<ReportType, ReportKind> = {
  ledger_entries: LEDGER_ENTRIES,
  payout_ledger: PAYOUT_LEDGER,
};

/**
 * The report's file as a stream of CSV chunks: the header, then one chunk per keyset page of
 * entries read oldest first, each page in a short transaction of its own, so a build holds no
 * transaction open and its memory is one page however long the window. `counted.rows` grows as
 * rows are produced.
 */
export async function* reportCsv(deps: ReportDeps, accountId: string, doc: ReportDoc, counted: { rows: number }, pageSize: number): AsyncGenerator<Uint8Array> {
  const kind = REPORT_KINDS[doc.type];
  yield Buffer.from(csvRecord(kind.columns));
  const query: Omit<LedgerPageQuery, "after"> = {
    accountId,
    order: "asc",
    createdLt: doc.createdLt,
    limit: pageSize,
    ...(doc.createdGte !== null ? { createdGte: doc.createdGte } : {}),
    ...(kind.resourcePrefix !== undefined ? { resourcePrefix: kind.resourcePrefix } : {}),
  };
  let after: LedgerPageQuery["after"];
  for (;;) {
    const page = await deps.storage.read((tx) => tx.ledger.pageEntries(after ? { ...query, after } : query));
    if (page.length === 0) return;
    const rows = await kind.rows(deps, accountId, page);
    let text = "";
    for (const row of rows) text += csvRecord(row);
    counted.rows += rows.length;
    yield Buffer.from(text);
    if (page.length < pageSize) return;
    const last = page[page.length - 1]!;
    after = { created: last.created, id: last.id };
  }
}
