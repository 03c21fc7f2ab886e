import { describe, expect, it } from "vitest";
import type { AdapterStateStore, AdapterStateTx, StateEntry } from "../../ports/adapter-state";
import type { Json } from "../../ports/storage/json";
import { compareStateKeys, decodeCounter, encodeSortableUint } from "../../ports/state-keys";
import type { SuiteContext } from "./fixtures";

/**
 * `StorageAdapter.adapterState`: the ordered key-value seam where adapters keep state of their
 * own. Every method, ranges in byte order, counters, rollbacks, namespaces kept apart, and what
 * was stored read back through the inspector; with `concurrentTransactions`, locks and racing
 * inserts and increments between transactions open at the same time.
 */
export function adapterStateSuite(s: SuiteContext): void {
  const state = (namespace = "suite") => s.storage.adapterState(namespace);
  const run = <T>(fn: (tx: AdapterStateTx) => Promise<T>, namespace = "suite") => state(namespace).transaction(fn);
  // Time for a transaction that should be waiting to finish if it wrongly did not wait: the
  // storage serves five other transactions first (the suite takes time from no clock).
  const serveOthers = async () => {
    for (let i = 0; i < 5; i++) await run((tx) => tx.get(["elsewhere"]), "suite-others");
  };
  const stored = (namespace = "suite") => s.inspect.adapterState(namespace);
  const concurrent = (ctx: { skip: (note: string) => void }) => {
    if (s.storage.capabilities.concurrentTransactions) return true;
    ctx.skip("the adapter runs transactions one at a time (capabilities.concurrentTransactions is false)");
    return false;
  };

  describe("adapter state", () => {
    it("stores JSON values: put replaces, insert keeps what exists, get answers what exists, delete counts", async () => {
      const values: [string, Json][] = [
        ["null", null],
        ["true", true],
        ["zero", 0],
        ["negative", -1.5],
        ["empty", ""],
        ["text", 'unicode ✓ 𝄞 \u0000 "quoted" \\ back'],
        ["array", [1, "two", [3], { four: 4 }]],
        ["object", { b: 2, a: 1, nested: { list: [], empty: {} }, big: "123456789012345678901234567890" }],
      ];
      await run((tx) => tx.put(values));
      const all = await run((tx) => tx.get([...values.map(([k]) => k), "missing", "text"]));
      expect(all).toEqual(new Map(values));
      expect(await stored()).toEqual(sorted(values));

      // put: the last value of a key given twice; insert: the first, and never over an existing one
      await run((tx) =>
        tx.put([
          ["object", 1],
          ["object", 2],
          ["fresh", "x"],
        ]),
      );
      const inserted = await run((tx) =>
        tx.insert([
          ["null", "not stored"],
          ["new", { n: 1 }],
          ["new", { n: 2 }],
        ]),
      );
      expect(inserted).toEqual(
        new Map<string, unknown>([
          ["null", { value: null, inserted: false }],
          ["new", { value: { n: 1 }, inserted: true }],
        ]),
      );
      expect(await run((tx) => tx.get(["object", "null", "new"]))).toEqual(
        new Map<string, Json>([
          ["object", 2],
          ["null", null],
          ["new", { n: 1 }],
        ]),
      );

      expect(await run((tx) => tx.delete(["new", "new", "missing", "fresh"]))).toBe(2);
      expect(await run((tx) => tx.delete([]))).toBe(0);
      expect(await run((tx) => tx.get([]))).toEqual(new Map());
      expect((await stored()).map((e) => e.key)).toEqual(sorted(values).map((e) => e.key));
    });

    it("keeps values as data: changing what was given or what was read changes nothing stored", async () => {
      const value = { list: [1, 2], inner: { a: "b" } };
      await run((tx) => tx.put([["k", value]]));
      value.list.push(3);
      value.inner.a = "changed";
      const read = (await run((tx) => tx.get(["k"]))).get("k") as { list: number[]; inner: { a: string } };
      try {
        read.list.push(4);
        read.inner.a = "changed";
      } catch {
        // frozen values are fine too
      }
      expect((await run((tx) => tx.get(["k"]))).get("k")).toEqual({ list: [1, 2], inner: { a: "b" } });
      expect(await stored()).toEqual([{ key: "k", value: { list: [1, 2], inner: { a: "b" } } }]);
    });

    it("lists and deletes ranges in byte order (code points), not in a locale's order", async () => {
      // byte order puts "A" before "a", punctuation where its code is, U+E000 before U+1D11E
      // (UTF-16 code units would put the surrogate pair first) and "a" before "a/" before "a0"
      const keys = ["a", "a/", "a/b", "a/b/c", "a0", "a-b", "a_b", "ab", "A", "Z", "~", "é", "\uE000", "𝄞", "\uFFFD", "b/1", "b/2", "b/10"];
      await run((tx) => tx.put(keys.map((k) => [k, k])));
      const order = [...keys].sort(compareStateKeys);
      expect(order.indexOf("\uE000")).toBeLessThan(order.indexOf("𝄞"));
      const list = async (range: Parameters<AdapterStateTx["list"]>[0], options?: Parameters<AdapterStateTx["list"]>[1]) =>
        (await run((tx) => tx.list(range, options))).map((e) => e.key);
      expect(await list({})).toEqual(order);
      expect((await stored()).map((e) => e.key)).toEqual(order);
      expect(await list({ prefix: "a/" })).toEqual(["a/", "a/b", "a/b/c"]);
      expect(await list({ prefix: "a" })).toEqual(order.filter((k) => k.startsWith("a")));
      expect(await list({ from: "a/b", to: "ab" })).toEqual(order.filter((k) => compareStateKeys(k, "a/b") >= 0 && compareStateKeys(k, "ab") < 0));
      expect(await list({ prefix: "b/", from: "b/10" })).toEqual(["b/10", "b/2"]);
      expect(await list({ prefix: "a", to: "a0" })).toEqual(["a", "a-b", "a/", "a/b", "a/b/c"]);
      expect(await list({ from: "\uE000" })).toEqual(["\uE000", "\uFFFD", "𝄞"]);
      expect(await list({ prefix: "a" }, { reverse: true })).toEqual(order.filter((k) => k.startsWith("a")).reverse());
      expect(await list({ prefix: "a" }, { limit: 2 })).toEqual(["a", "a-b"]);
      expect(await list({ prefix: "a" }, { limit: 2, reverse: true })).toEqual(["ab", "a_b"]);
      expect(await list({ prefix: "a" }, { limit: 0 })).toEqual([]);
      expect(await list({ from: "b", to: "a" })).toEqual([]);
      expect(await list({ prefix: "a/", from: "b" })).toEqual([]);
      expect(await list({ prefix: "nothing/" })).toEqual([]);
      expect(await run((tx) => tx.list({ prefix: "b/1" }))).toEqual([
        { key: "b/1", value: "b/1" },
        { key: "b/10", value: "b/10" },
      ]);

      expect(await run((tx) => tx.deleteRange({ prefix: "a/" }))).toBe(3);
      expect(await run((tx) => tx.deleteRange({ from: "b/1", to: "b/2" }))).toBe(2);
      expect(await run((tx) => tx.deleteRange({ from: "z", to: "a" }))).toBe(0);
      expect((await stored()).map((e) => e.key)).toEqual(order.filter((k) => !k.startsWith("a/") && k !== "b/1" && k !== "b/10"));
      expect(await run((tx) => tx.deleteRange({}))).toBe(order.length - 5);
      expect(await stored()).toEqual([]);
    });

    it("reads numbers in key order through fixed-width keys", async () => {
      const heights = [0, 7, 10, 99, 100, 2 ** 40, Number.MAX_SAFE_INTEGER];
      await run((tx) => tx.put(heights.map((h) => [`h/${encodeSortableUint(h)}`, h])));
      const from = (await run((tx) => tx.list({ prefix: "h/", from: `h/${encodeSortableUint(10)}`, to: `h/${encodeSortableUint(2 ** 40)}` }))).map(
        (e) => e.value,
      );
      expect(from).toEqual([10, 99, 100]);
      expect((await run((tx) => tx.list({ prefix: "h/" }))).map((e) => e.value)).toEqual(heights);
    });

    it("counts: increments start at zero, take any sign, exceed 64 bits, add repeats in one call, and refuse a value that is no counter", async () => {
      expect(
        await run((tx) =>
          tx.increment([
            ["c/a", 5n],
            ["c/b", -3n],
            ["c/a", 2n],
            ["c/zero", 0n],
          ]),
        ),
      ).toEqual(
        new Map([
          ["c/a", 7n],
          ["c/b", -3n],
          ["c/zero", 0n],
        ]),
      );
      const big = 2n ** 70n;
      expect(await run((tx) => tx.increment([["c/b", big]]))).toEqual(new Map([["c/b", big - 3n]]));
      const read = await run((tx) => tx.get(["c/a", "c/b", "c/zero"]));
      expect([...read.values()].map(decodeCounter)).toEqual([7n, big - 3n, 0n]);
      expect(await stored()).toEqual([
        { key: "c/a", value: "7" },
        { key: "c/b", value: (big - 3n).toString() },
        { key: "c/zero", value: "0" },
      ]);
      expect(await run((tx) => tx.increment([]))).toEqual(new Map());
      await run((tx) =>
        tx.put([
          ["not/counter", { n: 1 }],
          ["not/number", 5],
          ["not/digits", "1.5"],
        ]),
      );
      for (const key of ["not/counter", "not/number", "not/digits"]) {
        await expect(
          run((tx) =>
            tx.increment([
              ["c/a", 1n],
              [key, 1n],
            ]),
          ),
        ).rejects.toThrow();
      }
      expect((await run((tx) => tx.get(["c/a"]))).get("c/a")).toBe("7");
    });

    it("sees its own writes inside a transaction, and many keys per call", async () => {
      const many = Array.from({ length: 1_000 }, (_, i) => [`m/${encodeSortableUint(i)}`, { i }] as const);
      const seen = await run(async (tx) => {
        await tx.put(many);
        const listed = await tx.list({ prefix: "m/" }, { limit: 3, reverse: true });
        await tx.delete([many[999]![0]]);
        const afterDelete = await tx.get([many[999]![0], many[998]![0]]);
        const inserted = await tx.insert(Array.from({ length: 300 }, (_, i) => [`m/${encodeSortableUint(800 + i)}`, { i: -1 }] as const));
        await tx.put([[many[0]![0], "replaced"]]);
        const first = await tx.get([many[0]![0]]);
        const counted = await tx.increment([["m/counter", 1n]]);
        const again = await tx.increment([["m/counter", 1n]]);
        return { listed, afterDelete, inserted, first, counted, again };
      });
      expect(seen.listed.map((e) => (e.value as { i: number }).i)).toEqual([999, 998, 997]);
      expect([...seen.afterDelete.keys()]).toEqual([many[998]![0]]);
      expect([...seen.inserted.values()].filter((a) => a.inserted)).toHaveLength(101); // 999 (deleted) and 1000 to 1099
      expect(seen.inserted.get(`m/${encodeSortableUint(800)}`)).toEqual({ value: { i: 800 }, inserted: false });
      expect(seen.first.get(many[0]![0])).toBe("replaced");
      expect([seen.counted.get("m/counter"), seen.again.get("m/counter")]).toEqual([1n, 2n]);
      expect(await stored()).toHaveLength(1_100 + 1);
    });

    it("rolls back everything a throwing transaction did, and rethrows its error", async () => {
      await run((tx) =>
        tx.put([
          ["keep", 1],
          ["gone", 2],
          ["range/a", 3],
          ["count", "10"],
        ]),
      );
      const before = await stored();
      const boom = new Error("boom");
      const thrown = await run(async (tx) => {
        await tx.put([
          ["keep", "changed"],
          ["new", 1],
        ]);
        await tx.insert([["inserted", 1]]);
        await tx.delete(["gone"]);
        await tx.deleteRange({ prefix: "range/" });
        await tx.increment([
          ["count", 5n],
          ["fresh-count", 1n],
        ]);
        await tx.list({});
        throw boom;
      }).catch((e: unknown) => e);
      expect(thrown).toBe(boom);
      expect(await stored()).toEqual(before);
      // and a later transaction works on the state as it was
      expect(await run((tx) => tx.increment([["count", 1n]]))).toEqual(new Map([["count", 11n]]));
    });

    it("keeps namespaces apart and refuses bad names and keys, writing nothing", async () => {
      await run(
        (tx) =>
          tx.put([
            ["shared/key", "one"],
            ["only/one", 1],
          ]),
        "one",
      );
      await run((tx) => tx.put([["shared/key", "two"]]), "two");
      expect(await run((tx) => tx.get(["shared/key", "only/one"]), "two")).toEqual(new Map([["shared/key", "two"]]));
      expect((await run((tx) => tx.list({}), "two")).map((e) => e.key)).toEqual(["shared/key"]);
      expect(await run((tx) => tx.deleteRange({}), "two")).toBe(1);
      expect(await stored("one")).toEqual([
        { key: "only/one", value: 1 },
        { key: "shared/key", value: "one" },
      ]);
      expect(await stored("two")).toEqual([]);
      const handle: AdapterStateStore = state("one");
      expect(handle.namespace).toBe("one");
      for (const bad of ["", "Upper", "with space", "-dash", "x".repeat(65), "a/b"]) {
        expect(() => s.storage.adapterState(bad)).toThrow(TypeError);
      }
      for (const bad of ["", "nul\u0000", "lone\uD800", "\uDC00x", "x".repeat(513)]) {
        await expect(
          run(
            (tx) =>
              tx.put([
                ["fine", 1],
                [bad, 1],
              ]),
            "one",
          ),
        ).rejects.toThrow(TypeError);
        await expect(run((tx) => tx.get([bad]), "one")).rejects.toThrow(TypeError);
        await expect(run((tx) => tx.insert([[bad, 1]]), "one")).rejects.toThrow(TypeError);
        await expect(run((tx) => tx.increment([[bad, 1n]]), "one")).rejects.toThrow(TypeError);
      }
      await run((tx) => tx.put([["x".repeat(512), "longest"]]), "one");
      expect((await stored("one")).map((e) => e.key)).toEqual(["only/one", "shared/key", "x".repeat(512)]);
    });

    it("never loses a concurrent increment, and of racing inserts of one key exactly one inserts", async () => {
      await Promise.all(
        Array.from({ length: 12 }, () =>
          run((tx) =>
            tx.increment([
              ["burst", 2n],
              ["burst/other", 1n],
            ]),
          ),
        ),
      );
      expect(await stored()).toEqual([
        { key: "burst", value: "24" },
        { key: "burst/other", value: "12" },
      ]);
      const racers = await Promise.all(
        ["a", "b", "c", "d"].map((who) =>
          run((tx) =>
            tx.insert([
              ["race", who],
              [`mine/${who}`, who],
            ]),
          ),
        ),
      );
      const winners = racers.filter((r) => r.get("race")!.inserted);
      expect(winners).toHaveLength(1);
      expect(new Set(racers.map((r) => r.get("race")!.value))).toEqual(new Set([winners[0]!.get("race")!.value]));
    });

    it("with concurrentTransactions: a locked key makes the others wait, and only them", async (ctx) => {
      if (!concurrent(ctx)) return;
      await run((tx) =>
        tx.put([
          ["locked", 1],
          ["free", 1],
        ]),
      );
      const first = held();
      const holder = run(async (tx) => {
        await tx.get(["locked"], { lock: true });
        first.entered();
        await first.release;
        await tx.put([["locked", 2]]);
      });
      await first.inside;
      let waited = false;
      const waiter = run(async (tx) => (await tx.get(["locked"], { lock: true })).get("locked")).then((v) => {
        waited = true;
        return v;
      });
      // a transaction that touches another key commits meanwhile
      await run((tx) => tx.put([["free", 2]]));
      await serveOthers();
      expect(waited).toBe(false);
      first.open();
      await holder;
      expect(await waiter).toBe(2); // it read the row as the holder committed it
    });

    it("with concurrentTransactions: an increment waits for the transaction holding the counter, and adds to its value", async (ctx) => {
      if (!concurrent(ctx)) return;
      const first = held();
      const holder = run(async (tx) => {
        await tx.increment([["counter", 5n]]);
        first.entered();
        await first.release;
      });
      await first.inside;
      let done = false;
      const second = run((tx) => tx.increment([["counter", 1n]])).then((v) => {
        done = true;
        return v;
      });
      await serveOthers();
      expect(done).toBe(false);
      first.open();
      await holder;
      expect((await second).get("counter")).toBe(6n);
    });

    it("with concurrentTransactions: a racing insert waits for the other transaction, then answers its value, or inserts if it rolled back", async (ctx) => {
      if (!concurrent(ctx)) return;
      for (const outcome of ["commit", "rollback"] as const) {
        const key = `raced/${outcome}`;
        const first = held();
        const holder = run(async (tx) => {
          await tx.insert([[key, "first"]]);
          first.entered();
          await first.release;
          if (outcome === "rollback") throw new Error("rolled back");
        }).catch(() => undefined);
        await first.inside;
        let done = false;
        const second = run((tx) => tx.insert([[key, "second"]])).then((v) => {
          done = true;
          return v;
        });
        await serveOthers();
        expect(done).toBe(false);
        first.open();
        await holder;
        expect((await second).get(key)).toEqual(outcome === "commit" ? { value: "first", inserted: false } : { value: "second", inserted: true });
      }
    });
  });
}

function sorted(entries: [string, Json][]): StateEntry[] {
  return [...entries].sort(([a], [b]) => compareStateKeys(a, b)).map(([key, value]) => ({ key, value }));
}

/** A transaction held open until `open()`: `inside` resolves once it called `entered()`. */
function held() {
  let entered!: () => void;
  let open!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  const release = new Promise<void>((r) => (open = r));
  return { entered, inside, release, open };
}
