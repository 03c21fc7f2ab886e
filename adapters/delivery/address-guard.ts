import { BlockList, isIP } from "node:net";

/**
 * Address ranges a webhook may not reach unless the host opts in (DECISIONS.md §6, OWASP's SSRF
 * list): private, loopback, link-local, CGNAT, unique-local, multicast and reserved addresses.
 * IPv4-mapped IPv6 addresses are judged by their IPv4 address (BlockList does that), and the
 * NAT64 and IPv4-compatible prefixes are refused whole, since they can wrap any of the above.
 */
const RANGES: [string, number, "ipv4" | "ipv6", string][] = [
  ["0.0.0.0", 8, "ipv4", "a 'this network' address"],
  ["10.0.0.0", 8, "ipv4", "a private address"],
  ["100.64.0.0", 10, "ipv4", "a carrier-grade NAT address"],
  ["127.0.0.0", 8, "ipv4", "a loopback address"],
  ["169.254.0.0", 16, "ipv4", "a link-local address"],
  ["172.16.0.0", 12, "ipv4", "a private address"],
  ["192.0.0.0", 24, "ipv4", "an IETF protocol address"],
  ["192.168.0.0", 16, "ipv4", "a private address"],
  ["198.18.0.0", 15, "ipv4", "a benchmarking address"],
  ["224.0.0.0", 4, "ipv4", "a multicast address"],
  ["240.0.0.0", 4, "ipv4", "a reserved address"],
  ["::", 128, "ipv6", "the unspecified address"],
  ["::1", 128, "ipv6", "a loopback address"],
  ["::", 96, "ipv6", "an IPv4-compatible address"],
  ["64:ff9b::", 96, "ipv6", "a NAT64 address"],
  ["fc00::", 7, "ipv6", "a unique-local address"],
  ["fe80::", 10, "ipv6", "a link-local address"],
  ["ff00::", 8, "ipv6", "a multicast address"],
];

const LISTS = RANGES.map(([network, prefix, family, label]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, label };
});

/** Why `address` (an IP literal) may not be reached, or null when it is a public address. */
export function refusedAddress(address: string): string | null {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 0) return `${address} is not an IP address`;
  const type = family === 4 ? "ipv4" : "ipv6";
  const hit = LISTS.find(({ list }) => list.check(bare, type));
  return hit ? `${bare} is ${hit.label}` : null;
}

/** An address literal in a URL's host (`127.0.0.1`, `[::1]`), or null for a name. */
export function addressLiteral(hostname: string): string | null {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : null;
}
