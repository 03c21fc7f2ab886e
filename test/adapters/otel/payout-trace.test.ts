import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createHttpDelivery } from "../../../adapters/delivery";
import { createOpenTelemetryTracer, parseTraceparent } from "../../../adapters/otel";
import { testWorld, type TestWorld } from "../../support/engine";
import { TestReceiver } from "../../support/receiver";
import { storageKinds } from "../../support/storage";

const BASE = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
/** The caller's span: the trace the request continues (W3C example ids). */
const CALLER = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" };

/**
 * Issue #24.3: one payout's trace, from its HTTP request to its leg's broadcast on the chain,
 * read from the OpenTelemetry SDK's in-memory exporter; and the webhook it causes carries the
 * trace to the receiver.
 */
describe.each(storageKinds())("one payout's trace (OpenTelemetry, in-memory exporter, $name)", (kind) => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const manager = new AsyncLocalStorageContextManager();
  let receiver: TestReceiver;
  let w: TestWorld;
  let recipient: string;
  let endpoint: string;
  beforeAll(async () => {
    context.setGlobalContextManager(manager.enable());
    receiver = await TestReceiver.start();
    const tracer = createOpenTelemetryTracer({ tracerProvider: provider });
    w = await testWorld(kind, { tracer, delivery: createHttpDelivery({ allowPrivateNetworks: true }) });
    await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "50" });
    endpoint = (await post("/v1/webhook_endpoints", { url: receiver.url(), enabled_events: ["payout.created"] })).id;
    recipient = (await post("/v1/recipients", { name: "Traced", chain_addresses: { base: BASE } })).id;
    await w.engine.worker.runDue();
  }, 30_000);
  afterAll(async () => {
    await w.close();
    await receiver.close();
    context.disable();
    await provider.shutdown();
  });
  beforeEach(() => exporter.reset());

  let key = 0;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    w.request("POST", path, { body, headers: { "Idempotency-Key": `trace-${key++}`, ...headers } }).then((r) => r.json() as Promise<any>);
  const traceparent = `00-${CALLER.traceId}-${CALLER.spanId}-01`;

  /** The finished spans, and each one's path from the root of its trace (names). */
  const finished = () => {
    const spans = exporter.getFinishedSpans();
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    const parentOf = (s: ReadableSpan) => byId.get(s.parentSpanContext?.spanId ?? "");
    const path = (s: ReadableSpan): string[] => {
      const names: string[] = [];
      for (let at: ReadableSpan | undefined = s; at; at = parentOf(at)) names.unshift(at.name);
      return names;
    };
    return { spans, byId, parentOf, path, named: (name: string) => spans.filter((s) => s.name === name) };
  };

  it("runs from the request through the operation and its transactions to the leg's broadcast, and on to the webhook", async () => {
    const payout = await post("/v1/payouts", { amount: "3", asset: "USDC", recipient }, { traceparent });
    expect(payout.object).toBe("payout");
    await w.engine.worker.runDue();
    await receiver.received(1);
    const { spans, byId, parentOf, path, named } = finished();

    // the request continues the caller's trace, and every span of the payout's work is in it
    const [server] = named("POST /v1/payouts");
    expect(server).toBeDefined();
    expect(server!.spanContext().traceId).toBe(CALLER.traceId);
    expect(server!.parentSpanContext?.spanId).toBe(CALLER.spanId);
    expect(server!.attributes).toMatchObject({ "http.route": "/v1/payouts", "http.response.status_code": 200, "payrail.account_id": w.accountId });
    expect(server!.attributes["payrail.request_id"]).toMatch(/^req_/);
    expect(spans.filter((s) => s.spanContext().traceId !== CALLER.traceId).map((s) => s.name)).toEqual([]);

    // the operation, inside the request, with the payout's id; its transactions inside it
    const [create] = named("payouts.create");
    expect(parentOf(create!)).toBe(server);
    expect(create!.attributes).toMatchObject({ "payrail.object_id": payout.id, "payrail.object": "payout", "payrail.account_id": w.accountId });
    expect(spans.some((s) => s.name === "storage transaction" && parentOf(s) === create)).toBe(true);

    // the leg's broadcast on the chain, inside the operation (a payout sends its legs at once)
    const leg = payout.legs[0].id;
    const names = (s: ReadableSpan) => [s.attributes["payrail.leg_id"], ...((s.attributes["payrail.leg_ids"] as string[] | undefined) ?? [])];
    const broadcast = spans.find((s) => s.name.startsWith("chain broadcast") && names(s).includes(leg));
    expect(broadcast).toBeDefined();
    expect(broadcast!.attributes).toMatchObject({ "payrail.port": "chain", "payrail.adapter": "simulated", "payrail.chain": "base" });
    expect(path(broadcast!)).toEqual(["POST /v1/payouts", "payouts.create", broadcast!.name]);

    // the due work the request scheduled joins its trace, under the transaction that scheduled it
    const work = named("work payouts.broadcast")[0]!;
    expect(path(work).slice(0, 3)).toEqual(["POST /v1/payouts", "payouts.create", "storage transaction"]);
    expect(work.attributes).toMatchObject({ "payrail.account_id": w.accountId, "payrail.request_id": server!.attributes["payrail.request_id"] });
    expect(work.attributes["payrail.job_id"]).toMatch(/^job_/);
    expect(work.attributes["payrail.work.payouts"]).toEqual([payout.id]);

    // the webhook it caused carries the trace to the receiver: the span of its send
    const delivered = receiver.requests.find((r) => r.body.includes(payout.id));
    const sent = parseTraceparent(delivered?.headers.traceparent ?? "");
    expect(sent?.traceId).toBe(CALLER.traceId);
    const send = byId.get(sent!.spanId)!;
    expect(send.name).toBe("webhook send");
    // a delivery is scheduled by the fan-out but joins the context its events were emitted in
    expect(path(send)).toEqual(["POST /v1/payouts", "payouts.create", "storage transaction", "work webhook.deliver", "webhook send"]);
    expect(send.attributes).toMatchObject({ "payrail.port": "delivery", "server.address": "127.0.0.1" });
    expect(parentOf(send)!.attributes).toMatchObject({ "payrail.work.endpoint": endpoint, "payrail.work.events": [expect.stringMatching(/^evt_/)] });
  }, 30_000);

  it("follows a batch's legs into the due work that broadcasts them", async () => {
    const batch = await post(
      "/v1/payouts/batches",
      { funding: { asset: "USDC", source: "auto" }, legs: [{ row: 0, amount: "1", recipient }] },
      { traceparent },
    );
    expect(batch.object).toBe("payout_batch");
    await w.engine.worker.runDue();
    const { spans, path } = finished();
    const broadcasts = spans.filter((s) => s.name.startsWith("chain broadcast"));
    expect(broadcasts.length).toBeGreaterThan(0);
    for (const broadcast of broadcasts) {
      expect(broadcast.spanContext().traceId).toBe(CALLER.traceId);
      const names = path(broadcast);
      expect(names.slice(0, 3)).toEqual(["POST /v1/payouts/batches", "batches.create", "storage transaction"]);
      expect(names).toContain("work payouts.broadcast");
      expect([broadcast.attributes["payrail.leg_id"] ?? (broadcast.attributes["payrail.leg_ids"] as string[])[0]]).toEqual([expect.stringMatching(/^leg_/)]);
      expect(names.some((n) => n.startsWith("work "))).toBe(true);
    }
  }, 30_000);

  it("starts a trace of its own for a request without traceparent, and ignores a malformed one", async () => {
    const headers: Record<string, string>[] = [{}, { traceparent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01" }];
    for (const header of headers) {
      exporter.reset();
      const res = await w.request("GET", "/v1/balances", { headers: header });
      expect(res.status).toBe(200);
      const [server] = finished().named("GET /v1/balances");
      expect(server!.parentSpanContext).toBeUndefined();
      expect(server!.spanContext().traceId).not.toBe(CALLER.traceId);
    }
  });
});
