import type { ModuleDeps } from "../../engine/context";
import { formatUnits } from "../../money/amount";
import type { AssetRegistry } from "../../money/assets";
import type { LedgerEntryRecord, LedgerPageQuery } from "../../ports/storage";
import { isoTime } from "../../validation/timestamp";
import { PAYOUTS, type LegDoc } from "../payouts/payout-doc";
import { CsvPage, csvRecord, pageBuffers, type PageBuffers } from "./report-csv";
import type { Metadata } from "../../metadata/metadata";
import type { ReportDoc, ReportType } from "./report-doc";

/** What building a report's rows takes: reads, and the asset registry to format amounts. */
export type ReportDeps = Pick<ModuleDeps, "storage" | "assets">;

/** What a report type reads and how an entry becomes its record. */
interface ReportKind {
  /** The header row. */
  columns: readonly string[];
  /** Only entries of resources whose id starts with this (e.g. payouts). */
  resourcePrefix?: string;
  /**
   * Writes the entry's record into the page, as a hole each cell that depends on records other
   * than the entry (its resource's), keyed so that `fill` can answer it.
   */
  write(page: CsvPage, e: LedgerEntryRecord, f: PageFormats): void;
  /** Reads the page's resources (one statement) and answers each hole `write` left. */
  fill(deps: ReportDeps, accountId: string, resources: string[], f: PageFormats): Promise<(kind: number, key: string) => string | null>;
}

type PageFormats = ReturnType<typeof pageFormats>;

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

/** The holes of the report types' records. */
const METADATA = 0;
const LEG = 1;
const FEE = 2;

/**
 * Every entry of the account's own books: the ledger entry object, one column per field, and the
 * metadata of its resource (the page's resources are read in one statement).
 */
const LEDGER_ENTRIES: ReportKind = {
  columns: ["id", "created", "asset", "chain", "balance_type", "amount", "resource", "resource_metadata"],
  write(page, e, f) {
    page.cell(e.id);
    page.cell(f.time(e.created));
    page.cell(e.asset);
    page.cell(e.chain);
    page.cell(e.book);
    page.cell(f.amount(e.amount, e.asset));
    page.cell(e.resource);
    if (e.resource === null) page.cell(null);
    else page.hole(METADATA, e.resource);
    page.end();
  },
  async fill(deps, accountId, ids) {
    const records = ids.length ? await deps.storage.read((tx) => tx.resources.getMany(accountId, ids)) : [];
    // every kind keeps its metadata under the same key of its document, in every shape
    const metadataOf = new Map(records.map((r) => [r.id, (r.data as { metadata?: Metadata } | null)?.metadata]));
    return (_kind, resource) => metadataCell(metadataOf.get(resource), metadataOf.has(resource));
  },
};

/**
 * The entries of payouts, each with its leg and the part of its amount that is network fee
 * (`LegDoc.entries`). The page's payouts are read in one statement.
 */
const PAYOUT_LEDGER: ReportKind = {
  columns: ["payout", "leg", "chain", "asset", "amount", "fee", "balance_type", "ledger_entry", "created", "metadata"],
  resourcePrefix: "po_",
  write(page, e, f) {
    page.cell(e.resource);
    page.hole(LEG, e.id);
    page.cell(e.chain);
    page.cell(e.asset);
    page.cell(f.amount(e.amount, e.asset));
    page.hole(FEE, `${e.asset}\u0000${e.id}`);
    page.cell(e.book);
    page.cell(e.id);
    page.cell(f.time(e.created));
    page.hole(METADATA, e.resource!);
    page.end();
  },
  async fill(deps, accountId, ids, f) {
    const payouts = await deps.storage.read((tx) => PAYOUTS.getMany(tx, accountId, ids));
    const legOf = new Map<string, { leg: LegDoc; fee: bigint }>();
    for (const payout of payouts.values()) {
      for (const leg of payout.legs) for (const entry of leg.entries ?? []) legOf.set(entry.id, { leg, fee: BigInt(entry.fee) });
    }
    return (kind, key) => {
      if (kind === METADATA) return metadataCell(payouts.get(key)?.metadata, payouts.has(key));
      if (kind === LEG) return legOf.get(key)?.leg.id ?? null;
      const split = key.indexOf("\u0000");
      const found = legOf.get(key.slice(split + 1));
      return found ? f.amount(found.fee, key.slice(0, split)) : null;
    };
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
  const buffers = pageBuffers();
  for (;;) {
    const chunk = await csvPage(deps, accountId, kind, after ? { ...query, after } : query, buffers);
    if (chunk === null) return;
    counted.rows += chunk.rows;
    yield chunk.bytes;
    if (chunk.rows < pageSize) return;
    after = chunk.last;
  }
}

/**
 * One keyset page as CSV bytes, written in the build's `buffers`. Each entry is written as the
 * storage reads it and nothing of it stays on the JavaScript heap (its holes' keys are bytes
 * too): a page held whole until formatted lives through the young generation's collections, and
 * the old generation then keeps it as garbage until a full collection, which V8 puts off until
 * the old generation has grown by a multiple of the process's live heap (docs/performance.md,
 * "Reports in constant memory").
 */
async function csvPage(
  deps: ReportDeps,
  accountId: string,
  kind: ReportKind,
  query: LedgerPageQuery,
  buffers: PageBuffers,
): Promise<{ bytes: Uint8Array; rows: number; last: NonNullable<LedgerPageQuery["after"]> } | null> {
  const f = pageFormats(deps.assets);
  // a read the storage runs again starts the page over
  const read = await deps.storage.read(async (tx) => {
    const page = new CsvPage(buffers);
    let last: NonNullable<LedgerPageQuery["after"]> | null = null;
    await tx.ledger.pageEntriesEach(query, (e) => {
      kind.write(page, e, f);
      last = e;
    });
    return { page, last: last as NonNullable<LedgerPageQuery["after"]> | null };
  });
  if (read.last === null) return null;
  const fill = await kind.fill(deps, accountId, read.page.keys(METADATA), f);
  return { bytes: read.page.bytes(fill), rows: read.page.records, last: { created: read.last.created, id: read.last.id } };
}
