/** The SSRF guard's classifier against a hand-written table (docs/webhooks.md#ssrf). */
import { classifyAddress, type AddressClass } from '../../../../shared/webhooks/address';

const TABLE: ReadonlyArray<readonly [string, AddressClass]> = [
  ['93.184.216.34', 'public'],
  ['8.8.8.8', 'public'],
  ['2606:4700:4700::1111', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['[::1]', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.1', 'public'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'private'],
  ['::ffff:10.1.2.3', 'private'],
  ['fd12:3456::1', 'private'],
  ['fc00::1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['fe80::1', 'link-local'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['::', 'unspecified'],
  ['255.255.255.255', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['64:ff9b::a00:1', 'reserved'],
];

test.each(TABLE)('%s is %s', (ip, expected) => {
  expect(classifyAddress(ip)).toBe(expected);
});

test('something that is not an address is refused', () => {
  expect(() => classifyAddress('localhost')).toThrow(/not an IP address/);
  expect(() => classifyAddress('127.1')).toThrow(/not an IP address/);
});
