/**
 * Deterministic price paths for the simulated venues: smooth value noise over time, the sum of a
 * few octaves, each interpolating seeded random values at its period's boundaries. Integer
 * arithmetic only (32-bit hashing, safe integers), so a seed and a moment give the same price on
 * every machine, and a test that advances a manual clock sees prices move reproducibly.
 */

/** One octave: a period and the largest move it contributes, in parts per billion. */
export interface Octave {
  periodMs: number;
  amplitudePpb: number;
}

/** How an asset's USD price wanders: three octaves from minutes to hours. */
export const VOLATILITY: Record<"stable" | "fx" | "crypto", readonly Octave[]> = {
  stable: [
    { periodMs: 60_000, amplitudePpb: 50_000 },
    { periodMs: 600_000, amplitudePpb: 100_000 },
    { periodMs: 7_200_000, amplitudePpb: 200_000 },
  ],
  fx: [
    { periodMs: 60_000, amplitudePpb: 200_000 },
    { periodMs: 600_000, amplitudePpb: 1_000_000 },
    { periodMs: 7_200_000, amplitudePpb: 3_000_000 },
  ],
  crypto: [
    { periodMs: 60_000, amplitudePpb: 2_000_000 },
    { periodMs: 600_000, amplitudePpb: 8_000_000 },
    { periodMs: 7_200_000, amplitudePpb: 25_000_000 },
  ],
};

/** A venue's own short-lived deviation from the market, on top of its fixed offset. */
export const VENUE_JITTER: readonly Octave[] = [{ periodMs: 20_000, amplitudePpb: 300_000 }];

const SMOOTH = 10_000;
const NOISE = 1_000_000;

function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A 32-bit hash of integers (murmur3's finaliser over a running mix); handles values above 2^32. */
export function hash32(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const v of values) {
    h = mix(h ^ (v >>> 0));
    h = mix(h ^ Math.floor(v / 0x1_0000_0000));
  }
  return h;
}

/** FNV-1a of a string, to key hashes by asset and venue names. */
export function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A seeded value in [-1e6, 1e6] for (key, octave, bucket). */
function node(seed: number, key: number, octave: number, bucket: number): number {
  return (hash32(seed, key, octave, bucket) % (2 * NOISE + 1)) - NOISE;
}

/**
 * The path's offset at `time` in parts per billion: within each octave, smoothstep
 * interpolation between the seeded values at the surrounding period boundaries.
 */
export function offsetPpb(seed: number, key: number, octaves: readonly Octave[], time: number): number {
  let total = 0;
  octaves.forEach((octave, o) => {
    const bucket = Math.floor(time / octave.periodMs);
    const into = time - bucket * octave.periodMs;
    const f = Math.floor((into * SMOOTH) / octave.periodMs);
    const s = Math.floor((f * f * (3 * SMOOTH - 2 * f)) / (SMOOTH * SMOOTH));
    const a = node(seed, key, o, bucket);
    const b = node(seed, key, o, bucket + 1);
    const n = Math.trunc((a * (SMOOTH - s) + b * s) / SMOOTH);
    total += Math.trunc((octave.amplitudePpb * n) / NOISE);
  });
  return total;
}
