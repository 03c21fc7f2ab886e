import { describe, expect, it } from "vitest";
import { ManualClock } from "../adapters/clock";
import { IdGenerator } from "../src/ids";

describe("ids", () => {
  it("are prefixed, 26 lowercase base32 characters, and strictly increasing within a millisecond", () => {
    const clock = new ManualClock();
    const ids = new IdGenerator(clock);
    const made = Array.from({ length: 1000 }, () => ids.next("po"));
    for (const id of made) expect(id).toMatch(/^po_[0-9a-hjkmnp-tv-z]{26}$/);
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
  });

  it("order by time across milliseconds", () => {
    const clock = new ManualClock();
    const ids = new IdGenerator(clock);
    const a = ids.next("evt");
    clock.advance(1);
    const b = ids.next("evt");
    clock.advance(86_400_000);
    const c = ids.next("evt");
    expect(a < b && b < c).toBe(true);
  });

  it("are reproducible under a seeded random source", () => {
    const seeded = () => {
      let n = 7;
      return (size: number) => Uint8Array.from({ length: size }, () => (n = (n * 1103515245 + 12345) % 2 ** 31) & 255);
    };
    const one = new IdGenerator(new ManualClock(), seeded());
    const two = new IdGenerator(new ManualClock(), seeded());
    expect([one.next("po"), one.next("po")]).toEqual([two.next("po"), two.next("po")]);
  });
});

describe("ids within one millisecond", () => {
  it("count up in base32 from the random start, carrying across digits, exactly as the digits say", () => {
    // a random start of all 31s but the last two: the increments carry through every digit
    const start = Uint8Array.from({ length: 16 }, (_, i) => (i < 14 ? 31 : 30));
    const ids = new IdGenerator(new ManualClock(), () => start);
    const made = Array.from({ length: 70 }, () => ids.next("le").slice(13));
    const alphabet = "0123456789abcdefghjkmnpqrstvwxyz";
    const value = (text: string) => [...text].reduce((n, c) => n * 32n + BigInt(alphabet.indexOf(c)), 0n);
    const first = value(made[0]!);
    made.forEach((text, i) => expect(value(text)).toBe((first + BigInt(i)) % 32n ** 16n));
    expect(made).toContain("0000000000000000");
  });
});
