import type { StorageCapabilities } from "../ports/storage";

/** How a `GroupCommit` sizes its batches. */
export interface GroupCommitOptions {
  /** Items one batch takes at most where storage runs transactions side by side (a server). */
  maxBatch: number;
  /**
   * Items one batch takes at most where storage runs one transaction at a time (PGlite, memory):
   * few enough that a request never waits long behind one. Default `maxBatch`.
   */
  oneAtATime?: number;
  /** Batches running at once at most. */
  parallel: number;
}

/** An item waiting for its batch, and how to settle its caller. */
interface Waiting<I, O> {
  item: I;
  resolve: (out: O) => void;
  reject: (e: unknown) => void;
}

/**
 * Group commit: items submitted at about the same time are written as one batch, one
 * transaction for many (one round trip to begin, one to commit, one WAL flush). While `parallel`
 * batches run, new items queue and go together in the next one, so under load many items share
 * a transaction, and with no load an item is written at once, alone. A batch is written
 * together; if that fails, each of its items is written again alone, so one bad item fails only
 * itself. Every item settles exactly once, with its own output (`write` yields one per item, in
 * order) or its own error.
 */
export class GroupCommit<I, O> {
  /** Items one batch takes at most, for the storage it writes to. */
  readonly maxBatch: number;
  /** Batches running at once at most. */
  readonly parallel: number;
  private readonly queue: Waiting<I, O>[] = [];
  private running = 0;

  /**
   * `write` writes items in one transaction and yields one output per item, in their order;
   * `capabilities` are those of the storage it writes to (see `GroupCommitOptions`).
   */
  constructor(
    capabilities: Pick<StorageCapabilities, "concurrentTransactions">,
    options: GroupCommitOptions,
    private readonly write: (items: I[]) => Promise<O[]>,
  ) {
    this.maxBatch = capabilities.concurrentTransactions ? options.maxBatch : (options.oneAtATime ?? options.maxBatch);
    this.parallel = options.parallel;
    if (!(this.maxBatch >= 1) || !(this.parallel >= 1)) throw new RangeError("a group commit needs batches of at least one item, and one batch at a time");
  }

  /** Queues `item` for the next batch; settles with its output, or with the error of writing it alone. */
  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.parallel && this.queue.length) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.running++;
      void this.settle(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  /** Writes `batch` together, or else each item alone; its slot is free once every item settled. */
  private async settle(batch: Waiting<I, O>[]): Promise<void> {
    let outs: O[];
    try {
      outs = await this.writeAll(batch.map((b) => b.item));
    } catch (e) {
      if (batch.length === 1) return batch[0]!.reject(e);
      await Promise.all(
        batch.map((b) =>
          this.writeAll([b.item]).then(
            ([out]) => b.resolve(out!),
            (reason: unknown) => b.reject(reason),
          ),
        ),
      );
      return;
    }
    batch.forEach((b, i) => b.resolve(outs[i]!));
  }

  /** `write`, held to its contract: an output per item (else the items cannot be told apart). */
  private async writeAll(items: I[]): Promise<O[]> {
    const outs = await this.write(items);
    if (outs.length !== items.length) throw new Error(`a group commit's write yielded ${outs.length} outputs for ${items.length} items`);
    return outs;
  }
}
