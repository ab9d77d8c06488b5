/**
 * The master key (key-encryption key) and the sub-keys derived from it. Each purpose gets its own
 * HKDF-SHA256 sub-key so that no key is used for two things.
 */
import { createHmac, hkdfSync } from 'node:crypto';

export type KeyPurpose =
  | 'api-key-lookup' // HMAC of API keys: the database index, never the key itself
  | 'api-key-seal' // AES-256-GCM of API keys, so the owner can read theirs again
  | 'data-key-wrap' // AES-256-GCM wrapping of per-APK data keys
  | 'download-link' // HMAC of download-link tokens
  | 'backup'; // per-archive keys of backup archives (HKDF with the archive's salt)

export interface KeyRing {
  /** The master key's id: 8 hex digits of an HMAC of it, safe to store and to show. */
  readonly id: string;
  subkey(purpose: KeyPurpose): Buffer;
}

/** A master key's public id: names it in sealed values without revealing anything of it. */
export function masterKeyId(masterKey: Buffer): string {
  return createHmac('sha256', masterKey).update('apkrelay/key-id').digest('hex').slice(0, 8);
}

export function createKeyRing(masterKey: Buffer): KeyRing {
  if (masterKey.length !== 32) throw new Error('master key must be 32 bytes');
  const cache = new Map<KeyPurpose, Buffer>();
  return {
    id: masterKeyId(masterKey),
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
