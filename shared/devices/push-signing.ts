/**
 * Signed push events: every `version` and `giveup` event carries a detached Ed25519 signature over
 * its canonical JSON (keys sorted, `signature` excluded), so a device that pins the server's
 * public key (`GET /api/v2/push-key`) installs nothing this server did not order. The events name
 * the package and device, so a signed event cannot be replayed to another installation. The key
 * pair comes from the pinned `push-signing` seed (shared/crypto/pinned-keys.ts: first derived
 * from the master key, then stored sealed in the database), so every API process signs with the
 * same key, no key file needs distributing, and a master key rotation leaves it unchanged. What
 * the signature covers is the protocol layer's (device-client/protocol/signed-notice.ts), the
 * same definition the devices check against.
 */
import {
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import { signedBytes } from '../../device-client/protocol/signed-notice';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface PushKeys {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

/** The key pair of a master key that was never rotated (what the pinned seed starts as). */
export function derivePushKeys(masterKey: Buffer): PushKeys {
  return pushKeysFromSeed(
    Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'apkrelay/push-signing', 32)),
  );
}

/** The key pair of a 32-byte Ed25519 seed (the pinned `push-signing` key). */
export function pushKeysFromSeed(seed: Buffer): PushKeys {
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

export function signEvent<T extends Record<string, unknown>>(
  keys: PushKeys,
  event: T,
): T & { signature: string } {
  const signature = sign(null, signedBytes(event), keys.privateKey).toString('base64');
  return { ...event, signature };
}

/** Checks a received event against a pinned public key (SPKI DER, base64). */
export function verifyEvent(publicKeyDerBase64: string, event: Record<string, unknown>): boolean {
  const { signature } = event;
  if (typeof signature !== 'string') return false;
  const key = createPublicKey({
    key: Buffer.from(publicKeyDerBase64, 'base64'),
    format: 'der',
    type: 'spki',
  });
  return verify(null, signedBytes(event), key, Buffer.from(signature, 'base64'));
}

export function publicKeyInfo(keys: PushKeys) {
  return {
    algorithm: 'Ed25519',
    publicKey: keys.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    publicKeyPem: keys.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}
