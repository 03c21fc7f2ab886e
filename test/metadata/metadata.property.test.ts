import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyMetadata, MetadataSchema, metadataSearch, newMetadata } from "../../src/metadata/metadata";

const schema = new MetadataSchema();
const key = fc.oneof(fc.string({ minLength: 0, maxLength: 45 }), fc.constantFrom("__proto__", "constructor", "toString"));
const value = fc.oneof(fc.string({ maxLength: 20 }), fc.constant(""), fc.string({ minLength: 495, maxLength: 505 }));
const given = fc.dictionary(key, value, { maxKeys: 55 });
const valid = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 40 }).filter((k) => !/[[\]]/.test(k) && !/[\uD800-\uDFFF]|\u0000/.test(k)),
  fc.string({ maxLength: 30 }).filter((v) => !/[\uD800-\uDFFF]|\u0000/.test(v)),
  { maxKeys: 50 },
);

describe("metadata rules", () => {
  it("accepts exactly Stripe's shape: at most 50 keys of 1 to 40 characters without brackets, string values of at most 500", () => {
    fc.assert(
      fc.property(given, (m) => {
        const entries = Object.entries(m);
        const ok =
          entries.length <= 50 &&
          entries.every(([k, v]) => k.length >= 1 && k.length <= 40 && !/[[\]]/.test(k) && v.length <= 500 && !/[\uD800-\uDFFF]|\u0000/.test(k + v));
        const parsed = schema.parse(m, "metadata");
        // lone surrogates in generated text are refused too: only judge texts without them
        if (entries.some(([k, v]) => /[\uD800-\uDFFF]/.test(k + v))) return;
        expect(parsed.isOk()).toBe(ok);
        if (parsed.isErr()) expect(parsed.error.param).toMatch(/^metadata(\[.*\])?$/s);
        // what is accepted is kept as given, every key an own property (__proto__ included)
        else expect(Object.entries(parsed.value)).toEqual(entries);
      }),
      { numRuns: 500 },
    );
  });

  it('create drops empty values; update sets, removes on "" and keeps the rest, refusing more than 50 keys', () => {
    fc.assert(
      fc.property(valid, valid, (current, changes) => {
        const stored = newMetadata(current);
        expect(Object.values(stored)).not.toContain("");
        const model = new Map(Object.entries(stored));
        for (const [k, v] of Object.entries(changes)) {
          if (v === "") model.delete(k);
          else model.set(k, v);
        }
        const updated = applyMetadata(stored, changes);
        if (model.size > 50) {
          expect(updated._unsafeUnwrapErr()).toMatchObject({ code: "parameter_invalid", param: "metadata" });
        } else {
          expect(updated._unsafeUnwrap()).toEqual(Object.fromEntries(model));
          expect(Object.values(updated._unsafeUnwrap())).not.toContain("");
        }
      }),
      { numRuns: 300 },
    );
  });

  it("reads metadata[key]:value searches, and nothing else as one", () => {
    expect(metadataSearch("metadata[order_id]:A-1")).toEqual({ key: "order_id", value: "A-1" });
    expect(metadataSearch("metadata[k]:a:b")).toEqual({ key: "k", value: "a:b" });
    expect(metadataSearch("metadata[k]:")).toEqual({ key: "k", value: "" });
    for (const text of ["invoice-1", "po_01", "metadata[]:x", "metadata[k]", "metadata[a[b]]:x", `metadata[${"k".repeat(41)}]:x`]) {
      expect(metadataSearch(text)).toBeNull();
    }
  });
});
