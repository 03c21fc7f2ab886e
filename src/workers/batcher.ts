/**
 * Group commit: calls made at about the same time run as one batch. While `parallel` batches
 * run, new calls queue and go together in the next one, so under load many items share one
 * transaction (one round trip to begin, one to commit, one WAL flush) and with no load a call
 * runs at once, alone. `run` settles each item, in order: one item's failure is its own.
 */
export class Batcher<I, O> {
  private readonly queue: { item: I; resolve: (out: O) => void; reject: (e: unknown) => void }[] = [];
  private running = 0;

  constructor(
    private readonly run: (items: I[]) => Promise<PromiseSettledResult<O>[]>,
    private readonly options: { maxBatch: number; parallel: number },
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.options.parallel && this.queue.length) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.running++;
      this.run(batch.map((b) => b.item))
        .then(
          (outs) =>
            batch.forEach((b, i) => {
              const out = outs[i]!;
              if (out.status === "fulfilled") b.resolve(out.value);
              else b.reject(out.reason);
            }),
          (e: unknown) => batch.forEach((b) => b.reject(e)),
        )
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }
}

/**
 * A `Batcher` run for items that share one transaction: `write` runs them together; if that
 * fails, each runs again alone, so one bad item fails only itself. `write` yields one output per
 * item, in order.
 */
export async function togetherOrApart<I, O>(items: I[], write: (items: I[]) => Promise<O[]>): Promise<PromiseSettledResult<O>[]> {
  try {
    return (await write(items)).map((value) => ({ status: "fulfilled", value }));
  } catch (e) {
    if (items.length === 1) return [{ status: "rejected", reason: e }];
    return Promise.all(
      items.map((item) =>
        write([item]).then(
          ([value]): PromiseSettledResult<O> => ({ status: "fulfilled", value: value! }),
          (reason: unknown): PromiseSettledResult<O> => ({ status: "rejected", reason }),
        ),
      ),
    );
  }
}
