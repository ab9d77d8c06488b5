/**
 * API keys are compared in constant time: a presented key is first hashed (HMAC-SHA256 under a
 * sub-key of the master key), so every comparison is between two 32-byte digests, and the one
 * byte-wise comparison goes through crypto.timingSafeEqual. No timing is measured here (that would
 * be flaky); the code path is checked instead.
 */
import crypto from 'node:crypto';
import { apiKeyLookup, generateApiKey, lookupMatches } from '../../../../shared/accounts/api-keys';
import { createKeyRing } from '../../../../shared/crypto/keys';

const keys = createKeyRing(Buffer.alloc(32, 7));

afterEach(() => jest.restoreAllMocks());

test('any presented value becomes a 32-byte digest before it is compared', () => {
  for (const presented of ['', 'a', 'ak_short', generateApiKey(), 'x'.repeat(4096), 'ünï©ødé']) {
    const lookup = apiKeyLookup(keys, presented);
    expect(lookup).toMatch(/^[0-9a-f]{64}$/);
    expect(Buffer.from(lookup, 'hex')).toHaveLength(32);
  }
});

test('the comparison of digests is timingSafeEqual on equal lengths, equal or not', () => {
  const spy = jest.spyOn(crypto, 'timingSafeEqual');
  const key = generateApiKey();
  const stored = apiKeyLookup(keys, key);
  // Same key; a key differing in its last character; one differing in its first after `ak_`.
  const other = (c: string) => (c === 'A' ? 'B' : 'A');
  const presented = [
    key,
    `${key.slice(0, -1)}${other(key.at(-1)!)}`,
    `ak_${other(key[3]!)}${key.slice(4)}`,
  ];
  const results = presented.map((p) => lookupMatches(apiKeyLookup(keys, p), stored));
  expect(results).toEqual([true, false, false]);
  expect(spy).toHaveBeenCalledTimes(3);
  for (const [a, b] of spy.mock.calls) {
    expect((a as Buffer).length).toBe(32);
    expect((b as Buffer).length).toBe(32);
  }
});

test('a stored value of another length is refused without a byte-wise comparison', () => {
  const spy = jest.spyOn(crypto, 'timingSafeEqual');
  const stored = apiKeyLookup(keys, generateApiKey());
  expect(lookupMatches(stored, stored.slice(0, 62))).toBe(false);
  expect(lookupMatches('', '')).toBe(false);
  expect(spy).not.toHaveBeenCalled();
});
