import { addressBucket, keyBucket } from '../../../../shared/accounts/auth-throttle';
import { generateApiKey } from '../../../../shared/accounts/api-keys';

test('addresses: IPv4 (also IPv4-mapped) as is, IPv6 by /64', () => {
  expect(addressBucket('203.0.113.7')).toBe('203.0.113.7');
  expect(addressBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
  expect(addressBucket('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
  expect(addressBucket('2001:0db8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
  expect(addressBucket('::1')).toBe('0:0:0:0::/64');
  expect(addressBucket('fe80::1')).toBe('fe80:0:0:0::/64');
  expect(addressBucket('unknown')).toBe('unknown');
});

test('presented keys: a digest of the first 16 characters of a well-formed key, never the characters', () => {
  const key = generateApiKey();
  const bucket = keyBucket(key);
  expect(bucket).toMatch(/^[0-9a-f]{32}$/);
  expect(bucket).not.toContain(key.slice(3, 11));
  // Same first 16 characters: same bucket; a different start: another one.
  expect(keyBucket(`${key.slice(0, 16)}${'A'.repeat(19)}`)).toBe(bucket);
  expect(keyBucket(`ak_${'B'.repeat(32)}`)).not.toBe(bucket);
  for (const junk of ['', 'junk', 'ak_short', `Bearer ${key}`]) expect(keyBucket(junk)).toBeNull();
});
