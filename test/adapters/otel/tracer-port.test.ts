import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { formatTraceparent, parseTraceparent } from "../../../adapters/otel";
import { inSpan, NO_TRACER, type SpanOptions, type Tracer } from "../../../src/ports/tracer";
import { tracedApi } from "../../../src/engine/tracing";
import { startHost } from "../../../adapters/cli/host";
import { createMemoryStorage } from "../../../adapters/memory";
import { testWorld } from "../../support/engine";
import { storageKinds } from "../../support/storage";

const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`)).filter((s) => !/^0+$/.test(s));

describe("traceparent (W3C Trace Context)", () => {
  test.prop([hex(32), hex(16), fc.integer({ min: 0, max: 255 })])("reads back what it writes", (traceId, spanId, flags) => {
    const header = formatTraceparent({ traceId, spanId, flags });
    expect(header).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/);
    expect(parseTraceparent(header)).toEqual({ traceId, spanId, flags });
  });

  test.prop([hex(32), hex(16), fc.integer({ min: 3, max: 54 }).filter((i) => i !== 35 && i !== 52), fc.constantFrom(..."gzAF-_ ")])(
    "reads nothing from a header with a character out of place",
    (traceId, spanId, at, c) => {
      const header = formatTraceparent({ traceId, spanId, flags: 1 });
      expect(parseTraceparent(header.slice(0, at) + c + header.slice(at + 1))).toBeNull();
    },
  );

  it("refuses ids of zeros, upper case, version ff and a version 00 with more; reads a later version as far as 00 goes", () => {
    const T = "4bf92f3577b34da6a3ce929d0e0e4736";
    const S = "00f067aa0ba902b7";
    for (const bad of [
      `00-${"0".repeat(32)}-${S}-01`,
      `00-${T}-${"0".repeat(16)}-01`,
      `00-${T.toUpperCase()}-${S}-01`,
      `ff-${T}-${S}-01`,
      `00-${T}-${S}-01-extra`,
      `00-${T}-${S}`,
      `00-${T.slice(1)}-${S}-01`,
    ]) {
      expect(parseTraceparent(bad), bad).toBeNull();
    }
    expect(parseTraceparent(`01-${T}-${S}-01-future`)).toEqual({ traceId: T, spanId: S, flags: 1 });
  });
});

/** A tracer that writes down what happens to its spans. */
function recordingTracer(): Tracer & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    enabled: true,
    startSpan(name: string, options: SpanOptions = {}) {
      log.push(`start ${name}${options.kind ? ` ${options.kind}` : ""}${options.parent ? ` parent ${options.parent.traceparent}` : ""}`);
      return {
        setAttributes: (a) => void log.push(`attributes ${name} ${JSON.stringify(a)}`),
        updateName: (n) => void log.push(`name ${name} ${n}`),
        fail: (e) => void log.push(`fail ${name} ${e instanceof Error ? e.message : String(e)}`),
        end: () => void log.push(`end ${name}`),
        run: (fn) => {
          log.push(`run ${name}`);
          return fn();
        },
      };
    },
    current: () => null,
  };
}

describe("inSpan", () => {
  it("ends a span once, after the value settles, and fails it on a throw or a rejection; the value is returned as it is", async () => {
    const t = recordingTracer();
    expect(inSpan(t, "sync", {}, () => 7)).toBe(7);
    expect(() =>
      inSpan(t, "throws", {}, () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    const iterable = Object.assign(Promise.resolve(1), { [Symbol.asyncIterator]: async function* () {} });
    const returned = inSpan(
      t,
      "async",
      { kind: "client" },
      () => iterable,
      (span, v) => span.setAttributes({ v }),
    );
    expect(returned).toBe(iterable); // a PagedList stays one
    await returned;
    await expect(inSpan(t, "rejects", {}, () => Promise.reject(new Error("no")))).rejects.toThrow("no");
    // a settle callback that throws loses its attributes, never the value or the span's end
    expect(
      inSpan(
        t,
        "bad-settle",
        {},
        () => 3,
        () => {
          throw new Error("attribute");
        },
      ),
    ).toBe(3);
    await new Promise((r) => setTimeout(r, 0));
    expect(t.log).toEqual([
      "start sync",
      "run sync",
      "end sync",
      "start throws",
      "run throws",
      "fail throws boom",
      "end throws",
      "start async client",
      "run async",
      'attributes async {"v":1}',
      "end async",
      "start rejects",
      "run rejects",
      "fail rejects no",
      "end rejects",
      "start bad-settle",
      "run bad-settle",
      "end bad-settle",
    ]);
  });

  it("runs the function alone under NO_TRACER, and an API is left as it is", () => {
    let options = 0;
    expect(
      inSpan(
        NO_TRACER,
        "x",
        () => ({ attributes: { n: ++options } }),
        () => "v",
      ),
    ).toBe("v");
    expect(options).toBe(0); // not even the attributes are built
    const api = Object.freeze({ create: () => 1 });
    expect(tracedApi(NO_TRACER, "things", api)).toBe(api);
    expect(tracedApi(recordingTracer(), "things", api)).not.toBe(api);
  });
});

describe("an engine without a tracer", () => {
  it("runs as before: a traceparent sent is not kept with the due work, and nothing is traced", async () => {
    const w = await testWorld(storageKinds()[0]!);
    try {
      expect(w.engine.tracer).toBe(NO_TRACER);
      await w.request("POST", "/v1/test_helpers/balances/fund", { body: { asset: "USDC", chain: "base", amount: "5" }, headers: { "Idempotency-Key": "f" } });
      const recipient = await (
        await w.request("POST", "/v1/recipients", {
          body: { name: "R", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } },
          headers: { "Idempotency-Key": "r" },
        })
      ).json();
      const res = await w.request("POST", "/v1/payouts", {
        body: { amount: "1", asset: "USDC", recipient: recipient.id },
        headers: { "Idempotency-Key": "p", traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
      });
      expect(res.status).toBe(200);
      const requests = (await w.harness.inspect.work()).map((item) => item.request).filter((r) => r);
      expect(requests.length).toBeGreaterThan(0);
      for (const request of requests) expect(Object.keys(request!).sort()).toEqual(["id", "idempotency_key"]);
      expect(await w.engine.worker.runDue()).toBeGreaterThan(0);
    } finally {
      await w.close();
    }
  });
});

describe("the host with a tracer", () => {
  it("traces a request that reached it over TCP, continuing the caller's traceparent", async () => {
    const tracer = recordingTracer();
    const host = await startHost({ port: 0, storage: createMemoryStorage(), tracer, metrics: false });
    try {
      const caller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
      const res = await fetch(`${host.url}/v1/balances`, { headers: { authorization: `Bearer ${host.apiKey}`, traceparent: caller } });
      expect(res.status).toBe(200);
      expect(tracer.log).toContain(`start GET server parent ${caller}`);
      expect(tracer.log).toContain("name GET GET /v1/balances");
      expect(tracer.log).toContain("start balances.list");
    } finally {
      await host.stop();
    }
  });
});
