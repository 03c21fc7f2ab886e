/**
 * Turns on keys within one process, first come first served per key: `take` resolves once every
 * earlier taker of its keys has released them, or once `maxWaitMs` passed, whichever comes first,
 * and hands back the release.
 *
 * Advisory: a taker that waited `maxWaitMs` goes ahead anyway. It is meant to stand in front of
 * a lock that really decides (a database row lock), so callers of one process queue here, in
 * memory, instead of all waiting on the database at once; a wait cycle through locks these turns
 * cannot see (a database lock held by one, a turn by another) ends after `maxWaitMs`, and the
 * database then sees it, and breaks it, as it would have without the turns.
 */
export class KeyedTurns {
  /** Per key, what the next taker waits for: every earlier taker's release. */
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly maxWaitMs: number) {}

  /**
   * Takes the turns of `keys`: joins every key's line at once (so of two takers sharing a key,
   * the one that called first goes first on all of them), then waits for the takers ahead on
   * each. Call the result to give them back.
   */
  async take(keys: readonly string[]): Promise<() => void> {
    const ahead: Promise<void>[] = [];
    const releases: (() => void)[] = [];
    for (const key of new Set(keys)) {
      const before = this.tails.get(key);
      let release!: () => void;
      const mine = new Promise<void>((resolve) => (release = resolve));
      const tail = before ? before.then(() => mine) : mine;
      this.tails.set(key, tail);
      if (before) ahead.push(before);
      releases.push(() => {
        release();
        if (this.tails.get(key) === tail) this.tails.delete(key);
      });
    }
    if (ahead.length)
      await waitAtMost(
        Promise.all(ahead).then(() => undefined),
        this.maxWaitMs,
      );
    return () => {
      for (const release of releases) release();
    };
  }

  /** Keys with a taker now (for tests). */
  get busy(): number {
    return this.tails.size;
  }
}

/** Resolves when `p` does or after `ms`, whichever comes first. */
async function waitAtMost(p: Promise<void>, ms: number): Promise<void> {
  if (ms <= 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
