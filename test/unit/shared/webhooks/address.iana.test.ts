/**
 * The SSRF guard admits global unicast only (docs/webhooks.md#ssrf). This table is written by hand
 * from the IANA IPv4 and IPv6 Special-Purpose Address Registries (plus multicast, the IPv6 space
 * outside 2000::/3 and the deprecated IPv4-compatible ::/96): for each block its first and last
 * address, both refused; then neighbours just outside some blocks, which are public.
 */
import { classifyAddress } from '../../../../shared/webhooks/address';

/** [block as the registry names it, first address, last address] */
const REFUSED: ReadonlyArray<readonly [string, string, string]> = [
  // IPv4 Special-Purpose Address Registry
  ['0.0.0.0/8 "This network"', '0.0.0.0', '0.255.255.255'],
  ['10.0.0.0/8 Private-Use', '10.0.0.0', '10.255.255.255'],
  ['100.64.0.0/10 Shared Address Space', '100.64.0.0', '100.127.255.255'],
  ['127.0.0.0/8 Loopback', '127.0.0.0', '127.255.255.255'],
  ['169.254.0.0/16 Link Local', '169.254.0.0', '169.254.255.255'],
  ['172.16.0.0/12 Private-Use', '172.16.0.0', '172.31.255.255'],
  ['192.0.0.0/24 IETF Protocol Assignments', '192.0.0.0', '192.0.0.255'],
  ['192.0.0.9/32 Port Control Protocol Anycast', '192.0.0.9', '192.0.0.9'],
  ['192.0.0.10/32 TURN Anycast', '192.0.0.10', '192.0.0.10'],
  ['192.0.0.170/32 NAT64/DNS64 Discovery', '192.0.0.170', '192.0.0.170'],
  ['192.0.2.0/24 Documentation (TEST-NET-1)', '192.0.2.0', '192.0.2.255'],
  ['192.31.196.0/24 AS112-v4', '192.31.196.0', '192.31.196.255'],
  ['192.52.193.0/24 AMT', '192.52.193.0', '192.52.193.255'],
  ['192.88.99.0/24 Deprecated (6to4 Relay Anycast)', '192.88.99.0', '192.88.99.255'],
  ['192.168.0.0/16 Private-Use', '192.168.0.0', '192.168.255.255'],
  ['192.175.48.0/24 Direct Delegation AS112 Service', '192.175.48.0', '192.175.48.255'],
  ['198.18.0.0/15 Benchmarking', '198.18.0.0', '198.19.255.255'],
  ['198.51.100.0/24 Documentation (TEST-NET-2)', '198.51.100.0', '198.51.100.255'],
  ['203.0.113.0/24 Documentation (TEST-NET-3)', '203.0.113.0', '203.0.113.255'],
  ['240.0.0.0/4 Reserved', '240.0.0.0', '255.255.255.254'],
  ['255.255.255.255/32 Limited Broadcast', '255.255.255.255', '255.255.255.255'],
  // IPv4 multicast (not unicast)
  ['224.0.0.0/4 Multicast', '224.0.0.0', '239.255.255.255'],
  // IPv6 Special-Purpose Address Registry
  ['::1/128 Loopback', '::1', '::1'],
  ['::/128 Unspecified', '::', '::'],
  ['::ffff:0:0/96 IPv4-mapped (of a refused IPv4)', '::ffff:0.0.0.0', '::ffff:255.255.255.255'],
  ['64:ff9b::/96 IPv4-IPv6 Translation', '64:ff9b::', '64:ff9b::ffff:ffff'],
  [
    '64:ff9b:1::/48 Local-Use IPv4/IPv6 Translation',
    '64:ff9b:1::',
    '64:ff9b:1:ffff:ffff:ffff:ffff:ffff',
  ],
  ['100::/64 Discard-Only', '100::', '100::ffff:ffff:ffff:ffff'],
  ['2001::/23 IETF Protocol Assignments', '2001::', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001::/32 TEREDO', '2001::', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:1::1/128 Port Control Protocol Anycast', '2001:1::1', '2001:1::1'],
  ['2001:1::2/128 TURN Anycast', '2001:1::2', '2001:1::2'],
  ['2001:2::/48 Benchmarking', '2001:2::', '2001:2:0:ffff:ffff:ffff:ffff:ffff'],
  ['2001:3::/32 AMT', '2001:3::', '2001:3:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:4:112::/48 AS112-v6', '2001:4:112::', '2001:4:112:ffff:ffff:ffff:ffff:ffff'],
  ['2001:10::/28 Deprecated (ORCHID)', '2001:10::', '2001:1f:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:20::/28 ORCHIDv2', '2001:20::', '2001:2f:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:db8::/32 Documentation', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2002::/16 6to4', '2002::', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  [
    '2620:4f:8000::/48 Direct Delegation AS112 Service',
    '2620:4f:8000::',
    '2620:4f:8000:ffff:ffff:ffff:ffff:ffff',
  ],
  ['3fff::/20 Documentation', '3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['5f00::/16 Segment Routing (SRv6) SIDs', '5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['fc00::/7 Unique-Local', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['fe80::/10 Link-Local Unicast', 'fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  // Outside the IPv6 global unicast space 2000::/3 (multicast, unassigned, deprecated ::/96)
  ['ff00::/8 Multicast', 'ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['::/96 IPv4-compatible (deprecated)', '::8.8.8.8', '::255.255.255.255'],
  ['::/96 IPv4-compatible, hex spelling', '::7f00:1', '::808:808'],
  ['4000::/2 unassigned', '4000::', '7fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['1000::/4 unassigned', '1000::', '1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
];

test.each(REFUSED)('%s: %s and %s are refused', (_block, first, last) => {
  expect(classifyAddress(first)).not.toBe('public');
  expect(classifyAddress(last)).not.toBe('public');
});

/** Global unicast addresses next to refused blocks. */
const PUBLIC: readonly string[] = [
  '1.0.0.1',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.0.1.255',
  '192.0.3.0',
  '192.88.98.255',
  '192.167.255.255',
  '198.17.255.255',
  '198.20.0.0',
  '198.51.99.255',
  '198.51.101.0',
  '203.0.112.255',
  '203.0.114.0',
  '223.255.255.255',
  '::ffff:8.8.8.8',
  '2001:200::',
  '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff',
  '2001:db9::',
  '2003::1',
  '2606:4700:4700::1111',
  '2620:4f:8001::',
  '3ffe:ffff::1',
];

test.each(PUBLIC)('%s is public', (ip) => {
  expect(classifyAddress(ip)).toBe('public');
});
