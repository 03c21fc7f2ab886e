// Plain JavaScript: the database thread (pglite-worker.mjs) runs it as it is. Types: in-turn.d.mts.

/**
 * Calls that run one after another, in the order they were made, whether or not their caller
 * waited for the one before (see in-turn.d.mts).
 * @returns {<T>(fn: () => Promise<T>) => Promise<T>}
 */
export function inTurns() {
  /** @type {Promise<unknown>} */
  let last = Promise.resolve();
  return (fn) => {
    const result = last.then(fn);
    last = result.catch(() => undefined);
    return result;
  };
}
