/**
 * The SSRF guard's classifier (docs/webhooks.md#ssrf): which kind of address an IP is. Only
 * `public` addresses receive deliveries unless WEBHOOK_ALLOW_PRIVATE is on.
 */
import { BlockList, isIP } from 'node:net';

export type AddressClass =
  'public' | 'loopback' | 'private' | 'link-local' | 'multicast' | 'unspecified' | 'reserved';

const RANGES: ReadonlyArray<readonly [AddressClass, 'ipv4' | 'ipv6', string, number]> = [
  ['unspecified', 'ipv4', '0.0.0.0', 8],
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['private', 'ipv4', '10.0.0.0', 8],
  ['private', 'ipv4', '172.16.0.0', 12],
  ['private', 'ipv4', '192.168.0.0', 16],
  ['private', 'ipv4', '100.64.0.0', 10], // carrier-grade NAT
  ['link-local', 'ipv4', '169.254.0.0', 16],
  ['multicast', 'ipv4', '224.0.0.0', 4],
  ['reserved', 'ipv4', '240.0.0.0', 4], // and 255.255.255.255
  ['reserved', 'ipv4', '192.0.0.0', 24],
  ['reserved', 'ipv4', '198.18.0.0', 15],
  ['unspecified', 'ipv6', '::', 128],
  ['loopback', 'ipv6', '::1', 128],
  ['private', 'ipv6', 'fc00::', 7],
  ['link-local', 'ipv6', 'fe80::', 10],
  ['multicast', 'ipv6', 'ff00::', 8],
  ['reserved', 'ipv6', '64:ff9b::', 96], // NAT64: would reach IPv4 space
  ['reserved', 'ipv6', '2001:db8::', 32],
];

const LISTS = new Map<AddressClass, BlockList>();
for (const [kind, family, net, prefix] of RANGES) {
  const list = LISTS.get(kind) ?? new BlockList();
  list.addSubnet(net, prefix, family);
  LISTS.set(kind, list);
}

/** An IPv4 address written in IPv6 (`::ffff:a.b.c.d`, `::a.b.c.d`) as IPv4; else as given. */
function unwrapped(ip: string): string {
  const m = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (m) return m[1]!;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (!hex) return ip;
  const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** The class of an IP address; throws on something that is not one. */
export function classifyAddress(ip: string): AddressClass {
  const address = unwrapped(ip.replace(/^\[|\]$/g, ''));
  const family = isIP(address);
  if (family === 0) throw new Error(`not an IP address: ${ip}`);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [kind, list] of LISTS) if (list.check(address, type)) return kind;
  return 'public';
}
