import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createHttpDelivery } from "../../../adapters/delivery";
import { TestReceiver } from "../../support/receiver";
import { trigger } from "../../support/webhooks";
import { checkedFetch, testWorld, type TestWorld } from "../../support/engine";
import { CHILD_ENV, redoclyLint } from "../../support/openapi-lint";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const run = promisify(execFile);
const ROOT = resolve(__dirname, "../../..");
const OPENAPI_DIR = join(ROOT, "test/openapi");

/**
 * The OpenAPI document as a contract (issue 12): Redocly's recommended rules find nothing in it,
 * a client generated from it runs a whole scenario under `tsc --strict` without a cast, and (in
 * every HTTP suite, through `test/support/engine.ts`) every answer validates against it.
 */
describe("the OpenAPI document", () => {
  let w: TestWorld;
  let doc: any;
  beforeAll(async () => {
    w = await testWorld(storageKinds()[0]!);
    doc = await (await w.app.request("/v1/openapi.json")).json();
  });
  afterAll(async () => {
    await w.close();
    await closeSharedStorage();
  });

  it("passes Redocly's recommended rules with 0 errors and 0 warnings", async () => {
    const report = await redoclyLint(doc);
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(report.version).toBe("2.77.0");
  }, 60_000);

  it("describes every success as an object schema, every error status, and the headers", () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(op.description, where).toBeTruthy();
        expect(op.tags, where).toHaveLength(1);
        const statuses = Object.keys(op.responses);
        expect(
          statuses.filter((s) => s.startsWith("2")),
          where,
        ).toHaveLength(1);
        expect(statuses, where).not.toContain("default");
        for (const status of ["403", "404", "500"]) expect(statuses, where).toContain(status);
        if (path.startsWith("/v1/files")) continue;
        for (const status of ["400", "401", "431"]) expect(statuses, where).toContain(status);
        if (method === "post") for (const status of ["409", "413", "415"]) expect(statuses, where).toContain(status);
        const success = op.responses[statuses.find((s) => s.startsWith("2"))!];
        expect(success.headers["Request-Id"], where).toBeDefined();
        const ref: string = success.content["application/json"].schema.$ref;
        const schema = doc.components.schemas[ref.split("/").pop()!];
        expect(schema.properties ?? schema.oneOf ?? schema.anyOf, where).toBeDefined();
        expect(JSON.stringify(schema), where).not.toBe('{"type":"object"}');
      }
    }
    expect(doc.components.responses.TooManyRequests.headers["Retry-After"]).toBeDefined();
    expect([...doc.components.schemas.AssetCode.enum].sort()).toEqual(["BTC", "ETH", "EURC", "SOL", "USDC", "USDT"]);
    expect(doc.components.schemas.ChainName.enum).toContain("base");
    expect(doc.components.schemas.Payout.properties.status.enum).toContain("partially_settled");
    const listPayouts = doc.paths["/v1/payouts"].get.parameters;
    const createdGte = listPayouts.find((p: any) => p.name === "created_gte").schema;
    expect(createdGte.oneOf).toBeUndefined();
    expect(createdGte.anyOf[0].pattern).toBeDefined();
    expect(listPayouts.find((p: any) => p.name === "starting_after").schema.pattern).toMatch(/^\^cur_/);
    expect(doc.paths["/v1/payouts/{id}/approve"].post.responses["400"]).toEqual({ $ref: "#/components/responses/BadRequest" });
    expect(doc.components.responses.BadRequest.description).toContain("payout_not_approvable");
  });

  it("has a webhooks entry per event type, from the catalogue GET /v1/event_types answers", async () => {
    const types = await (await w.request("GET", "/v1/event_types?limit=200")).json();
    expect(Object.keys(doc.webhooks)).toEqual(types.data.map((t: { type: string }) => t.type));
    for (const t of types.data) {
      const hook = doc.webhooks[t.type].post;
      expect(hook.description).toContain(t.description);
      const typed = doc.components.schemas[hook.requestBody.content["application/json"].schema.$ref.split("/").pop()];
      expect(typed.properties.type.enum).toEqual([t.type]);
      // data.object is the very schema the list answers, there standing alone
      expect(typed.properties.data.properties.object.$ref.split("/").pop()).toBe(t.schema.$ref.split("/").pop());
      expect(hook.parameters.map((p: { $ref: string }) => doc.components.parameters[p.$ref.split("/").pop()!].name)).toEqual(
        expect.arrayContaining([
          "Service-Event",
          "Service-Delivery",
          "Service-Attempt",
          "Service-Signature",
          "webhook-id",
          "webhook-timestamp",
          "webhook-signature",
        ]),
      );
    }
  });

  it("generates a typed client that runs a whole scenario, and a webhook receiver, under tsc --strict, without casts", async () => {
    const generated = join(OPENAPI_DIR, ".generated");
    mkdirSync(generated, { recursive: true });
    writeFileSync(join(generated, "api.ts"), astToString(await openapiTS(doc)));
    for (const file of ["typed-client-scenario.ts", "typed-receiver.ts"]) {
      const source = readFileSync(join(OPENAPI_DIR, file), "utf8");
      // no type assertions, no non-null assertions, no any
      expect(source, file).not.toMatch(/\bas\s+(?!const\b)[A-Za-z{[(]/);
      expect(source, file).not.toMatch(/[\w)\]]!(?=[.;,)\s])/);
      expect(source, file).not.toMatch(/\bany\b/);
    }
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    await run(process.execPath, [tsc, "-p", join(OPENAPI_DIR, "tsconfig.json")], { cwd: OPENAPI_DIR, env: CHILD_ENV }).catch((e: { stdout?: string }) => {
      throw new Error(`the scenario does not compile against the generated types:\n${e.stdout ?? ""}`);
    });

    // imported by a computed name: the scenario compiles only against types this test generates,
    // so the project's own typecheck (which runs before the tests, on a clean clone) must not follow it
    const scenarioModule = "../../openapi/typed-client-scenario";
    const { scenario } = (await import(scenarioModule)) as {
      scenario: (fetchImpl: (request: Request) => Promise<Response>, apiKey: string) => Promise<string[]>;
    };
    const log = await scenario(checkedFetch(w.app), w.apiKey);
    expect(log).toEqual([
      "funded 1000 USDC",
      "recipient recipient not_screened",
      "quote quote with venues",
      expect.stringMatching(/^payout 25\.5 USDC in 1 leg\(s\), fee [0-9.]+$/),
      "replayed true same payout",
      "listed 1 payout(s), more: false, cursor: none",
      "retrieved with recipient Ada Lovelace",
      "endpoint enabled with a secret",
      expect.stringMatching(/^USDC reserved [0-9.]+$/),
      "missing 404 resource_missing req_",
      "approve 400 payout_not_approvable",
    ]);
  }, 120_000);

  it("the typed receiver verifies real Standard Webhooks deliveries and reads their typed objects", async () => {
    const receiver = await TestReceiver.start();
    const world = await testWorld(storageKinds()[0]!, { delivery: createHttpDelivery({ allowPrivateNetworks: true }) });
    try {
      const res = await world.request("POST", "/v1/webhook_endpoints", {
        body: { url: receiver.url(), enabled_events: ["payout.settled", "swap.settled"], signature_scheme: "standard" },
      });
      const ep = await res.json();
      expect(res.status).toBe(200);
      await trigger(world, "payout.settled");
      await trigger(world, "swap.settled");
      await world.engine.worker.runDue();
      // imported by a computed name, as the scenario is
      const receiverModule = "../../openapi/typed-receiver";
      const { receive } = (await import(receiverModule)) as { receive: (body: string, headers: Record<string, string>, secret: string) => string };
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(world.clock.now()); // standardwebhooks checks the timestamp against Date.now()
      const read = receiver.requests.map((r) => receive(r.body, r.headers, ep.secret));
      expect(() => receive(receiver.requests[0]!.body.replace("}", " }"), receiver.requests[0]!.headers, ep.secret)).toThrow();
      vi.useRealTimers();
      expect(read.sort()).toEqual([
        expect.stringMatching(/^payout settled [0-9.]+ [A-Z]+ in [0-9]+ leg\(s\)$/),
        expect.stringMatching(/^swap settled [0-9.]+ [A-Z]+ to [A-Z]+$/),
      ]);
    } finally {
      vi.useRealTimers();
      await world.close();
      await receiver.close();
    }
  });
});
