/**
 * The deltas feature's collection: one document per (account, package, installed MD5, target
 * SHA-256) pair the generator has tried. Only a `ready` document names a patch, and it is written
 * after its blob is stored and proven, so a reader never sees a half-stored or unproven patch.
 * `too-large` and `unproven` documents remember a try that is not repeated for the same pair.
 * The patch's ciphertext is in its own GridFS bucket (`deltas`), encrypted like an APK.
 */
import type { Db, ObjectId } from 'mongodb';
import { collectionsOf } from '../collections';

export const DELTA_BUCKET = 'deltas';

export type DeltaStatus = 'ready' | 'too-large' | 'unproven';

export interface DeltaDoc {
  _id: ObjectId;
  accountId: string;
  package: string;
  appId: ObjectId;
  fromApkId: ObjectId;
  fromMd5: string;
  toApkId: ObjectId;
  toSha256: string;
  status: DeltaStatus;
  /** The full APK's size, for the share and the savings. */
  fullSize: number;
  /** Patch bytes as served (the zlib stream); for `too-large` too. */
  size: number;
  /** SHA-256 of the patch bytes: its ETag. Empty unless `ready`. */
  sha256: string;
  /** Blob of the patch's ciphertext in the `deltas` bucket, null unless `ready`. */
  blobId: string | null;
  wrappedKey: string | null;
  noncePrefix: string | null;
  /** How long generating took (ms), for the operator. */
  generateMs: number;
  /** Why an `unproven` patch failed its proof. */
  problem: string | null;
  createdAt: Date;
}

export const DELTAS = 'deltas';

export function deltaCollections(db: Db) {
  return collectionsOf<{ deltas: DeltaDoc }>(db, { deltas: DELTAS });
}

export async function ensureDeltaIndexes(db: Db): Promise<void> {
  const { deltas } = deltaCollections(db);
  await deltas.createIndex(
    { accountId: 1, package: 1, fromMd5: 1, toSha256: 1 },
    { unique: true, name: 'account_package_from_to' },
  );
}
