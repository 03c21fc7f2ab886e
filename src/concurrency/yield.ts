/**
 * Lets the event loop read sockets and run timers before the caller goes on. Code that chains
 * promises alone (a loop over storage calls, a long validation) never lets a waiting request in;
 * `setImmediate` runs after the loop's I/O phase.
 */
export function yieldToIo(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Splits a long stretch of CPU work into turns of about `turnMs`: call `next()` between units of
 * work; it yields to I/O once the turn is used up, so no request waits longer than a turn behind it.
 */
export class Turns {
  private turnStart = performance.now();

  constructor(private readonly turnMs = 20) {}

  async next(): Promise<void> {
    if (performance.now() - this.turnStart < this.turnMs) return;
    await yieldToIo();
    this.turnStart = performance.now();
  }
}
