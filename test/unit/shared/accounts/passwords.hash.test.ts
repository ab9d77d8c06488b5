/**
 * Issue 24 #8: password hashes name their scrypt parameters (`scrypt$N$r$p$salt$key`, salt and
 * key in base64); new ones use OWASP's scrypt recommendation (N=2^17, r=8, p=1, Password Storage
 * Cheat Sheet); hashes with other parameters still verify and are reported for rehashing.
 *
 * The literals are independent of the code under test: RFC 7914's test vector (section 12:
 * "pleaseletmein", "SodiumChloride", N=16384, r=8, p=1, 64 bytes), and a hash in the format of
 * apkrelay's earlier default (N=2^15, 32-byte key) computed with `openssl kdf ... SCRYPT`.
 */
import {
  hashPassword,
  needsRehash,
  parsePasswordHash,
  verifyPassword,
} from '../../../../shared/accounts/passwords';

const RFC7914 =
  'scrypt$16384$8$1$U29kaXVtQ2hsb3JpZGU=$' +
  'cCO9yzr9c0hGHAbNgf046/2o+7qQT44+qbVD9lRdofLVQylVYT8Pz2LUlwUkKpr55h6F3A1lHkDfzwF7RVdYhw==';
/** `openssl kdf -keylen 32 -kdfopt pass:'correct horse battery' -kdfopt hexsalt:00..0f
 *  -kdfopt n:32768 -kdfopt r:8 -kdfopt p:1 SCRYPT`, in apkrelay's format. */
const OLD_DEFAULT =
  'scrypt$32768$8$1$AAECAwQFBgcICQoLDA0ODw==$xy6UCICz8Vv/P6JqOkkUD4DOmhxN0tXSe6sQAUBxupQ=';

describe('the hash format', () => {
  test('parses the parameters, salt and key of a hand-written hash', () => {
    const parsed = parsePasswordHash(OLD_DEFAULT);
    expect(parsed && { N: parsed.N, r: parsed.r, p: parsed.p }).toEqual({ N: 32768, r: 8, p: 1 });
    expect(parsed?.salt.toString('hex')).toBe('000102030405060708090a0b0c0d0e0f');
    expect(parsed?.key).toHaveLength(32);
    expect(parsePasswordHash(RFC7914)?.key).toHaveLength(64);
  });

  test.each([
    ['another scheme', 'bcrypt$16384$8$1$U29kaXVt$cCO9yzr9c0hGHAbNgf046/2o+7qQT44+qbVD9lRdofI='],
    ['N not a power of two', OLD_DEFAULT.replace('$32768$', '$32767$')],
    ['N beyond 2^20', OLD_DEFAULT.replace('$32768$', '$2097152$')],
    ['r of 0', OLD_DEFAULT.replace('$8$1$', '$0$1$')],
    ['p not a number', OLD_DEFAULT.replace('$8$1$', '$8$x$')],
    ['no salt', 'scrypt$32768$8$1$$xy6UCICz8Vv/P6JqOkkUD4DOmhxN0tXSe6sQAUBxupQ='],
    ['a short key', 'scrypt$32768$8$1$AAECAwQFBgcICQoLDA0ODw==$xy6UCA=='],
    ['a missing field', 'scrypt$32768$8$AAECAwQFBgcICQoLDA0ODw==$xy6UCA=='],
    ['garbage', 'garbage'],
  ])('refuses %s', (_what, encoded) => {
    expect(parsePasswordHash(encoded)).toBeNull();
  });
});

describe('verification', () => {
  test('RFC 7914 test vector verifies (64-byte key, N=2^14)', async () => {
    await expect(verifyPassword('pleaseletmein', RFC7914)).resolves.toBe(true);
    await expect(verifyPassword('pleaseletmeim', RFC7914)).resolves.toBe(false);
  });

  test('a hash of the earlier default parameters still verifies', async () => {
    await expect(verifyPassword('correct horse battery', OLD_DEFAULT)).resolves.toBe(true);
    await expect(verifyPassword('correct horse batterY', OLD_DEFAULT)).resolves.toBe(false);
    await expect(verifyPassword('correct horse battery', 'garbage')).resolves.toBe(false);
  });
});

describe('new hashes and rehashing', () => {
  test('new hashes use N=2^17, r=8, p=1, a 16-byte salt and a 32-byte key', async () => {
    const encoded = await hashPassword('correct horse battery');
    expect(encoded).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(encoded).not.toContain('correct horse');
    await expect(verifyPassword('correct horse battery', encoded)).resolves.toBe(true);
    await expect(verifyPassword('correct horse batterY', encoded)).resolves.toBe(false);
    expect(needsRehash(encoded)).toBe(false);
  });

  test('hashes of other parameters need a rehash', () => {
    expect(needsRehash(OLD_DEFAULT)).toBe(true);
    expect(needsRehash(RFC7914)).toBe(true);
    expect(needsRehash(OLD_DEFAULT.replace('$32768$8$1$', '$131072$8$2$'))).toBe(true);
    expect(
      needsRehash(
        'scrypt$131072$8$1$AAECAwQFBgcICQoLDA0ODw==$xy6UCICz8Vv/P6JqOkkUD4DOmhxN0tXSe6sQAUBxupQ=',
      ),
    ).toBe(false);
  });
});
