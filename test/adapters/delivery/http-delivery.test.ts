import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../adapters/clock";
import { WEBHOOK_PORTS, createHttpDelivery, parseRetryAfter } from "../../../adapters/delivery";
import type { DeliveryAdapter } from "../../../src/ports/delivery";
import { TestReceiver, hang, ok, reset, status } from "../../support/receiver";

const send = (d: DeliveryAdapter, url: string, timeoutMs = 2_000, body = '{"id":"evt_1"}') =>
  d.send({ url, headers: { "content-type": "application/json", "service-event": "payout.created" }, body, timeoutMs });

describe("the HTTP delivery adapter against real receivers", () => {
  let receiver: TestReceiver;
  let delivery: DeliveryAdapter;
  beforeAll(async () => {
    receiver = await TestReceiver.start();
    delivery = createHttpDelivery({ allowPrivateNetworks: true });
  });
  afterAll(async () => {
    await delivery.close();
    await receiver.close();
  });
  afterEach(() => {
    receiver.behave = () => ok;
  });

  it("POSTs the body and headers byte for byte, and keeps the connection alive between attempts", async () => {
    const before = receiver.connections;
    const body = '{"id":"evt_1","data":{"object":{"amount":"10.25","note":"é ✓"}}}';
    for (let i = 0; i < 10; i++) expect(await send(delivery, receiver.url(), 2_000, body)).toMatchObject({ kind: "response", status: 200 });
    const last = receiver.requests[receiver.requests.length - 1]!;
    expect(last.body).toBe(body);
    expect(last.headers["service-event"]).toBe("payout.created");
    expect(last.headers["content-type"]).toBe("application/json");
    // kept alive: (undici may open a second socket while the first is being handed back)
    expect(receiver.connections - before).toBeLessThanOrEqual(2);
  });

  it("follows no redirect: a 3xx is the receiver's answer", async () => {
    const seen = receiver.requests.length;
    receiver.behave = () => status(302, { location: "/elsewhere" });
    expect(await send(delivery, receiver.url())).toMatchObject({ kind: "response", status: 302 });
    expect(receiver.requests.length - seen).toBe(1);
  });

  it("reads Retry-After in seconds or as an HTTP date", async () => {
    receiver.behave = () => status(429, { "retry-after": "7" });
    expect(await send(delivery, receiver.url())).toMatchObject({ kind: "response", status: 429, retryAfterSeconds: 7 });
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:01:00 GMT", Date.UTC(2026, 0, 1))).toBe(60);
    expect(parseRetryAfter("soon", 0)).toBeNull();
    expect(parseRetryAfter(undefined, 0)).toBeNull();
  });

  it("cuts a receiver that hangs at the timeout, and reports resets and refused connections", async () => {
    receiver.behave = () => hang;
    const cut = await send(delivery, receiver.url(), 150);
    expect(cut).toMatchObject({ kind: "error", error: "timeout after 150 ms" });
    expect(cut.latencyMs).toBeGreaterThanOrEqual(140);
    receiver.behave = () => reset;
    expect(await send(delivery, receiver.url())).toMatchObject({ kind: "error", error: "connection reset" });
    const closed = await TestReceiver.start();
    const port = closed.port;
    await closed.close();
    expect(await send(delivery, `http://127.0.0.1:${port}/`)).toMatchObject({ kind: "error", error: "connection refused" });
  });

  it("cuts at the 10 s default of docs/decisions.md §6 by the clock it is given, without waiting 10 s", async () => {
    const clock = new ManualClock();
    const timed = createHttpDelivery({ allowPrivateNetworks: true, clock });
    try {
      receiver.behave = () => hang;
      const seen = receiver.requests.length;
      let settled = false;
      const attempt = send(timed, receiver.url(), 10_000).finally(() => (settled = true));
      await receiver.received(seen + 1);
      clock.advance(9_999);
      await new Promise((r) => setTimeout(r, 50));
      expect(settled).toBe(false);
      clock.advance(1);
      expect(await attempt).toMatchObject({ kind: "error", error: "timeout after 10000 ms" });
    } finally {
      await timed.close();
    }
  });
});

describe("the SSRF guard", () => {
  let receiver: TestReceiver;
  beforeAll(async () => {
    receiver = await TestReceiver.start();
  });
  afterAll(() => receiver.close());

  // the receiver's own port is allowed too, so the checks below reach the address guard
  const strict = (resolve?: (h: string) => Promise<{ address: string; family: number }[]>) =>
    createHttpDelivery({ ...(resolve ? { resolve } : {}), ports: [...WEBHOOK_PORTS, receiver.port] });

  it("refuses plain http, credentials, private address literals and localhost unless the host opts in", async () => {
    const d = strict();
    const check = (u: string) => d.checkUrl(new URL(u));
    expect(check("http://hooks.example.com/")).toBe("the URL must use https");
    expect(check("ftp://hooks.example.com/")).toBe("the URL must use https");
    expect(check("https://user:pw@hooks.example.com/")).toBe("the URL must not carry credentials");
    for (const [url, why] of [
      ["https://127.0.0.1/", "loopback"],
      ["https://10.0.0.8/", "private"],
      ["https://172.20.1.1/", "private"],
      ["https://192.168.0.1/", "private"],
      ["https://169.254.169.254/latest/meta-data", "link-local"],
      ["https://100.64.1.1/", "carrier-grade NAT"],
      ["https://[::1]/", "loopback"],
      ["https://[fd12::1]/", "unique-local"],
      ["https://[fe80::1]/", "link-local"],
      ["https://[::ffff:127.0.0.1]/", "loopback"],
      ["https://0.0.0.0/", "this network"],
      ["https://localhost/", "loopback name"],
    ] as const) {
      expect(check(url)).toContain(why);
    }
    expect(check("https://hooks.example.com/x")).toBeNull();
    expect(check("https://93.184.216.34/")).toBeNull();
    expect(check("https://[2606:4700::1111]/")).toBeNull();
    // ports: 443 (named or implied) and 8443 only, outside the private-webhooks mode
    expect(check("https://hooks.example.com:443/x")).toBeNull();
    expect(check("https://hooks.example.com:8443/x")).toBeNull();
    for (const port of [22, 25, 80, 6379, 8080, 9200]) {
      expect(createHttpDelivery().checkUrl(new URL(`https://hooks.example.com:${port}/x`))).toBe("the URL's port must be one of 443, 8443");
    }
    const open = createHttpDelivery({ allowPrivateNetworks: true });
    expect(open.checkUrl(new URL("http://127.0.0.1:9/"))).toBeNull();
    expect(open.checkUrl(new URL("https://hooks.example.com:6379/"))).toBeNull();
    expect(open.checkUrl(new URL("https://user:pw@127.0.0.1/"))).toBe("the URL must not carry credentials");
    await d.close();
    await open.close();
  });

  it("resolves names itself and refuses one that points at a private address, before connecting", async () => {
    const d = strict(async (host) =>
      host === "rebind.example.com"
        ? [
            { address: "93.184.216.34", family: 4 },
            { address: "127.0.0.1", family: 4 },
          ]
        : [{ address: "10.1.2.3", family: 4 }],
    );
    const seen = receiver.requests.length;
    expect(await send(d, `https://internal.example.com:${receiver.port}/`)).toMatchObject({
      kind: "error",
      error: "address refused: internal.example.com resolves to 10.1.2.3 is a private address",
    });
    expect(await send(d, `https://rebind.example.com:${receiver.port}/`)).toMatchObject({
      kind: "error",
      error: "address refused: rebind.example.com resolves to 127.0.0.1 is a loopback address",
    });
    expect(await send(d, `https://127.0.0.1:${receiver.port}/`)).toMatchObject({ kind: "error" });
    expect(receiver.requests.length).toBe(seen);
    await d.close();
  });

  it("connects to the address it resolved and checked (a name no DNS server knows reaches the receiver)", async () => {
    const asked: string[] = [];
    const d = createHttpDelivery({
      allowPrivateNetworks: true,
      resolve: async (host) => {
        asked.push(host);
        return [{ address: "127.0.0.1", family: 4 }];
      },
    });
    const seen = receiver.requests.length;
    expect(await send(d, `http://receiver.payrail.invalid:${receiver.port}/hooks`)).toMatchObject({ kind: "response", status: 200 });
    expect(receiver.requests.length).toBe(seen + 1);
    expect(receiver.requests[seen]!.headers.host).toBe(`receiver.payrail.invalid:${receiver.port}`);
    expect(asked).toEqual(["receiver.payrail.invalid"]);
    await d.close();
  });
});
