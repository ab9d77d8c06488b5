/**
 * Stored blobs (APKs and patches: both encrypted with a per-blob data key, shared/crypto/) read
 * whole or by position, and a patch's bytes written encrypted. The patch's data key is wrapped
 * for its own blob id, so it opens nothing else.
 */
import { ObjectId } from 'mongodb';
import { Readable } from 'node:stream';
import type { RandomAccessSource } from '../apk/random-access';
import { newDataKey, unwrapDataKey, wrapDataKey } from '../crypto/data-keys';
import type { KeyRing } from '../crypto/keys';
import { newNoncePrefix, SegmentEncryptor } from '../crypto/segmented-aead';
import { AppError } from '../errors';
import type { BlobStore } from '../storage/blob-store';
import { blobCiphertext, decryptingSource } from '../storage/encrypted-source';

export interface SealedBlob {
  readonly blobId: string;
  readonly wrappedKey: string;
  readonly noncePrefix: string;
}

/** The plaintext of a stored blob, by position; each read authenticated. */
export async function openSealed(
  blobs: BlobStore,
  keys: KeyRing,
  ref: SealedBlob,
): Promise<RandomAccessSource> {
  const cipherSize = await blobs.size(ref.blobId);
  if (cipherSize === null) {
    throw new AppError('BLOB_INCOMPLETE', { message: `blob ${ref.blobId} is missing` });
  }
  const key = unwrapDataKey(keys, ref.wrappedKey, ref.blobId);
  const cipher = blobCiphertext(blobs, ref.blobId, cipherSize);
  return decryptingSource(cipher, key, Buffer.from(ref.noncePrefix, 'base64'));
}

/**
 * The whole plaintext of a stored blob, in shared memory: a patch generation thread reads it
 * there (build-off-thread.ts) without a copy of its own.
 */
export async function readSealed(
  blobs: BlobStore,
  keys: KeyRing,
  ref: SealedBlob,
): Promise<Buffer> {
  const source = await openSealed(blobs, keys, ref);
  try {
    const plain = await source.read(0, source.size);
    const bytes = Buffer.from(new SharedArrayBuffer(plain.length));
    bytes.set(plain);
    return bytes;
  } finally {
    await source.close();
  }
}

/** The plaintext as a stream of 1 MiB pieces. */
export async function* streamSealed(source: RandomAccessSource): AsyncGenerator<Uint8Array> {
  const piece = 1 << 20;
  for (let at = 0; at < source.size; at += piece) {
    yield await source.read(at, Math.min(piece, source.size - at));
  }
}

/** Stores `bytes` encrypted under a fresh blob id and data key. */
export async function storeSealed(
  blobs: BlobStore,
  keys: KeyRing,
  bytes: Buffer,
  metadata: Record<string, unknown>,
): Promise<SealedBlob> {
  const blobId = new ObjectId().toHexString();
  const key = newDataKey();
  const prefix = newNoncePrefix();
  const ciphertext = Readable.from([bytes]).pipe(new SegmentEncryptor(key, prefix));
  await blobs.put(blobId, ciphertext, metadata);
  return {
    blobId,
    wrappedKey: wrapDataKey(keys, key, blobId),
    noncePrefix: prefix.toString('base64'),
  };
}
