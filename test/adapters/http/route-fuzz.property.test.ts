import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkedFetch, testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

/**
 * Every route of the OpenAPI document, fuzzed from the document itself (issue 12): path ids,
 * query parameters and bodies drawn from each operation's schemas, mutated with text storage
 * cannot hold (NUL, lone surrogates), wrong types, junk JSON, other content types and long
 * values. No answer is a 5xx, every answer validates against the document (`checkedFetch`),
 * and a refusal (4xx) changes nothing the account can see: resources, ledger, balances, events,
 * due work and deliveries are the same before and after.
 */
type JsonSchema = Record<string, any>;

/** A URL can carry NUL (%00) but no lone surrogate (it has no UTF-8 form): those go in bodies only. */
const wellFormed = (s: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

const NASTY = fc.constantFrom(
  "a\u0000b",
  "\u0000",
  "x\ud800",
  "\udfff",
  "\ud800\ud800",
  "💸".repeat(3),
  "%00",
  "' OR 1=1 --",
  "../../etc/passwd",
  "",
  " ",
  "x".repeat(600),
);

function arbitraryFor(schema: JsonSchema | undefined, doc: any, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return fc.jsonValue({ maxDepth: 1 });
  if (schema.$ref) return arbitraryFor(doc.components.schemas[String(schema.$ref).split("/").pop()!], doc, depth + 1);
  const valid = validFor(schema, doc, depth);
  // mostly well-formed, sometimes text storage cannot hold or a value of the wrong type
  return fc.oneof({ weight: 30, arbitrary: valid }, { weight: 1, arbitrary: NASTY }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) });
}

function validFor(schema: JsonSchema, doc: any, depth: number): fc.Arbitrary<unknown> {
  if (schema.anyOf || schema.oneOf) return fc.oneof(...(schema.anyOf ?? schema.oneOf).map((s: JsonSchema) => arbitraryFor(s, doc, depth + 1)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case "object": {
      const props = Object.entries<JsonSchema>(schema.properties ?? {});
      if (!props.length) return fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 2 });
      const shape = Object.fromEntries(props.map(([k, s]) => [k, arbitraryFor(s, doc, depth + 1)]));
      return fc.record(shape, { requiredKeys: schema.required ?? [] }).chain((o) =>
        // now and then a key nobody documented
        fc.oneof({ weight: 30, arbitrary: fc.constant(o) }, { weight: 1, arbitrary: fc.constant({ ...o, unknown_param: 1 }) }),
      );
    }
    case "array":
      return fc.array(arbitraryFor(schema.items, doc, depth + 1), { maxLength: 3 });
    case "integer":
      return fc.integer({ min: schema.minimum ?? -5, max: Math.min(schema.maximum ?? 1_000, 1_000) });
    case "boolean":
      return fc.boolean();
    case "string":
      if (schema.pattern === "^(0|[1-9][0-9]*)(\\.[0-9]+)?$") {
        return fc.tuple(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 99 })).map(([i, f]) => (f ? `${i}.${f}` : String(i)));
      }
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
      if (schema.format === "uri") return fc.constantFrom("https://hooks.example.com/x", "https://127.0.0.1/", "http://x", "not a url");
      return fc.string({ maxLength: 12 });
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

interface Operation {
  method: string;
  path: string;
  op: any;
}

for (const kind of storageKinds()) {
  describe(`every route, fuzzed from the OpenAPI document, on ${kind.name}`, () => {
    let w: TestWorld;
    let doc: any;
    const ids: string[] = [];
    let operations: Operation[] = [];

    beforeAll(async () => {
      w = await testWorld(kind);
      doc = await (await w.app.request("/v1/openapi.json")).json();
      operations = Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.entries<any>(item).map(([method, op]) => ({ method, path, op })));
      // a world with one of everything, so generated path ids can be real
      const post = async (path: string, body?: unknown, headers: Record<string, string> = {}) => {
        const res = await w.request("POST", path, { ...(body === undefined ? {} : { body }), headers });
        const json = await res.json();
        if (json.id) ids.push(json.id);
        return json;
      };
      await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "1000" });
      const rcp = await post("/v1/recipients", { name: "Fuzz", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } });
      await post("/v1/payouts", { amount: "5", asset: "USDC", recipient: rcp.id }, { "idempotency-key": "seed-1" });
      await post("/v1/quotes", { from: { asset: "USDC", amount: "10" }, to: { asset: "EURC" } });
      await post("/v1/payment_intents", { amount: "5", asset: "USDC" });
      await post("/v1/webhook_endpoints", { url: "https://hooks.example.com/x", enabled_events: ["*"] });
      await post("/v1/reports", { type: "ledger_entries", created_lt: "2030-01-01" });
    });
    afterAll(() => w.close());

    /** The seeded ids of the kind the operation answers (by its object's id pattern), or all of them. */
    const idsFor = (op: any): string[] => {
      const success = Object.entries<any>(op.responses).find(([s]) => s.startsWith("2"))?.[1];
      const ref: string | undefined = success?.content?.["application/json"]?.schema?.$ref;
      const pattern: string | undefined = ref ? doc.components.schemas[ref.split("/").pop()!]?.properties?.id?.pattern : undefined;
      const matching = pattern ? ids.filter((id) => new RegExp(pattern).test(id)) : [];
      return matching.length ? matching : [...ids, "po_missing"];
    };

    const snapshot = async () => {
      const i = w.harness.inspect;
      return JSON.stringify(
        [
          await i.resources(w.accountId),
          await i.entries(w.accountId),
          await i.balances(w.accountId),
          await i.events(w.accountId),
          await i.work(),
          await i.deliveries(w.accountId),
        ],
        (_, v) => (typeof v === "bigint" ? v.toString() : v),
      );
    };

    it("answers no 5xx, only documented answers, and changes nothing when it refuses", async () => {
      const fetch = checkedFetch(w.app);
      const request = fc.integer({ min: 0, max: 10_000 }).chain((n) => {
        const { method, path, op } = operations[n % operations.length]!;
        const params: any[] = (op.parameters ?? []).map((p: any) => (p.$ref ? doc.components.parameters[p.$ref.split("/").pop()] : p));
        const pathArbs = params
          .filter((p) => p.in === "path")
          .map((p) =>
            fc.tuple(fc.constant(p.name), fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...idsFor(op)) }, arbitraryFor(p.schema, doc).map(String), NASTY)),
          );
        const queryArbs = params
          .filter((p) => p.in === "query" && p.name !== "wait") // wait holds the answer for seconds
          // a cursor that is not one is refused whatever else is asked: rarely
          .map((p) =>
            fc.oneof(
              { weight: p.name === "starting_after" ? 40 : 3, arbitrary: fc.constant(undefined) },
              { weight: 1, arbitrary: fc.tuple(fc.constant(p.name), arbitraryFor(p.schema, doc)) },
            ),
          );
        const body = op.requestBody?.content["application/json"].schema;
        const bodyArb = fc.oneof(
          { weight: 12, arbitrary: arbitraryFor(body ?? { type: "object" }, doc).map((b) => ({ text: JSON.stringify(b), type: "application/json" })) },
          { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((text) => ({ text, type: "application/json" })) },
          { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "").map((type) => ({ text: '{"name":"x"}', type })) },
          { weight: 1, arbitrary: fc.constant({ text: "", type: "" }) },
        );
        return fc.record({
          method: fc.constant(method),
          template: fc.constant(path),
          path: fc.tuple(...pathArbs),
          query: fc.tuple(...queryArbs),
          body: bodyArb,
          key: fc.oneof(
            { weight: 8, arbitrary: fc.uuid() },
            { weight: 1, arbitrary: fc.constantFrom("x".repeat(300), "") },
            { weight: 1, arbitrary: fc.constant(undefined) },
          ),
        });
      });

      let requests = 0;
      const reached = new Set<string>();
      const messages: string[] = [];
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          let url = r.template;
          for (const [name, value] of r.path as [string, string][]) url = url.replace(`{${name}}`, encodeURIComponent(wellFormed(value) ? value : "x"));
          const search = new URLSearchParams();
          for (const entry of r.query as ([string, unknown] | undefined)[]) {
            if (!entry) continue;
            const [name, value] = entry;
            for (const item of Array.isArray(value) && name.endsWith("[]") ? value : [value]) {
              const text = typeof item === "string" ? item : JSON.stringify(item);
              search.append(name, wellFormed(text) ? text : "x\u0000");
            }
          }
          if ([...search].length) url += `?${search}`;
          const headers: Record<string, string> = { authorization: `Bearer ${w.apiKey}` };
          if (r.key !== undefined && /^[\x20-\x7e]*$/.test(r.key)) headers["idempotency-key"] = r.key;
          const init: RequestInit = { method: r.method.toUpperCase(), headers };
          if (r.method === "post" && r.body.text !== "") {
            init.body = r.body.text;
            if (r.body.type) headers["content-type"] = r.body.type;
          }
          const before = await snapshot();
          const res = await fetch(new Request(`http://payrail.test${url}`, init)); // throws when the answer breaks the document
          const text = await res.text();
          requests++;
          reached.add(`${r.method} ${r.template} ${res.status}`);
          if (process.env.FUZZ_STATS && res.status === 400) messages.push(JSON.parse(text).error.message.slice(0, 60));
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          expect(res.status, `${r.method} ${url} answered ${res.status}: ${text.slice(0, 300)}`).toBeLessThan(500);
          if (res.status >= 400) expect(await snapshot(), `${r.method} ${url} was refused (${text.slice(0, 200)}) but changed state`).toBe(before);
        }),
        // bounded for CI: PostgreSQL (what refused NUL with a 500) gets fewer runs than memory, and
        // SQL storage more time (a clock advance runs due work: 200 to 300 ms each on a slow machine)
        { numRuns: kind.name === "memory" ? 400 : 100, interruptAfterTimeLimit: kind.name === "memory" ? 10_000 : 20_000 },
      );
      if (process.env.FUZZ_STATS) console.log(requests, [...statuses].sort(), [...reached].sort().join("\n"), messages.sort().join("\n"));
      // it reached the routes: successes and refusals both
      expect(requests).toBeGreaterThan(50);
      expect([...statuses.keys()].some((s) => s < 300)).toBe(true);
      expect([...statuses.keys()].some((s) => s >= 400)).toBe(true);
    }, 60_000);
  });
}

afterAll(() => closeSharedStorage());
