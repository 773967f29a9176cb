// Which addresses a webhook may not reach unless private networks are allowed
// (ORCA_WEBHOOK_ALLOW_PRIVATE_NETWORKS): loopback, link-local (where cloud
// metadata services answer), private and shared ranges, and every other
// reserved block of IANA's special-purpose registries, for IPv4 and IPv6,
// and every IPv6 spelling of an IPv4 address (mapped, compatible, NAT64).
// Used twice: on the URL when an endpoint is created or changed, and on the
// address a delivery actually connects to (a name may resolve elsewhere by
// then: DNS rebinding).
import { BlockList, isIP } from 'node:net';

// [range, prefix length, what it is]; what the refusal says comes from the third.
const V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'a "this network" address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address (cloud metadata services live here)'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'a reserved (IETF protocol) address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a reserved (6to4 relay) address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
];

const V6: [string, number, string][] = [
  ['::', 128, 'the unspecified address'],
  ['::1', 128, 'a loopback address'],
  // Deprecated (RFC 4291); where a kernel still tunnels it, ::7f00:1 reaches
  // 127.0.0.1. Refused whole, like NAT64: no receiver has a use for either.
  ['::', 96, 'a deprecated IPv4-compatible address'],
  ['64:ff9b::', 96, 'a NAT64 address'],
  ['64:ff9b:1::', 48, 'a local-use NAT64 address'],
  ['100::', 64, 'a discard-only address'],
  ['2001::', 23, 'a reserved (IETF protocol) address'],
  ['2001:db8::', 32, 'a documentation address'],
  ['2002::', 16, 'a 6to4 address'],
  ['fc00::', 7, 'a private (unique local) address'],
  ['fe80::', 10, 'a link-local address'],
  ['fec0::', 10, 'a site-local address'],
  ['ff00::', 8, 'a multicast address'],
];

/** Ranges private-network installations may allow (ORCA_WEBHOOK_ALLOW_PRIVATE_NETWORKS); the rest stay refused. */
const PRIVATE = new Set(['a private address', 'a loopback address', 'a shared (carrier-grade NAT) address', 'a private (unique local) address']);

const ranges = [
  ...V4.map(([net, bits, what]) => ({ family: 'ipv4' as const, net, bits, what })),
  ...V6.map(([net, bits, what]) => ({ family: 'ipv6' as const, net, bits, what })),
].map((range) => {
  const list = new BlockList();
  list.addSubnet(range.net, range.bits, range.family);
  return { ...range, list };
});

/**
 * Why a delivery may not go to `address` (an IP literal), or undefined when
 * it may. With `allowPrivateNetworks`, private, shared and loopback ranges
 * pass; link-local (cloud metadata), multicast and the other reserved ranges
 * never do. Anything that is not an IP literal is refused.
 */
export function forbiddenAddress(address: string, options: { allowPrivateNetworks?: boolean } = {}): string | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 0) return `${address} is not an IP address`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  // No family filter: BlockList matches an IPv4-mapped IPv6 address in any
  // spelling (::ffff:7f00:1, 0:0:0:0:0:ffff:127.0.0.1, …) against IPv4
  // rules, and the IPv4 rows come first, so it is refused as its IPv4 is.
  // An IPv4 address matches no IPv6 row (none covers ::ffff:0:0/96).
  for (const range of ranges) {
    if (!range.list.check(bare, type)) continue;
    if (options.allowPrivateNetworks && PRIVATE.has(range.what)) return undefined;
    return `${address} is ${range.what}`;
  }
  return undefined;
}
