/**
 * Versioned sealed values and the key ring (issue 24, finding 5; docs/key-rotation.md). Expected
 * values are computed here from the documented construction with node:crypto directly:
 * key id = first 8 hex digits of HMAC-SHA256(master key, "apkrelay/key-id"); sub-key =
 * HKDF-SHA256(master key, no salt, "apkrelay/<purpose>", 32); sealed = AES-256-GCM with the AAD.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync } from 'node:crypto';
import { apiKeyLookups } from '../../../../shared/accounts/api-keys';
import { createKeyRing } from '../../../../shared/crypto/keys';
import { seal, sealedKeyId, unseal } from '../../../../shared/crypto/seal';
import {
  derivePushKeys,
  publicKeyInfo,
  pushKeysFromSeed,
} from '../../../../shared/devices/push-signing';
import { AppError } from '../../../../shared/errors';

const K1 = Buffer.alloc(32, 1);
const K2 = Buffer.alloc(32, 2);
const K3 = Buffer.alloc(32, 3);
const idOf = (k: Buffer) =>
  createHmac('sha256', k).update('apkrelay/key-id').digest('hex').slice(0, 8);
const subkey = (k: Buffer, purpose: string) =>
  Buffer.from(hkdfSync('sha256', k, Buffer.alloc(0), `apkrelay/${purpose}`, 32));

/** A v1 value as apkrelay wrote it before key ids: `v1.<iv>.<ct>.<tag>`, no key named. */
function v1(master: Buffer, purpose: string, plaintext: string, aad: string): string {
  const iv = Buffer.alloc(12, 0x5a);
  const cipher = createCipheriv('aes-256-gcm', subkey(master, purpose), iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return ['v1', iv, ct, cipher.getAuthTag()]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

test('key ids are the documented HMAC, current key first', () => {
  expect(idOf(K1)).toMatch(/^[0-9a-f]{8}$/);
  const ring = createKeyRing(K2, [K1]);
  expect(ring.id).toBe(idOf(K2));
  expect(ring.ids).toEqual([idOf(K2), idOf(K1)]);
  expect(ring.subkeyOf(idOf(K1), 'api-key-seal')).toEqual(subkey(K1, 'api-key-seal'));
  expect(ring.subkey('api-key-seal')).toEqual(subkey(K2, 'api-key-seal'));
  expect(ring.subkeyOf(idOf(K3), 'api-key-seal')).toBeUndefined();
  expect(() => createKeyRing(K1, [K1])).toThrow(/twice/);
  expect(() => createKeyRing(K1, [Buffer.alloc(31)])).toThrow(/32 bytes/);
});

test('new values are v2 and name the sealing key; they open under any ring holding it', () => {
  const sealed = seal(createKeyRing(K1), 'api-key-seal', Buffer.from('secret'), 'ctx');
  expect(sealed.split('.')).toHaveLength(5);
  expect(sealed.startsWith(`v2.${idOf(K1)}.`)).toBe(true);
  expect(sealedKeyId(sealed)).toBe(idOf(K1));
  // The key named, opened by hand: nothing but documented AES-256-GCM.
  const [, , iv, ct, tag] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
  const byHand = createDecipheriv('aes-256-gcm', subkey(K1, 'api-key-seal'), iv!);
  byHand.setAAD(Buffer.from('ctx'));
  byHand.setAuthTag(tag!);
  expect(Buffer.concat([byHand.update(ct!), byHand.final()]).toString()).toBe('secret');
  for (const ring of [createKeyRing(K1), createKeyRing(K2, [K1]), createKeyRing(K3, [K2, K1])]) {
    expect(unseal(ring, 'api-key-seal', sealed, 'ctx').toString()).toBe('secret');
  }
  expect(() => unseal(createKeyRing(K1), 'api-key-seal', sealed, 'other')).toThrow();
  expect(() => unseal(createKeyRing(K1), 'data-key-wrap', sealed, 'ctx')).toThrow();
});

test('a ring without the named key refuses with MASTER_KEY_MISSING naming the key id', () => {
  const sealed = seal(createKeyRing(K1), 'data-key-wrap', Buffer.from('k'), 'data-key:b');
  let caught: unknown;
  try {
    unseal(createKeyRing(K2, [K3]), 'data-key-wrap', sealed, 'data-key:b');
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(AppError);
  expect((caught as AppError).code).toBe('MASTER_KEY_MISSING');
  expect((caught as AppError).message).toContain(`master key ${idOf(K1)}`);
  expect((caught as AppError).message).toContain('MASTER_KEY_PREVIOUS');
  expect((caught as AppError).message).toContain(idOf(K2));
});

test('v1 values (no key id) open under whichever configured key sealed them', () => {
  const old = v1(K1, 'api-key-seal', 'ak_old', 'api-key:acc');
  expect(sealedKeyId(old)).toBeNull();
  expect(unseal(createKeyRing(K1), 'api-key-seal', old, 'api-key:acc').toString()).toBe('ak_old');
  expect(unseal(createKeyRing(K2, [K1]), 'api-key-seal', old, 'api-key:acc').toString()).toBe(
    'ak_old',
  );
  expect(() => unseal(createKeyRing(K2), 'api-key-seal', old, 'api-key:acc')).toThrow(
    new RegExp(`none of the configured master keys \\(${idOf(K2)}\\)`),
  );
});

test('tampering and malformed values are refused', () => {
  const ring = createKeyRing(K1);
  const sealed = seal(ring, 'api-key-seal', Buffer.from('secret'), 'ctx');
  for (const part of [2, 3, 4]) {
    const parts = sealed.split('.');
    const bytes = Buffer.from(parts[part]!, 'base64url');
    bytes[0] = bytes[0]! ^ 1;
    parts[part] = bytes.toString('base64url');
    expect(() => unseal(ring, 'api-key-seal', parts.join('.'), 'ctx')).toThrow();
  }
  // Another key id in the header: the named key does not verify (or is missing).
  const renamed = sealed.replace(`v2.${idOf(K1)}.`, `v2.${idOf(K2)}.`);
  expect(() => unseal(createKeyRing(K1, [K2]), 'api-key-seal', renamed, 'ctx')).toThrow();
  for (const bad of ['v0.a.b.c', 'v2.a.b.c', 'v2.XYZ12345.a.b.c', 'v1.a.b', 'v2.0011aabb.a.b']) {
    expect(() => unseal(ring, 'api-key-seal', bad, 'ctx')).toThrow(/malformed/);
  }
});

test('API-key lookups are offered under every configured key, current first', () => {
  const key = 'ak_' + 'A'.repeat(32);
  const hmac = (k: Buffer) =>
    createHmac('sha256', subkey(k, 'api-key-lookup')).update(key).digest('hex');
  expect(apiKeyLookups(createKeyRing(K2, [K1]), key)).toEqual([hmac(K2), hmac(K1)]);
  expect(apiKeyLookups(createKeyRing(K1), key)).toEqual([hmac(K1)]);
});

test('pinned keys start as the old derivation of the oldest key, and must be loaded', () => {
  const ring = createKeyRing(K3, [K2, K1]);
  expect(ring.initialPinned('download-link')).toEqual(subkey(K1, 'download-link'));
  expect(() => ring.pinned('download-link')).toThrow(/not loaded/);
  const loaded = ring.withPinned({
    'download-link': Buffer.alloc(32, 9),
    'push-signing': ring.initialPinned('push-signing'),
  });
  expect(loaded.pinned('download-link')).toEqual(Buffer.alloc(32, 9));
  // The push key a device pinned under K1 alone is the one the rotated ring starts with.
  expect(publicKeyInfo(pushKeysFromSeed(loaded.pinned('push-signing'))).publicKey).toBe(
    publicKeyInfo(derivePushKeys(K1)).publicKey,
  );
});
