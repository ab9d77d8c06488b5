/**
 * API keys: 192 random bits, shown to their owner. The database holds an HMAC of the key (the
 * lookup index; a dump alone does not reveal keys) and an AES-GCM sealed copy (so the owner can
 * read it again), both under sub-keys of the master key. After a rotation the lookup is checked
 * under every configured key until `apkrelay keys reseal` rewrites both (docs/key-rotation.md).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyRing } from '../crypto/keys';
import { seal, unseal } from '../crypto/seal';

/** Account keys `ak_`, device keys `dk_`, CI tokens `ct_` (docs/keys.md); same length and alphabet. */
export type KeyPrefix = 'ak_' | 'dk_' | 'ct_';
const KEY_PATTERN = /^(ak|dk|ct)_[A-Za-z0-9_-]{32}$/;

export function generateApiKey(prefix: KeyPrefix = 'ak_'): string {
  return prefix + randomBytes(24).toString('base64url');
}

/** Cheap shape check (any kind) before any database work; says nothing about validity. */
export function looksLikeApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

function lookupUnder(key: Buffer, apiKey: string): string {
  return createHmac('sha256', key).update(apiKey).digest('hex');
}

/** The lookup value new records store: under the current master key. */
export function apiKeyLookup(keys: KeyRing, apiKey: string): string {
  return lookupUnder(keys.subkey('api-key-lookup'), apiKey);
}

/**
 * The lookup value under every configured master key, current first: a record written before a
 * rotation (and not yet resealed) is found under the previous key's value.
 */
export function apiKeyLookups(keys: KeyRing, apiKey: string): string[] {
  return keys.ids.map((id) => lookupUnder(keys.subkeyOf(id, 'api-key-lookup')!, apiKey));
}

/** Constant-time comparison of a presented key's lookup value with a stored one. */
export function lookupMatches(presented: string, stored: string): boolean {
  const a = Buffer.from(presented, 'hex');
  const b = Buffer.from(stored, 'hex');
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}

export function sealApiKey(keys: KeyRing, accountId: string, apiKey: string): string {
  return seal(keys, 'api-key-seal', Buffer.from(apiKey), `api-key:${accountId}`);
}

export function unsealApiKey(keys: KeyRing, accountId: string, sealed: string): string {
  return unseal(keys, 'api-key-seal', sealed, `api-key:${accountId}`).toString();
}
