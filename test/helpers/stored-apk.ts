/**
 * An APK record whose bytes are stored encrypted in the real GridFS blob store, as an upload
 * stores them (fresh data key wrapped under `keys`), for tests of what downloads read.
 */
import { Readable } from 'node:stream';
import { ObjectId, type Db } from 'mongodb';
import type { ApkDoc } from '../../shared/catalog/types';
import { newDataKey, wrapDataKey } from '../../shared/crypto/data-keys';
import type { KeyRing } from '../../shared/crypto/keys';
import { SegmentEncryptor, newNoncePrefix } from '../../shared/crypto/segmented-aead';
import { gridFsBlobStore } from '../../shared/storage/blob-store';

export async function storedApk(db: Db, keys: KeyRing, plain: Buffer): Promise<ApkDoc> {
  const blobId = new ObjectId().toHexString();
  const dataKey = newDataKey();
  const prefix = newNoncePrefix();
  const encrypted = Readable.from([plain]).pipe(new SegmentEncryptor(dataKey, prefix));
  await gridFsBlobStore(db).put(blobId, encrypted, {});
  return {
    _id: new ObjectId(),
    blobId,
    size: plain.length,
    wrappedKey: wrapDataKey(keys, dataKey, blobId),
    noncePrefix: prefix.toString('base64'),
  } as ApkDoc;
}
