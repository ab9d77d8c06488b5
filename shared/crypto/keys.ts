/**
 * The master key (key-encryption key) and the sub-keys derived from it. Each purpose gets its own
 * HKDF-SHA256 sub-key so that no key is used for two things.
 */
import { hkdfSync } from 'node:crypto';

export type KeyPurpose =
  | 'api-key-lookup' // HMAC of API keys: the database index, never the key itself
  | 'api-key-seal' // AES-256-GCM of API keys, so the owner can read theirs again
  | 'data-key-wrap' // AES-256-GCM wrapping of per-APK data keys
  | 'download-link'; // HMAC of download-link tokens

export interface KeyRing {
  subkey(purpose: KeyPurpose): Buffer;
}

export function createKeyRing(masterKey: Buffer): KeyRing {
  if (masterKey.length !== 32) throw new Error('master key must be 32 bytes');
  const cache = new Map<KeyPurpose, Buffer>();
  return {
    subkey(purpose) {
      let key = cache.get(purpose);
      if (!key) {
        key = Buffer.from(
          hkdfSync('sha256', masterKey, Buffer.alloc(0), `apkrelay/${purpose}`, 32),
        );
        cache.set(purpose, key);
      }
      return key;
    },
  };
}
