import { ManualClock } from "../../adapters/clock";
import { createHttpApp } from "../../adapters/http";
import type { EngineOptions } from "../../src/engine/engine";
import { type PayrailEngine as Engine, createEngine } from "../../src/modules";
import { systemContext, type RequestContext } from "../../src/engine/context";
import type { StorageHarness } from "../../src/conformance";
import type { StorageKind } from "./storage";
import { SimulatedVenues } from "../../adapters/venues/simulated";
import { devPorts } from "../../adapters/dev";
import { contractChecker, type ContractChecker } from "./contract";

export interface TestWorld {
  engine: Engine;
  clock: ManualClock;
  harness: StorageHarness;
  accountId: string;
  apiKey: string;
  ctx: RequestContext;
  app: ReturnType<typeof createHttpApp>;
  /** The simulated venues on the world's clock (unused when the test passed its own venues). */
  venues: SimulatedVenues;
  /** Sends a request to the /v1 app with the account's key unless `key` says otherwise. */
  request(method: string, path: string, options?: { body?: unknown; key?: string | null; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/** An engine on a fresh store of `kind` with a manual clock, a test account and its key. */
export async function testWorld(
  kind: StorageKind,
  options: Partial<Omit<EngineOptions, "clock" | "storage">> & { clock?: ManualClock; harness?: StorageHarness } = {},
): Promise<TestWorld> {
  const { harness: given, ...engineOptions } = options;
  const harness = given ?? (await kind.factory());
  const clock = options.clock ?? new ManualClock();
  // Simulated venues on the world's manual clock unless the test brings its own.
  const venues = new SimulatedVenues({ clock });
  const engine = await createEngine({ ...devPorts({ clock }), venues: [venues], ...engineOptions, storage: harness.storage, clock });
  const account = await engine.accounts.create({ name: "Test" });
  const key = (await engine.accounts.createApiKey(account.id))._unsafeUnwrap();
  const app = createHttpApp(engine);
  const apiKey = key.key;
  return {
    engine,
    clock,
    harness,
    accountId: account.id,
    apiKey,
    ctx: systemContext(account.id, false),
    app,
    venues,
    request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      const bearer = opts.key === undefined ? apiKey : opts.key;
      if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
      let body: string | undefined;
      if (opts.body !== undefined) {
        body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
        headers["content-type"] = "application/json";
      }
      return checkedRequest(app, path, { method, headers, ...(body !== undefined ? { body } : {}) });
    },
    async close() {
      await engine.close();
      await harness.close();
    },
  };
}

/**
 * `app.request` whose answer is checked against the app's own OpenAPI document (status,
 * body schema, headers: `test/support/contract.ts`); a mismatch fails the test that sent it.
 */
const checkers = new WeakMap<object, ContractChecker>();

export async function checkedRequest(app: ReturnType<typeof createHttpApp>, path: string, init: RequestInit): Promise<Response> {
  return checkedFetch(app)(new Request(new URL(path, "http://localhost"), init));
}

/** A `fetch` into the app whose answers are checked against its OpenAPI document, like `checkedRequest`. */
export function checkedFetch(app: ReturnType<typeof createHttpApp>): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    const res = await app.fetch(request);
    let checker = checkers.get(app);
    if (!checker) {
      checker = contractChecker(await (await app.request("/v1/openapi.json")).json());
      checkers.set(app, checker);
    }
    const text = await res.clone().text();
    let body: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("application/json")) body = text === "" ? null : JSON.parse(text);
    const problems = checker.problems(request.method, url.pathname + url.search, res.status, res.headers, body);
    if (problems.length) throw new Error(`The answer breaks the OpenAPI document:\n${problems.join("\n")}`);
    return res;
  };
}
