import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

/**
 * A revoked or expired key never authenticates, and every other key does: random creates, rolls
 * with random grace periods (of live, expired and revoked keys), revokes and clock moves,
 * checked after each step against a model of every key ever made.
 */
interface ModelKey {
  id: string;
  secret: string;
  expiresAt: number | null;
  revoked: boolean;
}
interface Model {
  keys: ModelKey[];
}
interface Real {
  w: TestWorld;
}

const usable = (k: ModelKey, now: number) => !k.revoked && (k.expiresAt === null || now < k.expiresAt);

class Create implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    const made = (await r.w.engine.apiKeys.create(r.w.ctx, {}))._unsafeUnwrap();
    m.keys.push({ id: made.id, secret: made.secret!, expiresAt: null, revoked: false });
  }
  toString = () => "Create";
}

class Roll implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly grace: number,
  ) {}
  check = (m: Readonly<Model>) => m.keys.length > 0;
  async run(m: Model, r: Real) {
    const k = m.keys[this.pick % m.keys.length]!;
    const now = r.w.clock.now();
    const rolled = await r.w.engine.apiKeys.roll(r.w.ctx, k.id, { grace_period: this.grace });
    expect(rolled.isOk()).toBe(usable(k, now));
    if (rolled.isErr()) return;
    const until = now + this.grace * 1000;
    k.expiresAt = k.expiresAt === null ? until : Math.min(k.expiresAt, until);
    m.keys.push({ id: rolled.value.id, secret: rolled.value.secret!, expiresAt: null, revoked: false });
  }
  toString = () => `Roll(#${this.pick}, ${this.grace}s)`;
}

class Revoke implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => m.keys.length > 0;
  async run(m: Model, r: Real) {
    const k = m.keys[this.pick % m.keys.length]!;
    (await r.w.engine.apiKeys.revoke(r.w.ctx, k.id))._unsafeUnwrap();
    k.revoked = true;
  }
  toString = () => `Revoke(#${this.pick})`;
}

class Wait implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_: Model, r: Real) {
    r.w.clock.advance(this.ms);
  }
  toString = () => `Wait(${this.ms}ms)`;
}

async function checkAll(m: Model, r: Real): Promise<void> {
  const now = r.w.clock.now();
  for (const k of m.keys) {
    const auth = await r.w.engine.auth.authenticate(`Bearer ${k.secret}`);
    expect(auth.isOk(), `${k.id} (revoked ${k.revoked}, expires ${k.expiresAt}, now ${now})`).toBe(usable(k, now));
    const shown = (await r.w.engine.apiKeys.retrieve(r.w.ctx, k.id))._unsafeUnwrap();
    expect(shown.status).toBe(k.revoked ? "revoked" : usable(k, now) ? "active" : "expired");
  }
}

const commands = [
  fc.constant(new Create()),
  fc.tuple(fc.nat(50), fc.oneof(fc.constantFrom(0, 1, 60), fc.integer({ min: 0, max: 120 }))).map(([p, g]) => new Roll(p, g)),
  fc.nat(50).map((p) => new Revoke(p)),
  // whole seconds land exactly on a grace period's end
  fc
    .oneof(
      fc.integer({ min: 1, max: 130_000 }),
      fc.constantFrom(1, 999, 1000, 60_000),
      fc.integer({ min: 1, max: 120 }).map((x) => x * 1000),
    )
    .map((ms) => new Wait(ms)),
];

for (const [kind, runs] of storageKinds().map((k, i) => [k, i === 0 ? 100 : 5] as const)) {
  describe(`API key lifecycle on ${kind.name}`, () => {
    it("a revoked or expired key never authenticates; every other key does", async () => {
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { maxCommands: 30 }), async (cmds) => {
          const w = await testWorld(kind);
          try {
            const model: Model = { keys: [] };
            const real: Real = { w };
            await fc.asyncModelRun(
              () => ({ model, real }),
              [...cmds].flatMap((c) => [c, { check: () => true, run: checkAll, toString: () => "" } as fc.AsyncCommand<Model, Real>]),
            );
          } finally {
            await w.close();
          }
        }),
        { numRuns: runs, interruptAfterTimeLimit: 30_000, markInterruptAsFailure: true },
      );
    }, 60_000);
  });
}

afterAll(closeSharedStorage);
