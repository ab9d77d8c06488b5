/**
 * Per-APK data keys: random AES-256 keys, stored only wrapped (AES-256-GCM) under the master
 * key's `data-key-wrap` sub-key and bound to the blob they encrypt, so a wrapped key copied onto
 * another record does not open it.
 */
import { randomBytes } from 'node:crypto';
import type { KeyRing } from './keys';
import { seal, unseal } from './seal';

export function newDataKey(): Buffer {
  return randomBytes(32);
}

export function wrapDataKey(keys: KeyRing, dataKey: Buffer, blobId: string): string {
  return seal(keys, 'data-key-wrap', dataKey, `data-key:${blobId}`);
}

/** Opens a wrapped key under whichever configured master key sealed it. */
export function unwrapDataKey(keys: KeyRing, wrapped: string, blobId: string): Buffer {
  return unseal(keys, 'data-key-wrap', wrapped, `data-key:${blobId}`);
}
