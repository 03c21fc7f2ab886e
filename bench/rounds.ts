/** Something a bench times in rounds: `round(count)` does `count` of its operations. */
export interface Side {
  round(count: number): Promise<unknown>;
}

/** A side's time over its rounds: wall and the process's CPU (`process.cpuUsage`, user and system), and each round's wall time. */
export interface Timed {
  wallMs: number;
  cpuMs: number;
  roundsMs: number[];
}

/**
 * `rounds` rounds of `perRound` operations of every side, taking turns: in the order given in
 * even rounds, reversed in odd ones, so that what the machine does meanwhile (a shared VM's
 * speed swings by half within minutes: docs/performance.md) falls on every side alike.
 */
export async function inTurns(sides: readonly Side[], rounds: number, perRound: number): Promise<Timed[]> {
  const timed = sides.map((): Timed => ({ wallMs: 0, cpuMs: 0, roundsMs: [] }));
  for (let r = 0; r < rounds; r++) {
    const order = sides.map((_, i) => i);
    for (const i of r % 2 ? order.reverse() : order) {
      const cpu = process.cpuUsage();
      const start = performance.now();
      await sides[i]!.round(perRound);
      const used = process.cpuUsage(cpu);
      const ms = performance.now() - start;
      timed[i]!.wallMs += ms;
      timed[i]!.cpuMs += (used.user + used.system) / 1000;
      timed[i]!.roundsMs.push(ms);
    }
  }
  return timed;
}
