import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpDelivery } from "../../../adapters/delivery";
import { refusedAddress, refusedName } from "../../../adapters/delivery/address-guard";
import type { DeliveryAdapter } from "../../../src/ports/delivery";
import { TestReceiver } from "../../support/receiver";

/**
 * The SSRF guard against IANA's IPv4 and IPv6 Special-Purpose Address Registries, written out
 * here again (independently of the guard's table) with bigint arithmetic: every address of
 * every range is refused, at registration (`checkUrl`) and at connect time (a name resolving to
 * it), and addresses outside all of them are accepted.
 */
const IPV4_REGISTRY = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.0.0/29",
  "192.0.0.8/32",
  "192.0.0.9/32",
  "192.0.0.10/32",
  "192.0.0.170/32",
  "192.0.0.171/32",
  "192.0.2.0/24",
  "192.31.196.0/24",
  "192.52.193.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "192.175.48.0/24",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "240.0.0.0/4",
  "255.255.255.255/32",
  "224.0.0.0/4", // multicast: not in the registry, never a receiver
];
const IPV6_REGISTRY = [
  "::1/128",
  "::/128",
  "::ffff:0:0/96",
  "::ffff:0:0:0/96", // IPv4-translated (RFC 2765): not in the registry, but it reaches IPv4 through a translator
  "64:ff9b::/96",
  "64:ff9b:1::/48",
  "100::/64",
  "100:0:0:1::/64",
  "2001::/23",
  "2001::/32",
  "2001:1::1/128",
  "2001:1::2/128",
  "2001:1::3/128",
  "2001:2::/48",
  "2001:3::/32",
  "2001:4:112::/48",
  "2001:10::/28",
  "2001:20::/28",
  "2001:30::/28",
  "2001:db8::/32",
  "2002::/16",
  "2620:4f:8000::/48",
  "3fff::/20",
  "5f00::/16",
  "fc00::/7",
  "fe80::/10",
  "ff00::/8",
  "::/96",
  "fec0::/10", // multicast, IPv4-compatible and site-local: deprecated or never receivers
];

function v4(text: string): bigint {
  return text.split(".").reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}
function v4Text(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 255n)).join(".");
}
function v6(text: string): bigint {
  const [head, tail] = text.includes("::") ? text.split("::") : [text, null];
  const parts = (s: string) => (s === "" ? [] : s.split(":"));
  const h = parts(head!);
  const t = tail === null ? [] : parts(tail);
  const groups = [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}
function v6Text(n: bigint): string {
  return Array.from({ length: 8 }, (_, i) => ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(":");
}

type Range = { family: 4 | 6; first: bigint; last: bigint; cidr: string };
const ranges: Range[] = [
  ...IPV4_REGISTRY.map((cidr) => {
    const [net, bits] = cidr.split("/");
    const size = 1n << BigInt(32 - Number(bits));
    return { family: 4 as const, first: v4(net!), last: v4(net!) + size - 1n, cidr };
  }),
  ...IPV6_REGISTRY.map((cidr) => {
    const [net, bits] = cidr.split("/");
    const size = 1n << BigInt(128 - Number(bits));
    return { family: 6 as const, first: v6(net!), last: v6(net!) + size - 1n, cidr };
  }),
];
const text = (r: Range, n: bigint) => (r.family === 4 ? v4Text(n) : v6Text(n));
const inRegistry = (family: 4 | 6, n: bigint) => ranges.some((r) => r.family === family && r.first <= n && n <= r.last);

const addressIn = (r: Range) => fc.bigInt({ min: r.first, max: r.last }).map((n) => text(r, n));

describe("the SSRF guard and the special-purpose registries", () => {
  const strict = createHttpDelivery();
  afterAll(() => strict.close());
  const literal = (a: string) => (a.includes(":") ? `[${a}]` : a);

  it.each(ranges.map((r) => [r.cidr, r] as const))("refuses %s whole: first, last and any address in it", (_, r) => {
    for (const n of [r.first, r.last]) {
      expect(refusedAddress(text(r, n))).not.toBeNull();
      expect(strict.checkUrl(new URL(`https://${literal(text(r, n))}/hook`))).not.toBeNull();
    }
    fc.assert(
      fc.property(addressIn(r), (a) => refusedAddress(a) !== null && strict.checkUrl(new URL(`https://${literal(a)}/`)) !== null),
      { numRuns: 20 },
    );
  });

  it("accepts any IPv4 or IPv6 address outside every range", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 32n) - 1n }), (n) => {
        if (inRegistry(4, n)) return;
        expect(refusedAddress(v4Text(n))).toBeNull();
      }),
      { numRuns: 2000 },
    );
    // global unicast (2000::/3) outside the registry's ranges
    fc.assert(
      fc.property(fc.bigInt({ min: 0x2000n << 112n, max: (0x4000n << 112n) - 1n }), (n) => {
        if (inRegistry(6, n)) return;
        expect(refusedAddress(v6Text(n))).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses 6to4, Teredo and NAT64 wrappers of private addresses, and IPv4-mapped ones by what they wrap", () => {
    for (const [address, why] of [
      ["2002:c0a8:0101::1", "6to4"], // 192.168.1.1
      ["2002:7f00:0001::", "6to4"], // 127.0.0.1
      ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
      ["64:ff9b::7f00:1", "NAT64"],
      ["64:ff9b:1::a00:1", "NAT64"],
      ["::ffff:10.0.0.1", "private"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:8.8.8.8", "IPv4-mapped"],
      ["::ffff:0:7f00:1", "IPv4-translated"], // 127.0.0.1 through a SIIT translator
      ["::ffff:0:808:808", "IPv4-translated"],
      ["2001:db8::1", "documentation"],
      ["192.0.2.1", "documentation"],
      ["198.51.100.7", "documentation"],
      ["203.0.113.200", "documentation"],
    ] as const) {
      expect(refusedAddress(address), address).toContain(why);
    }
  });

  const LOOPBACK_ALIASES = ["localhost", "ip6-localhost", "ip6-loopback", "localhost6", "localhost.localdomain", "api.localhost", "localhost4"];
  it("refuses loopback aliases and local-only names in any case, with trailing dots", () => {
    const spelling = fc.tuple(
      fc.constantFrom(...LOOPBACK_ALIASES, "printer.local", "db.internal", "nas.home.arpa", "router.lan", "intranet"),
      fc.boolean(),
      fc.integer({ min: 0, max: 2 }),
    );
    fc.assert(
      fc.property(spelling, ([name, upper, dots]) => {
        const host = (upper ? name.toUpperCase() : name) + ".".repeat(dots);
        expect(refusedName(host)).not.toBeNull();
        expect(strict.checkUrl(new URL(`https://${host}/hook`))).not.toBeNull();
      }),
      { numRuns: 200 },
    );
    expect(refusedName("hooks.example.com")).toBeNull();
    expect(refusedName("hooks.example.com.")).toBeNull();
    expect(strict.checkUrl(new URL("https://hooks.example.com./x"))).toBeNull();
  });

  describe("at connect time", () => {
    let receiver: TestReceiver;
    beforeAll(async () => {
      receiver = await TestReceiver.start();
    });
    afterAll(() => receiver.close());

    const send = (d: DeliveryAdapter, url: string) => d.send({ url, headers: { "content-type": "application/json" }, body: "{}", timeoutMs: 2_000 });

    it("refuses a name that resolves into any range, and never connects", async () => {
      const seen = receiver.requests.length;
      // one address per range, each behind a public-looking name
      const samples = ranges.map((r) => text(r, r.first + (r.last - r.first) / 2n));
      for (const address of samples) {
        const d = createHttpDelivery({ resolve: async () => [{ address, family: address.includes(":") ? 6 : 4 }], ports: [receiver.port] });
        const result = await send(d, `https://hooks.example.com:${receiver.port}/`);
        expect(result, address).toMatchObject({ kind: "error" });
        expect((result as { error: string }).error, address).toContain("address refused");
        await d.close();
      }
      expect(receiver.requests.length).toBe(seen);
    });

    it("refuses loopback aliases at send time even when resolved to a public address", async () => {
      const d = createHttpDelivery({ resolve: async () => [{ address: "93.184.216.34", family: 4 }], ports: [receiver.port] });
      for (const host of ["localhost.", "ip6-localhost", "LOCALHOST"]) {
        expect(await send(d, `https://${host}:${receiver.port}/`)).toMatchObject({ kind: "error", error: expect.stringContaining("address refused") });
      }
      await d.close();
    });
  });
});
