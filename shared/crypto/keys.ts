/**
 * The master keys (key-encryption keys) and the sub-keys derived from them. Each purpose gets its
 * own HKDF-SHA256 sub-key so that no key is used for two things.
 *
 * A ring holds the current master key (`MASTER_KEY`: it seals) and the previous ones
 * (`MASTER_KEY_PREVIOUS`: they only open what was sealed before a rotation). Two values must
 * outlive every master key because they left the server: the download-link MAC key (tokens in
 * URLs) and the push signing seed (devices pin its public key). They are "pinned": stored sealed
 * in the database (pinned-keys.ts) and attached to the ring with `withPinned`. See
 * docs/key-rotation.md.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import { AppError } from '../errors';

export type SubkeyPurpose =
  | 'api-key-lookup' // HMAC of API keys: the database index, never the key itself
  | 'api-key-seal' // AES-256-GCM of API keys, so the owner can read theirs again
  | 'data-key-wrap' // AES-256-GCM wrapping of per-APK data keys
  | 'pinned-key-seal' // AES-256-GCM of the pinned values below, in the database
  | 'webhook-secret-seal' // AES-256-GCM of webhook endpoints' signing secrets
  | 'totp-seed-seal' // AES-256-GCM of users' TOTP seeds (docs/teams.md)
  | 'backup'; // per-archive keys of backup archives (HKDF with the archive's salt)

export const PINNED_PURPOSES = ['download-link', 'push-signing'] as const;
/** `download-link`: HMAC of link tokens; `push-signing`: the Ed25519 seed of signed events. */
export type PinnedPurpose = (typeof PINNED_PURPOSES)[number];

export interface KeyRing {
  /** The current master key's id: 8 hex digits of an HMAC of it, safe to store and to show. */
  readonly id: string;
  /** Every configured key's id, the current one first, then MASTER_KEY_PREVIOUS in order. */
  readonly ids: readonly string[];
  /** The current master key's sub-key: what seals and computes new values. */
  subkey(purpose: SubkeyPurpose): Buffer;
  /** The sub-key of the configured master key with this id; undefined when it is not configured. */
  subkeyOf(id: string, purpose: SubkeyPurpose): Buffer | undefined;
  /** A pinned value as first created: derived from the oldest configured key (the last one). */
  initialPinned(purpose: PinnedPurpose): Buffer;
  /** A pinned value, once loaded from the database (`withPinned`). */
  pinned(purpose: PinnedPurpose): Buffer;
  withPinned(values: Readonly<Record<PinnedPurpose, Buffer>>): KeyRing;
}

/** A master key's public id: names it in sealed values without revealing anything of it. */
export function masterKeyId(masterKey: Buffer): string {
  return createHmac('sha256', masterKey).update('apkrelay/key-id').digest('hex').slice(0, 8);
}

function derive(masterKey: Buffer, purpose: SubkeyPurpose | PinnedPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `apkrelay/${purpose}`, 32));
}

/** The error for a value sealed under a key this process was not given. */
export function missingKeyError(needed: string, ring: KeyRing): AppError {
  const previous = ring.ids.slice(1);
  return new AppError('MASTER_KEY_MISSING', {
    message:
      `a stored value is sealed under master key ${needed}, which is not configured ` +
      `(MASTER_KEY is ${ring.id}; MASTER_KEY_PREVIOUS: ${previous.join(', ') || 'none'}). ` +
      `Add that key to MASTER_KEY_PREVIOUS, or run "apkrelay keys reseal" while it is still ` +
      `configured (docs/key-rotation.md).`,
  });
}

export function createKeyRing(masterKey: Buffer, previous: readonly Buffer[] = []): KeyRing {
  const all = [masterKey, ...previous];
  if (all.some((k) => k.length !== 32)) throw new Error('master key must be 32 bytes');
  const ids = all.map(masterKeyId);
  if (new Set(ids).size !== ids.length) throw new Error('a master key is listed twice');
  const cache = new Map<string, Buffer>();
  const subkeyOf = (id: string, purpose: SubkeyPurpose) => {
    const index = ids.indexOf(id);
    if (index < 0) return undefined;
    const name = `${id}/${purpose}`;
    let key = cache.get(name);
    if (!key) cache.set(name, (key = derive(all[index]!, purpose)));
    return key;
  };
  const ring = (pinned: Partial<Record<PinnedPurpose, Buffer>>): KeyRing => ({
    id: ids[0]!,
    ids,
    subkey: (purpose) => subkeyOf(ids[0]!, purpose)!,
    subkeyOf,
    initialPinned: (purpose) => derive(all[all.length - 1]!, purpose),
    pinned(purpose) {
      const value = pinned[purpose];
      if (!value) throw new Error(`the pinned ${purpose} key was not loaded (loadPinnedKeys)`);
      return value;
    },
    withPinned: (values) => ring({ ...values }),
  });
  return ring({});
}
