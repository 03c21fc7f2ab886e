import fc from "fast-check";
import { ok } from "neverthrow";
import { afterAll, describe, expect, it } from "vitest";
import { CursorCodec } from "../../src/lists/cursor-codec";
import { type ListEnvelope, listPage, pagedList } from "../../src/lists/list-page";
import type { ListParams } from "../../src/lists/list-params";
import type { ResourceRecord } from "../../src/ports/storage";
import { closeSharedStorage, storageKinds } from "../support/storage";

const codec = new CursorCodec(Buffer.from("0123456789abcdef0123456789abcdef"));
const ACCOUNT = "acct_paging";
const T0 = Date.UTC(2026, 0, 1);

/** Rows with few distinct times (ties broken by id), two statuses and references, and a row of another kind. */
const rowsArb = fc
  .uniqueArray(fc.integer({ min: 0, max: 9_999 }), { maxLength: 45 })
  .chain((ids) =>
    fc.tuple(
      fc.constant(ids),
      fc.array(fc.record({ created: fc.integer({ min: 0, max: 8 }), status: fc.constantFrom("open", "done"), ref: fc.constantFrom("inv-a", "inv-b", null) }), {
        minLength: ids.length,
        maxLength: ids.length,
      }),
    ),
  )
  .map(([ids, fields]) =>
    ids.map((n, i): ResourceRecord => {
      const f = fields[i]!;
      return {
        accountId: ACCOUNT,
        kind: i % 11 === 10 ? "other" : "thing",
        id: `th_${String(n).padStart(4, "0")}`,
        created: T0 + f.created * 1000,
        status: f.status,
        reference: f.ref,
        data: { n },
        version: 1,
        updated: T0,
      };
    }),
  );

const filtersArb = fc.record(
  {
    status: fc.constantFrom("open", "done"),
    created_gte: fc.integer({ min: 0, max: 4 }).map((s) => T0 + s * 1000),
    created_lt: fc.integer({ min: 4, max: 9 }).map((s) => T0 + s * 1000),
    search: fc.constantFrom("inv-", "inv-a"),
  },
  { requiredKeys: [] },
);

for (const kind of storageKinds()) {
  describe(`paging both ways on ${kind.name}`, () => {
    it("paging forward then backward returns the same pages in reverse, and the walk is the filtered list", async () => {
      await fc.assert(
        fc.asyncProperty(rowsArb, fc.integer({ min: 1, max: 7 }), filtersArb, async (rows, limit, filters) => {
          const harness = await kind.factory();
          try {
            await harness.storage.init();
            if (rows.length) await harness.storage.transaction((tx) => tx.resources.insert(rows));
            const { status, ...range } = filters;
            const page = async (cursors: Pick<ListParams, "starting_after" | "ending_before">): Promise<ListEnvelope<string>> =>
              (
                await listPage({
                  codec,
                  accountId: ACCOUNT,
                  list: "thing",
                  params: { ...range, ...cursors, limit },
                  ...(status ? { status } : {}),
                  fetch: (query) => harness.storage.transaction((tx) => tx.resources.list({ ...query, kind: "thing" })),
                  position: (row) => ({ created: row.created, id: row.id }),
                  present: (row) => row.id,
                })
              )._unsafeUnwrap();

            const expected = rows
              .filter(
                (r) =>
                  r.kind === "thing" &&
                  (status === undefined || r.status === status) &&
                  (range.created_gte === undefined || r.created >= range.created_gte) &&
                  (range.created_lt === undefined || r.created < range.created_lt) &&
                  (range.search === undefined || r.id === range.search || (r.reference ?? "").startsWith(range.search)),
              )
              .sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1))
              .map((r) => r.id);

            const forward = [await page({})];
            expect(forward[0]!.previous_cursor).toBeNull();
            while (forward[forward.length - 1]!.has_more) {
              forward.push(await page({ starting_after: forward[forward.length - 1]!.next_cursor! }));
            }
            expect(forward.flatMap((p) => p.data)).toEqual(expected);
            expect(forward[forward.length - 1]!.next_cursor).toBeNull();

            // back from the last page: each previous_cursor leads to the page before it
            const backward = [forward[forward.length - 1]!];
            while (backward[backward.length - 1]!.previous_cursor !== null) {
              backward.push(await page({ ending_before: backward[backward.length - 1]!.previous_cursor! }));
            }
            expect(backward.map((p) => p.data)).toEqual(forward.map((p) => p.data).reverse());
            // has_more speaks of the direction asked: more newer rows, except on the first page
            backward.slice(1).forEach((p, i) => expect(p.has_more).toBe(i < backward.length - 2));
            // iterating a list call walks every row the way it was asked: forward newest first,
            // backward from the last page's start oldest first
            const walk = async (cursors: Pick<ListParams, "starting_after" | "ending_before">) => {
              const seen: string[] = [];
              for await (const id of pagedList(cursors, async (c) => ok(await page(c)))) seen.push(id);
              return seen;
            };
            expect(await walk({})).toEqual(expected);
            const last = forward[forward.length - 1]!;
            if (last.previous_cursor !== null) {
              const before = forward.slice(0, -1).flatMap((p) => p.data);
              expect(await walk({ ending_before: last.previous_cursor })).toEqual([...before].reverse());
            }
            // and a backward page's next_cursor goes forward again to the page it came from
            for (let i = 1; i < backward.length; i++) {
              expect((await page({ starting_after: backward[i]!.next_cursor! })).data).toEqual(backward[i - 1]!.data);
            }
          } finally {
            await harness.close();
          }
        }),
        { numRuns: kind.name === "memory" ? 150 : 20 },
      );
    }, 180_000);

    it("refuses starting_after with ending_before, and a cursor of other filters as ending_before", async () => {
      const harness = await kind.factory();
      try {
        await harness.storage.init();
        const call = (params: ListParams, status?: string) =>
          listPage({
            codec,
            accountId: ACCOUNT,
            list: "thing",
            params,
            ...(status ? { status } : {}),
            fetch: (query) => harness.storage.transaction((tx) => tx.resources.list({ ...query, kind: "thing" })),
            position: (row) => ({ created: row.created, id: row.id }),
            present: (row) => row.id,
          });
        const cursor = codec.encode(
          { created: T0, id: "th_0001" },
          { accountId: ACCOUNT, list: "thing", filters: JSON.stringify([null, null, null, null, null]) },
        );
        expect((await call({ ending_before: cursor }))._unsafeUnwrap()).toMatchObject({
          data: [],
          has_more: false,
          previous_cursor: null,
          next_cursor: cursor,
        });
        const both = await call({ ending_before: cursor, starting_after: cursor });
        expect(both._unsafeUnwrapErr()).toMatchObject({ code: "parameter_invalid", param: "ending_before" });
        const foreign = await call({ ending_before: cursor }, "open");
        expect(foreign._unsafeUnwrapErr()).toMatchObject({ code: "cursor_invalid", param: "ending_before" });
      } finally {
        await harness.close();
      }
    });
  });
}

afterAll(closeSharedStorage);
