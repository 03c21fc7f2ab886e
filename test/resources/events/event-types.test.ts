import { fc, test } from "@fast-check/vitest";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";
import { trigger } from "../../support/webhooks";

/**
 * `GET /v1/event_types` (docs/decisions.md §11): the list contract over the engine's catalogue, each
 * type with its description and a standalone JSON Schema of its `data.object` that the objects
 * of real events of the type satisfy.
 */
describe("GET /v1/event_types", () => {
  let w: TestWorld;
  let all: { type: string; description: string; schema: Record<string, unknown> }[];
  const page = async (query: string) => {
    const res = await w.request("GET", `/v1/event_types?${query}`);
    return { status: res.status, body: await res.json() };
  };
  beforeAll(async () => {
    w = await testWorld(storageKinds()[0]!);
    all = (await page("limit=200")).body.data;
  });
  afterAll(async () => {
    await w.close();
    await closeSharedStorage();
  });

  it("answers every type of the catalogue once, ordered by type, as {type, description, schema}", async () => {
    const catalogue = w.engine.catalogue;
    expect(all.map((t) => t.type)).toEqual([...catalogue.eventTypes].sort());
    for (const t of all) {
      expect(Object.keys(t)).toEqual(["type", "description", "schema"]);
      expect(t.description).toBe(catalogue.event(t.type)!.description);
      expect(t.schema).toMatchObject({ $schema: "https://json-schema.org/draft/2020-12/schema", $ref: `#/$defs/${catalogue.event(t.type)!.object.name}` });
      expect(JSON.stringify(t.schema)).not.toContain("#/components/");
    }
    const listed = [];
    for await (const t of w.engine.eventTypes.list(w.ctx, { limit: 7 })) listed.push(t);
    expect(listed).toEqual(all);
  });

  it("has schemas that the data.object of a real event of each type satisfies, and that refuse other shapes", async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    for (const t of all) {
      const validate = ajv.compile(t.schema);
      const event = await trigger(w, t.type);
      // a triggered event's object is a sample, marked so (`sample: true`); the rest is the real shape
      const { sample, ...object } = (event as unknown as { data: { object: Record<string, unknown> } }).data.object;
      expect(sample).toBe(true);
      expect(validate(object), `${t.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(validate({ ...object, not_a_field: 1 }), t.type).toBe(false);
      expect(validate("x"), t.type).toBe(false);
    }
  }, 60_000);

  test.prop([fc.integer({ min: 1, max: 40 })], { numRuns: 15 })("pages forward and back to the same list, with the list's cursors", async (limit) => {
    const forward: string[] = [];
    let cursor: string | null = null;
    let last: any;
    do {
      last = (await page(`limit=${limit}${cursor ? `&starting_after=${cursor}` : ""}`)).body;
      expect(last.object).toBe("list");
      expect(last.data.length).toBeLessThanOrEqual(limit);
      expect(last.previous_cursor === null).toBe(cursor === null);
      forward.push(...last.data.map((t: { type: string }) => t.type));
      cursor = last.next_cursor;
    } while (cursor);
    expect(forward).toEqual(all.map((t) => t.type));
    // backwards from the last page: every type before it, nearest first, in the list's order on each page
    const backward: string[] = last.data.map((t: { type: string }) => t.type);
    cursor = last.previous_cursor;
    while (cursor) {
      const before = (await page(`limit=${limit}&ending_before=${cursor}`)).body;
      backward.unshift(...before.data.map((t: { type: string }) => t.type));
      cursor = before.has_more ? before.previous_cursor : null;
    }
    expect(backward).toEqual(all.map((t) => t.type));
  });

  it("refuses a cursor of another list, both directions at once, and a bad limit", async () => {
    await trigger(w, "payout.created");
    await trigger(w, "payout.created");
    const events = (await (await w.request("GET", "/v1/events?limit=1")).json()).next_cursor;
    const own = (await page("limit=2")).body.next_cursor;
    expect(events).toMatch(/^cur_/);
    for (const [query, code, param] of [
      [`starting_after=${events}`, "cursor_invalid", "starting_after"],
      [`starting_after=${own}&ending_before=${own}`, "parameter_invalid", "ending_before"],
      ["limit=0", "parameter_invalid", "limit"],
      ["created_gte=2026-01-01", "parameter_invalid", "created_gte"],
    ] as const) {
      const res = await page(query);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toMatchObject({ code, param });
    }
  });
});
