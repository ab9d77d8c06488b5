/**
 * Small AES-256-GCM envelope for short secrets, in base64url parts:
 *
 *   v2.<key id>.<iv>.<ciphertext>.<tag>   sealed under the sub-key of the master key with that id
 *   v1.<iv>.<ciphertext>.<tag>            before key ids (read only): tried under every key
 *
 * New values are always v2 under the ring's current key. Opening a v2 value whose key is not in
 * the ring fails with MASTER_KEY_MISSING naming the id it needs (docs/key-rotation.md).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { missingKeyError, type KeyRing, type SubkeyPurpose } from './keys';
import { AppError, PayloadInvalid } from '../errors';

const b64 = (b: Buffer) => b.toString('base64url');

export function seal(
  keys: KeyRing,
  purpose: SubkeyPurpose,
  plaintext: Buffer,
  aad: string,
): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keys.subkey(purpose), iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return ['v2', keys.id, b64(iv), b64(ct), b64(cipher.getAuthTag())].join('.');
}

interface Parts {
  readonly keyId: string | null;
  readonly iv: Buffer;
  readonly ct: Buffer;
  readonly tag: Buffer;
}

function parse(sealed: string): Parts {
  const parts = sealed.split('.');
  const [iv, ct, tag] = parts.slice(-3).map((p) => Buffer.from(p, 'base64url'));
  if (parts[0] === 'v1' && parts.length === 4) return { keyId: null, iv: iv!, ct: ct!, tag: tag! };
  if (parts[0] === 'v2' && parts.length === 5 && /^[0-9a-f]{8}$/.test(parts[1]!)) {
    return { keyId: parts[1]!, iv: iv!, ct: ct!, tag: tag! };
  }
  throw new PayloadInvalid('sealed value', 'malformed');
}

function open(key: Buffer, p: Parts, aad: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, p.iv);
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(p.tag);
  return Buffer.concat([decipher.update(p.ct), decipher.final()]);
}

/** The id of the key a value is sealed under; null for v1 values (no id). */
export function sealedKeyId(sealed: string): string | null {
  return parse(sealed).keyId;
}

export function unseal(keys: KeyRing, purpose: SubkeyPurpose, sealed: string, aad: string): Buffer {
  const p = parse(sealed);
  if (p.keyId !== null) {
    const key = keys.subkeyOf(p.keyId, purpose);
    if (!key) throw missingKeyError(p.keyId, keys);
    return open(key, p, aad);
  }
  for (const id of keys.ids) {
    try {
      return open(keys.subkeyOf(id, purpose)!, p, aad);
    } catch {
      // not this key: try the next
    }
  }
  throw new AppError('STORED_DATA_UNAUTHENTIC', {
    message:
      `a v1 sealed value (no key id) opens under none of the configured master keys ` +
      `(${keys.ids.join(', ')}): it was sealed under another key, or was altered`,
  });
}

/** True when the value is sealed under the ring's current key (nothing for reseal to do). */
export function sealedUnderCurrent(keys: KeyRing, sealed: string): boolean {
  return sealedKeyId(sealed) === keys.id;
}
