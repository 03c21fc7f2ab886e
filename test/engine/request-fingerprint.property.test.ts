import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { requestFingerprint } from "../../src/engine/idempotency";

/** The fingerprint as it was first defined (keys stored before must still match): every object's keys sorted. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

const reference = (method: string, path: string, raw: string) => {
  let body = raw;
  try {
    if (raw.trim() !== "") body = sortedJson(JSON.parse(raw));
  } catch {
    // not JSON: the raw text
  }
  return createHash("sha256").update(`${method.toUpperCase()} ${path}\n${body}`).digest("hex");
};

describe("request fingerprints", () => {
  it("hash the body with sorted keys, whatever its formatting; long arrays hashed in turns give the same digest", async () => {
    const body = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.jsonValue().map((v) => JSON.stringify(v, null, 2)),
      fc.array(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }), { minLength: 60, maxLength: 200 }).map((legs) => JSON.stringify({ legs })),
      fc.string(),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("post", "POST"), fc.string(), body, async (method, path, raw) => {
        const expected = reference(method, path, raw);
        expect(await requestFingerprint(method, path, raw)).toBe(expected);
        // the HTTP binding hands over the body it parsed already: the same digest
        let parsed: { value: unknown } | undefined;
        try {
          if (raw.trim() !== "") parsed = { value: JSON.parse(raw) };
        } catch {
          parsed = undefined;
        }
        if (parsed) expect(await requestFingerprint(method, path, raw, parsed)).toBe(expected);
      }),
      { numRuns: 300 },
    );
    // formatting and key order do not count
    expect(await requestFingerprint("POST", "/p", '{"b":1,"a":[1,{"d":2,"c":3}]}')).toBe(
      await requestFingerprint("POST", "/p", '{ "a": [1, {"c": 3, "d": 2}], "b": 1 }'),
    );
  });
});
