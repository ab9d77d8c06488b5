/**
 * The SSRF guard's classifier (docs/webhooks.md#ssrf): which kind of address an IP is. Only
 * `public` addresses (global unicast) receive deliveries unless WEBHOOK_ALLOW_PRIVATE is on.
 * Every block of the IANA IPv4 and IPv6 Special-Purpose Address Registries is refused, even those
 * the registries mark globally reachable (anycast services, AS112, AMT: never a webhook receiver),
 * and so is all IPv6 space outside global unicast (2000::/3). An IPv4 address written in IPv6
 * (IPv4-mapped `::ffff:a.b.c.d`, deprecated IPv4-compatible `::a.b.c.d`) is classed by its IPv4
 * address; an IPv4-compatible one is never public. 6to4, Teredo and NAT64 prefixes, which reach
 * IPv4 space through a relay, are refused whole.
 */
import { BlockList, isIP } from 'node:net';

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'multicast'
  | 'unspecified'
  | 'documentation'
  | 'reserved';

type Range = readonly [AddressClass, string, number];

/** IPv4: the Special-Purpose Address Registry, plus multicast. */
const IPV4: readonly Range[] = [
  ['unspecified', '0.0.0.0', 8],
  ['loopback', '127.0.0.0', 8],
  ['private', '10.0.0.0', 8],
  ['private', '172.16.0.0', 12],
  ['private', '192.168.0.0', 16],
  ['private', '100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['link-local', '169.254.0.0', 16],
  ['multicast', '224.0.0.0', 4],
  ['reserved', '240.0.0.0', 4], // and 255.255.255.255, the limited broadcast
  ['reserved', '192.0.0.0', 24], // IETF protocol assignments (DS-Lite, PCP, TURN, NAT64 discovery)
  ['documentation', '192.0.2.0', 24],
  ['documentation', '198.51.100.0', 24],
  ['documentation', '203.0.113.0', 24],
  ['reserved', '192.31.196.0', 24], // AS112-v4
  ['reserved', '192.52.193.0', 24], // AMT
  ['reserved', '192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['reserved', '192.175.48.0', 24], // direct delegation AS112
  ['reserved', '198.18.0.0', 15], // benchmarking
];

/** IPv6 inside 2000::/3 or otherwise named: the Special-Purpose Address Registry, plus multicast. */
const IPV6: readonly Range[] = [
  ['unspecified', '::', 128],
  ['loopback', '::1', 128],
  ['private', 'fc00::', 7],
  ['link-local', 'fe80::', 10],
  ['multicast', 'ff00::', 8],
  ['reserved', '64:ff9b::', 96], // NAT64: would reach IPv4 space
  ['reserved', '64:ff9b:1::', 48], // local-use NAT64
  ['reserved', '100::', 64], // discard-only
  ['reserved', '2001::', 23], // IETF protocol assignments: Teredo, benchmarking, AMT, ORCHID...
  ['documentation', '2001:db8::', 32],
  ['documentation', '3fff::', 20],
  ['reserved', '2002::', 16], // 6to4: would reach IPv4 space
  ['reserved', '2620:4f:8000::', 48], // direct delegation AS112
  ['reserved', '5f00::', 16], // SRv6 SIDs
];

function lists(ranges: readonly Range[], family: 'ipv4' | 'ipv6'): Map<AddressClass, BlockList> {
  const out = new Map<AddressClass, BlockList>();
  for (const [kind, net, prefix] of ranges) {
    const list = out.get(kind) ?? new BlockList();
    list.addSubnet(net, prefix, family);
    out.set(kind, list);
  }
  return out;
}

const LISTS = { ipv4: lists(IPV4, 'ipv4'), ipv6: lists(IPV6, 'ipv6') } as const;
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet('2000::', 3, 'ipv6');

/** The registry's class of `address` in `family`, or `public` when no block holds it. */
function listed(address: string, family: 'ipv4' | 'ipv6'): AddressClass {
  for (const [kind, list] of LISTS[family]) if (list.check(address, family)) return kind;
  return 'public';
}

/**
 * The IPv4 address inside an IPv4-mapped (`::ffff:0:0/96`) or IPv4-compatible (`::/96`) IPv6
 * address, with which of both; null for any other. `canonical` is Node's compressed spelling.
 */
function embeddedIpv4(canonical: string): { ipv4: string; mapped: boolean } | null {
  const m =
    /^::(?:(ffff):([0-9a-f]{1,4}):([0-9a-f]{1,4})|(?:([0-9a-f]{1,4}):)?([0-9a-f]{1,4}))$/.exec(
      canonical,
    );
  if (!m) return null;
  const [hi, lo] = [parseInt(m[2] ?? m[4] ?? '0', 16), parseInt(m[3] ?? m[5]!, 16)];
  return { ipv4: [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.'), mapped: m[1] !== undefined };
}

function classifyIpv6(address: string): AddressClass {
  const canonical = new URL(`http://[${address}]`).hostname.slice(1, -1).toLowerCase();
  const named = listed(canonical, 'ipv6');
  if (named !== 'public') return named;
  const inner = embeddedIpv4(canonical);
  if (inner) {
    const kind = listed(inner.ipv4, 'ipv4');
    return kind === 'public' && !inner.mapped ? 'reserved' : kind;
  }
  return GLOBAL_UNICAST_V6.check(canonical, 'ipv6') ? 'public' : 'reserved';
}

/** The class of an IP address; throws on something that is not one. */
export function classifyAddress(ip: string): AddressClass {
  const address = ip.replace(/^\[|\]$/g, '');
  const family = isIP(address);
  if (family === 0) throw new Error(`not an IP address: ${ip}`);
  return family === 4 ? listed(address, 'ipv4') : classifyIpv6(address);
}
