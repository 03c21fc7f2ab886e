import type { Result } from "neverthrow";
import type { ApiError } from "../errors";
import { listPage, type ListEnvelope } from "../lists/list-page";
import type { ListParams } from "../lists/list-params";
import type { ResourceRecord, StorageTx } from "../ports/storage";
import type { ModuleDeps, ReadTx, RequestContext } from "./context";

/** What reading documents takes: the resources store of a transaction, read-only or not. */
type ResourceReads = Pick<ReadTx, "resources">;

/**
 * A resource kind kept in the generic `resources` table, and the one convention every resource
 * follows for it: the stored document is the resource's own shape (base units as decimal text,
 * epoch milliseconds, machine state), never its API object, which a presenter derives from it;
 * and the document carries the version of its shape, so a shape can change without a data
 * migration: documents written under an older version are upgraded as they are read.
 */
export interface DocKind<T> {
  /** Stored in the `kind` column; lists are per kind. */
  readonly kind: string;
  /** The version of the document's shape this code writes (1 for the first). */
  readonly version: number;
  /**
   * Reads a document written under an older `version` (`from`, 1 or more) as the current shape.
   * Required once `version` is above 1.
   */
  readonly upgrade?: (data: Record<string, unknown>, from: number) => T;
  readonly status: (doc: T) => string | null;
  readonly reference: (doc: T) => string | null;
}

/** A resource as read from storage: its document, and the row it came from (for the version). */
export interface Stored<T> {
  doc: T;
  record: ResourceRecord;
}

/** The key under which a stored document keeps the version of its shape. */
const SHAPE = "_v";

/**
 * Typed access to the `resources` table for one kind. Reads of another kind, or of another
 * account, find nothing, so an id of the wrong kind or account is simply `resource_missing`.
 */
export class DocStore<T extends { id: string }> {
  constructor(readonly type: DocKind<T>) {
    if (type.version > 1 && !type.upgrade) throw new TypeError(`${type.kind} documents of version ${type.version} need an upgrade`);
  }

  /**
   * The document in a stored record, upgraded to the current shape if it was written under an
   * older one. A current document is returned as stored (its `_v` included), without a copy:
   * reads are the hot path, and storage hands out records nobody may change.
   */
  read(record: ResourceRecord): T {
    const data = record.data as Record<string, unknown>;
    const written = data[SHAPE];
    const from = typeof written === "number" ? written : 1;
    if (from === this.type.version) return data as unknown as T;
    if (from > this.type.version) throw new Error(`${this.type.kind} ${record.id} was written by a newer engine (shape ${from})`);
    const { [SHAPE]: _, ...old } = data;
    return this.type.upgrade!(old, from);
  }

  private data(doc: T): unknown {
    return { ...doc, [SHAPE]: this.type.version };
  }

  async get(tx: ResourceReads, accountId: string, id: string, options: { lock?: boolean } = {}): Promise<Stored<T> | null> {
    return this.stored(await tx.resources.get(accountId, id, options));
  }

  /** A record read some other way (`AccountStore.getAccountWith`) as this kind's document, or null when it is of another kind. */
  stored(record: ResourceRecord | null): Stored<T> | null {
    return record && record.kind === this.type.kind ? { doc: this.read(record), record } : null;
  }

  /** Documents of this kind by id, read in one statement (no locks); missing ids are absent. */
  async getMany(tx: ResourceReads, accountId: string, ids: readonly string[]): Promise<Map<string, T>> {
    const found = new Map<string, T>();
    for (const record of await tx.resources.getMany(accountId, ids)) {
      if (record.kind === this.type.kind) found.set(record.id, this.read(record));
    }
    return found;
  }

  /**
   * Documents of this kind by id, locked for the rest of the transaction in one statement (in id
   * order); missing ids are absent.
   */
  async lockMany(tx: StorageTx, accountId: string, ids: readonly string[]): Promise<Map<string, Stored<T>>> {
    const found = new Map<string, Stored<T>>();
    for (const record of await tx.resources.getMany(accountId, ids, { lock: true })) {
      if (record.kind === this.type.kind) found.set(record.id, { doc: this.read(record), record });
    }
    return found;
  }

  /** Inserts new documents, created at `now`. */
  async insert(tx: StorageTx, accountId: string, now: number, docs: T[], created: (doc: T) => number = () => now): Promise<Stored<T>[]> {
    const records: ResourceRecord[] = docs.map((doc) => ({
      accountId,
      kind: this.type.kind,
      id: doc.id,
      created: created(doc),
      status: this.type.status(doc),
      reference: this.type.reference(doc),
      data: this.data(doc),
      version: 1,
      updated: now,
    }));
    await tx.resources.insert(records);
    return records.map((record, i) => ({ doc: docs[i]!, record }));
  }

  /**
   * Replaces a document read (and normally locked) in this transaction. A concurrent update in
   * between is a programmer error (the caller should have locked): it throws and rolls back.
   */
  async update(tx: StorageTx, stored: Stored<T>, doc: T, now: number): Promise<Stored<T>> {
    const record = this.nextRecord(stored, doc, now);
    if (!(await tx.resources.update(record))) {
      throw new Error(`${this.type.kind} ${doc.id} changed under an update (lock it before updating)`);
    }
    return { doc, record };
  }

  /**
   * Replaces many documents locked in this transaction (`lockMany`), in as few statements as the
   * adapter can; a version that moved meanwhile fails the transaction (see `update`).
   */
  async updateMany(tx: StorageTx, changes: readonly { stored: Stored<T>; doc: T }[], now: number): Promise<void> {
    await tx.resources.updateMany(changes.map(({ stored, doc }) => this.nextRecord(stored, doc, now)));
  }

  private nextRecord(stored: Stored<T>, doc: T, now: number): ResourceRecord {
    return {
      ...stored.record,
      status: this.type.status(doc),
      reference: this.type.reference(doc),
      data: this.data(doc),
      version: stored.record.version + 1,
      updated: now,
    };
  }

  /** Removes a document read in this transaction. */
  async delete(tx: StorageTx, stored: Stored<T>): Promise<void> {
    await tx.resources.delete(stored.record.accountId, stored.record.id);
  }

  /** A page of the list contract (docs/decisions.md §5) over this kind. */
  list<O>(
    deps: Pick<ModuleDeps, "cursors" | "storage">,
    ctx: RequestContext,
    params: ListParams & { status?: string },
    present: (doc: T) => O | Promise<O>,
    extraBinding?: Record<string, unknown>,
  ): Promise<Result<ListEnvelope<O>, ApiError>> {
    return listPage({
      codec: deps.cursors,
      accountId: ctx.accountId,
      list: this.type.kind,
      params,
      ...(params.status !== undefined ? { status: params.status } : {}),
      ...(extraBinding ? { extraBinding } : {}),
      fetch: (query) => deps.storage.read((tx) => tx.resources.list({ ...query, kind: this.type.kind })),
      position: (row) => ({ created: row.created, id: row.id }),
      present: (row) => present(this.read(row)),
    });
  }
}
