import { BlockList, isIP } from "node:net";

/**
 * Address ranges a webhook may not reach unless the host opts in (docs/decisions.md §6): every entry
 * of IANA's IPv4 and IPv6 Special-Purpose Address Registries (private, loopback, link-local,
 * CGNAT, documentation, benchmarking, protocol assignments, translation and tunnel prefixes),
 * plus multicast and the deprecated site-local and IPv4-compatible ranges. Prefixes that can
 * wrap another address (IPv4-mapped, NAT64, 6to4, Teredo) are refused whole: an IPv4-mapped
 * address names the IPv4 range it wraps when that range is refused too.
 */
export const SPECIAL_PURPOSE_RANGES: readonly (readonly [network: string, prefix: number, family: "ipv4" | "ipv6", label: string])[] = [
  // IPv4 Special-Purpose Address Registry
  ["0.0.0.0", 8, "ipv4", "a 'this network' address"],
  ["10.0.0.0", 8, "ipv4", "a private address"],
  ["100.64.0.0", 10, "ipv4", "a carrier-grade NAT address"],
  ["127.0.0.0", 8, "ipv4", "a loopback address"],
  ["169.254.0.0", 16, "ipv4", "a link-local address"],
  ["172.16.0.0", 12, "ipv4", "a private address"],
  ["192.0.0.0", 24, "ipv4", "an IETF protocol address"],
  ["192.0.2.0", 24, "ipv4", "a documentation address"],
  ["192.31.196.0", 24, "ipv4", "an AS112 address"],
  ["192.52.193.0", 24, "ipv4", "an AMT address"],
  ["192.88.99.0", 24, "ipv4", "a 6to4 relay anycast address"],
  ["192.168.0.0", 16, "ipv4", "a private address"],
  ["192.175.48.0", 24, "ipv4", "an AS112 address"],
  ["198.18.0.0", 15, "ipv4", "a benchmarking address"],
  ["198.51.100.0", 24, "ipv4", "a documentation address"],
  ["203.0.113.0", 24, "ipv4", "a documentation address"],
  ["224.0.0.0", 4, "ipv4", "a multicast address"],
  ["240.0.0.0", 4, "ipv4", "a reserved address"],
  // IPv6 Special-Purpose Address Registry
  ["::", 128, "ipv6", "the unspecified address"],
  ["::1", 128, "ipv6", "a loopback address"],
  ["::ffff:0:0", 96, "ipv6", "an IPv4-mapped address"],
  ["::ffff:0:0:0", 96, "ipv6", "an IPv4-translated address"], // RFC 2765 (SIIT): ::ffff:0:a.b.c.d reaches a.b.c.d through a translator
  ["::", 96, "ipv6", "an IPv4-compatible address"],
  ["64:ff9b::", 96, "ipv6", "a NAT64 address"],
  ["64:ff9b:1::", 48, "ipv6", "a local-use NAT64 address"],
  ["100::", 64, "ipv6", "a discard-only address"],
  ["100:0:0:1::", 64, "ipv6", "a dummy IPv6 prefix address"],
  ["2001::", 32, "ipv6", "a Teredo address"],
  ["2001::", 23, "ipv6", "an IETF protocol address"],
  ["2001:db8::", 32, "ipv6", "a documentation address"],
  ["2002::", 16, "ipv6", "a 6to4 address"],
  ["2620:4f:8000::", 48, "ipv6", "an AS112 address"],
  ["3fff::", 20, "ipv6", "a documentation address"],
  ["5f00::", 16, "ipv6", "a segment routing (SRv6) address"],
  ["fc00::", 7, "ipv6", "a unique-local address"],
  ["fe80::", 10, "ipv6", "a link-local address"],
  ["fec0::", 10, "ipv6", "a site-local address"],
  ["ff00::", 8, "ipv6", "a multicast address"],
];

const LISTS = SPECIAL_PURPOSE_RANGES.map(([network, prefix, family, label]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, family, label };
});

/** Why `address` (an IP literal) may not be reached, or null when it is a public address. */
export function refusedAddress(address: string): string | null {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 0) return `${address} is not an IP address`;
  const type = family === 4 ? "ipv4" : "ipv6";
  // BlockList matches an IPv4-mapped address against the IPv4 ranges (which come first), and
  // an IPv4 address against the IPv6 ranges that map it: IPv4 is judged by the IPv4 ranges only
  const hit = LISTS.find((l) => (type === "ipv6" || l.family === "ipv4") && l.list.check(bare, type));
  return hit ? `${bare} is ${hit.label}` : null;
}

/** Names of the loopback interface in common hosts files and resolvers. */
const LOOPBACK_NAMES = new Set([
  "localhost",
  "localhost.localdomain",
  "localhost4",
  "localhost4.localdomain4",
  "localhost6",
  "localhost6.localdomain6",
  "ip6-localhost",
  "ip6-loopback",
]);
/** Special-use and private-use domains (RFC 6761, 6762, 8375, 9476; ICANN's .internal) no public receiver lives under. */
const LOCAL_SUFFIXES = ["localhost", "local", "internal", "home.arpa", "localdomain", "lan", "intranet", "invalid", "test", "onion", "alt"];

/** Why a host name (not an address) may not be reached, or null. Trailing dots and case do not matter. */
export function refusedName(hostname: string): string | null {
  const name = hostname.toLowerCase().replace(/\.+$/, "");
  if (name === "") return `${hostname} is not a host name`;
  if (LOOPBACK_NAMES.has(name) || name.endsWith(".localhost")) return `${hostname} is a loopback name`;
  const suffix = LOCAL_SUFFIXES.find((s) => name === s || name.endsWith(`.${s}`));
  if (suffix) return `${hostname} is a special-use name (.${suffix}) that no public receiver has`;
  if (!name.includes(".")) return `${hostname} is a single-label name (a local host)`;
  return null;
}

/** An address literal in a URL's host (`127.0.0.1`, `[::1]`), or null for a name. */
export function addressLiteral(hostname: string): string | null {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : null;
}
