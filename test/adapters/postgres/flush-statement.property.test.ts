import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { buildFlushText, EXPECT, type FlushPart, flushStatement, missedPart } from "../../../adapters/postgres/flush-statement";

/**
 * A flush's statement text is kept by its parts' shape (`flushText`): whatever sequence of
 * flushes runs, each gets exactly the text its parts build (the same parts' SQL, selects and
 * expectations, balance versions and commit mode), and its parameters in order: the parts', then
 * their expected counts. Part texts come as equal strings that are not the same object too (a
 * store that builds its SQL each time), and as texts that differ only in their tail.
 */
const texts = [
  "INSERT INTO s.a (x) SELECT x FROM json_to_recordset($1::json) AS x(x text)",
  "UPDATE s.b t SET y = x.y FROM json_to_recordset($1::json) AS x",
  "SELECT 1 FROM s.c FOR UPDATE",
];
const sqlOf = (i: number, copy: boolean, tail: number) => {
  const base = `${texts[i]!}${tail ? ` /* ${tail} */` : ""}`;
  return copy ? [...base].join("") : base; // an equal string built anew
};

const part = fc
  .record({
    text: fc.nat(texts.length - 1),
    copy: fc.boolean(),
    tail: fc.nat(2),
    select: fc.boolean(),
    expect: fc.option(fc.nat(5), { nil: undefined }),
    param: fc.string(),
  })
  .map(
    ({ text, copy, tail, select, expect: rows, param }): FlushPart => ({
      sql: sqlOf(text, copy, tail),
      param,
      ...(select ? { select } : {}),
      ...(rows === undefined ? {} : { expect: { rows, error: () => new Error("off") } }),
    }),
  );
const flush = fc.record({ parts: fc.array(part, { minLength: 1, maxLength: 5 }), versions: fc.boolean(), durable: fc.boolean() });

describe("flushStatement", () => {
  test.prop([fc.array(flush, { minLength: 1, maxLength: 30 })])("gives every flush the text its parts build, and its parameters in order", (flushes) => {
    for (const { parts, versions, durable } of flushes) {
      const { text, params } = flushStatement(parts, versions, durable);
      expect(text).toBe(buildFlushText(parts, versions, durable));
      expect(params).toEqual([...parts.map((p) => p.param), ...parts.flatMap((p) => (p.expect ? [p.expect.rows] : []))]);
    }
  });

  it("numbers each part's parameter, then the counts it checks, and names the part whose count was off", () => {
    const parts: FlushPart[] = [
      { sql: "INSERT INTO s.a SELECT * FROM json_to_recordset($1::json) AS x(a text)", param: "[]" },
      { sql: "UPDATE s.b SET n = 1 FROM json_to_recordset($1::json) AS x(k text)", param: "[]", expect: { rows: 2, error: () => new Error("off") } },
      {
        sql: "SELECT 1 FROM s.c, json_to_recordset($1::json) AS x(k text) FOR UPDATE",
        param: "[]",
        select: true,
        expect: { rows: 1, error: () => new Error("stale") },
      },
    ];
    const { text, params } = flushStatement(parts, true, false);
    expect(text).toContain("w0 AS (INSERT INTO s.a SELECT * FROM json_to_recordset($1::json) AS x(a text) RETURNING 1)");
    expect(text).toContain("w1 AS (UPDATE s.b SET n = 1 FROM json_to_recordset($2::json) AS x(k text) RETURNING 1)");
    expect(text).toContain("w2 AS (SELECT 1 FROM s.c, json_to_recordset($3::json) AS x(k text) FOR UPDATE)");
    expect(text).toContain(`(SELECT count(*) FROM w1) = $4::bigint THEN '0' ELSE '${EXPECT}1'`);
    expect(text).toContain(`(SELECT count(*) FROM w2) = $5::bigint THEN '0' ELSE '${EXPECT}2'`);
    expect(text).toContain("pg_current_xact_id()::xid::text AS xid");
    expect(text).toMatch(/synchronous_commit/);
    expect(params).toEqual(["[]", "[]", "[]", 2, 1]);
    expect(missedPart(parts, new Error(`invalid input syntax for type integer: "${EXPECT}2"`))).toBe(parts[2]);
    expect(missedPart(parts, new Error("deadlock detected"))).toBeUndefined();
  });
});
