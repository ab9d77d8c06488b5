import { createHash } from 'node:crypto';
import {
  apiKeyLookup,
  generateApiKey,
  looksLikeApiKey,
  lookupMatches,
  sealApiKey,
  unsealApiKey,
} from '../../../../shared/accounts/api-keys';
import { hashPassword, verifyPassword } from '../../../../shared/accounts/passwords';
import { createKeyRing } from '../../../../shared/crypto/keys';

const keys = createKeyRing(Buffer.alloc(32, 1));
const otherKeys = createKeyRing(Buffer.alloc(32, 2));

describe('API keys', () => {
  test('are 192 random bits with a recognisable prefix', () => {
    const a = generateApiKey();
    expect(looksLikeApiKey(a)).toBe(true);
    expect(Buffer.from(a.slice(3), 'base64url')).toHaveLength(24);
    expect(generateApiKey()).not.toBe(a);
  });

  test('lookup is a keyed hash: stable, key-dependent, never the key itself', () => {
    const key = 'ak_' + 'x'.repeat(32);
    expect(apiKeyLookup(keys, key)).toBe(apiKeyLookup(keys, key));
    expect(apiKeyLookup(keys, key)).not.toBe(apiKeyLookup(otherKeys, key));
    // Keyed: not the plain digest of the key, which anyone holding a leaked table could test.
    expect(apiKeyLookup(keys, key)).not.toBe(createHash('sha256').update(key).digest('hex'));
    expect(apiKeyLookup(keys, key)).toMatch(/^[0-9a-f]{64}$/);
  });

  test('lookupMatches compares in full', () => {
    const a = apiKeyLookup(keys, 'ak_' + 'a'.repeat(32));
    const b = apiKeyLookup(keys, 'ak_' + 'b'.repeat(32));
    expect(lookupMatches(a, a)).toBe(true);
    expect(lookupMatches(a, b)).toBe(false);
    expect(lookupMatches(a, a.slice(0, 10))).toBe(false);
    expect(lookupMatches('', '')).toBe(false);
  });

  test('sealed copy opens only for its account under the same master key', () => {
    const key = generateApiKey();
    const sealed = sealApiKey(keys, 'account-1', key);
    expect(sealed).not.toContain(key.slice(3));
    expect(unsealApiKey(keys, 'account-1', sealed)).toBe(key);
    expect(() => unsealApiKey(keys, 'account-2', sealed)).toThrow();
    expect(() => unsealApiKey(otherKeys, 'account-1', sealed)).toThrow();
  });
});

describe('passwords', () => {
  test('hash with scrypt and verify', async () => {
    const encoded = await hashPassword('correct horse battery');
    expect(encoded).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(encoded).not.toContain('correct horse');
    await expect(verifyPassword('correct horse battery', encoded)).resolves.toBe(true);
    await expect(verifyPassword('correct horse batterY', encoded)).resolves.toBe(false);
    await expect(verifyPassword('x', 'garbage')).resolves.toBe(false);
  });
});
