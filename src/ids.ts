import { hash, randomBytes } from "node:crypto";
import type { Clock } from "./ports/clock";

/**
 * An id prefix: the engine's own (`CORE_ID_PREFIXES`) or one a module declares
 * (`ResourceModule.ids`), 2 to 8 lowercase letters.
 */
export type IdPrefix = string;

/** Bytes of randomness; the default reads the operating system's CSPRNG. */
export type RandomSource = (size: number) => Uint8Array;

export const cryptoRandom: RandomSource = (size) => randomBytes(size);

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lowercase
const TIME_CHARS = 10; // 50 bits: milliseconds until the year 10889
const RANDOM_CHARS = 16; // 80 bits

/**
 * Makes prefixed, time-ordered ids (docs/decisions.md §1): `<prefix>_` + 10 base32 characters of the
 * clock's milliseconds + 16 of randomness. Within one millisecond the random part is incremented,
 * so ids from one generator are strictly increasing and `(created, id)` is a total order.
 */
export class IdGenerator {
  private lastTime = -1;
  private lastRandom: number[] = [];
  /** `lastTime` and `lastRandom` as their id characters (a batch makes 150,000 ids in one millisecond). */
  private timeText = "";
  private randomText = "";

  /**
   * With `prefixes` (the engine's catalogue), minting an id of any other prefix throws: every
   * prefix in use is declared by the engine or by a module, once.
   */
  constructor(
    private readonly clock: Clock,
    private readonly random: RandomSource = cryptoRandom,
    private readonly prefixes?: { has(prefix: string): boolean },
  ) {}

  next(prefix: IdPrefix): string {
    if (this.prefixes && !this.prefixes.has(prefix)) throw new TypeError(`id prefix ${prefix} is declared by no module`);
    const now = this.clock.now();
    if (now === this.lastTime) {
      this.increment();
    } else {
      this.lastTime = now;
      this.timeText = encodeTime(now);
      const bytes = this.random(RANDOM_CHARS);
      this.lastRandom = Array.from(bytes, (b) => b & 31);
      this.randomText = this.lastRandom.map((d) => ALPHABET[d]).join("");
    }
    return `${prefix}_${this.timeText}${this.randomText}`;
  }

  private increment(): void {
    for (let i = this.lastRandom.length - 1; i >= 0; i--) {
      if (this.lastRandom[i]! < 31) {
        this.lastRandom[i]! += 1;
        // the digits after i wrapped to 0, whose character is "0"
        this.randomText = this.randomText.slice(0, i) + ALPHABET[this.lastRandom[i]!] + "0".repeat(this.lastRandom.length - 1 - i);
        return;
      }
      this.lastRandom[i] = 0;
    }
    this.randomText = "0".repeat(this.lastRandom.length);
  }
}

function encodeTime(ms: number): string {
  let value = Math.max(0, Math.floor(ms));
  let out = "";
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[value % 32] + out;
    value = Math.floor(value / 32);
  }
  return out;
}

/**
 * An id derived from `parts` (same parts, same id): `<prefix>_` + 26 base32 characters of their
 * SHA-256. For things that must exist once per cause, such as the ledger posting of one
 * transition of one resource; not time-ordered.
 */
export function derivedId(prefix: IdPrefix, ...parts: string[]): string {
  const digest = hash("sha256", parts.join("\u0000"), "buffer");
  let out = "";
  for (let i = 0; i < TIME_CHARS + RANDOM_CHARS; i++) out += ALPHABET[digest[i]! & 31];
  return `${prefix}_${out}`;
}

/** Random url-safe text of `bytes` bytes, for secrets and API keys. */
export function randomToken(random: RandomSource, bytes: number): string {
  return Buffer.from(random(bytes)).toString("base64url");
}
