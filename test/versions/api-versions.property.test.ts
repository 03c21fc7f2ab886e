import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  API_CHANGES,
  API_VERSIONS,
  INITIAL_VERSION,
  LATEST_VERSION,
  parseApiVersion,
  renderForVersion,
  upgradeRequest,
  type VersionChange,
} from "../../src/versions/api-versions";

/** JSON values whose objects are sometimes events or accounts (with `api_version`), nested anywhere. */
const apiJson = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, fc.string(), fc.integer(), fc.boolean(), fc.constant(null), tie("array"), tie("object"), tie("typed")),
  array: fc.array(tie("value"), { maxLength: 4 }),
  object: fc.dictionary(fc.string({ maxLength: 6 }), tie("value"), { maxKeys: 4 }),
  typed: fc.record({
    object: fc.constantFrom("event", "account", "payout", "list"),
    api_version: fc.constant(LATEST_VERSION),
    id: fc.string(),
    data: tie("value"),
  }),
}));

function everyObject(value: unknown, visit: (o: Record<string, unknown>) => void): void {
  if (Array.isArray(value)) for (const item of value) everyObject(item, visit);
  else if (value && typeof value === "object") {
    visit(value as Record<string, unknown>);
    for (const item of Object.values(value)) everyObject(item, visit);
  }
}

describe("dated API versions", () => {
  it("lists the versions oldest first, dated, the newest last", () => {
    expect(API_VERSIONS[0]).toBe(INITIAL_VERSION);
    expect(LATEST_VERSION).toBe(API_VERSIONS[API_VERSIONS.length - 1]);
    for (const v of API_VERSIONS) expect(v).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect([...API_VERSIONS].sort()).toEqual(API_VERSIONS);
    expect(new Set(API_VERSIONS).size).toBe(API_VERSIONS.length);
  });

  it("refuses a version the catalogue does not have, naming the header and the versions there are", () => {
    const refused = parseApiVersion("2020-01-01")._unsafeUnwrapErr();
    expect(refused).toMatchObject({ code: "parameter_invalid", param: "Payrail-Version", status: 400 });
    expect(refused.message).toContain(LATEST_VERSION);
    expect(parseApiVersion("latest").isErr()).toBe(true);
    expect(parseApiVersion(INITIAL_VERSION)._unsafeUnwrap()).toBe(INITIAL_VERSION);
  });

  test.prop([apiJson.value])("the newest version answers the newest shape, untouched", (body) => {
    expect(renderForVersion(body, LATEST_VERSION)).toBe(body);
  });

  test.prop([apiJson.value])("an older version changes a copy: the body it was given stays as it was", (body) => {
    const before = structuredClone(body);
    renderForVersion(body, INITIAL_VERSION);
    expect(body).toEqual(before);
  });

  test.prop([apiJson.value])("2026-01-01 answers events and accounts without api_version, anywhere, and leaves every other object alone", (body) => {
    const old = renderForVersion(body, INITIAL_VERSION);
    everyObject(old, (o) => {
      if (o.object === "event" || o.object === "account") expect(o).not.toHaveProperty("api_version");
    });
    // nothing else changed: putting the field back where the newest shape has it gives the body again
    const restore = (v: unknown, original: unknown): unknown => {
      if (Array.isArray(v)) return v.map((item, i) => restore(item, (original as unknown[])[i]));
      if (!v || typeof v !== "object") return v;
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(original as object)) out[k] = k in v ? restore((v as any)[k], item) : item;
      return out;
    };
    expect(restore(old, body)).toEqual(body);
  });

  it("applies the changes after a version, newest first for answers and oldest first for requests", () => {
    const seen: string[] = [];
    const changes: VersionChange[] = [
      {
        version: "2030-01-01",
        description: "amount became a string",
        responses: {
          thing: (o) => {
            seen.push("down 2030");
            return { ...o, amount: Number(o.amount) };
          },
        },
        requests: {
          "POST /v1/things": (b) => {
            seen.push("up 2030");
            return { ...b, amount: String(b.amount) };
          },
        },
      },
      {
        version: "2031-01-01",
        description: "size was renamed to length",
        responses: {
          thing: ({ length, ...o }) => {
            seen.push("down 2031");
            return { ...o, size: length };
          },
        },
        requests: {
          "POST /v1/things": ({ size, ...b }) => {
            seen.push("up 2031");
            return { ...b, length: size };
          },
        },
      },
    ];
    const thing = { object: "thing", amount: "5", length: 3 };
    expect(renderForVersion({ object: "list", data: [thing] }, "2029-06-01", changes)).toEqual({
      object: "list",
      data: [{ object: "thing", amount: 5, size: 3 }],
    });
    expect(seen).toEqual(["down 2031", "down 2030"]);
    expect(renderForVersion(thing, "2030-01-01", changes)).toEqual({ object: "thing", amount: "5", size: 3 });
    expect(renderForVersion(thing, "2031-01-01", changes)).toBe(thing);
    seen.length = 0;
    expect(upgradeRequest("POST /v1/things", { amount: 5, size: 3 }, "2029-06-01", changes)).toEqual({ amount: "5", length: 3 });
    expect(seen).toEqual(["up 2030", "up 2031"]);
    expect(upgradeRequest("POST /v1/things", { amount: "5", length: 3 }, "2031-01-01", changes)).toEqual({ amount: "5", length: 3 });
    expect(upgradeRequest("POST /v1/other", { size: 3 }, "2029-06-01", changes)).toEqual({ size: 3 });
  });

  it("every change is dated after the initial version and described", () => {
    for (const change of API_CHANGES) {
      expect(change.version > INITIAL_VERSION).toBe(true);
      expect(change.description.length).toBeGreaterThan(20);
    }
  });
});
