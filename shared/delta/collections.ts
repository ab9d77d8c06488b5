/**
 * The deltas feature's collection: one document per (account, package, installed MD5, target
 * SHA-256) pair the generator has tried. Only a `ready` document names a patch, and it is written
 * after its blob is stored and proven, so a reader never sees a half-stored or unproven patch.
 * `too-large` and `unproven` documents remember a try that is not repeated for the same pair.
 * A pair has one document per patch format (`format`, docs/delta-updates.md).
 * The patch's ciphertext is in its own GridFS bucket (`deltas`), encrypted like an APK.
 */
import type { Db, ObjectId } from 'mongodb';
import { collectionsOf } from '../collections';

export const DELTA_BUCKET = 'deltas';

/** `none`: no ARDELTA2 can be made for the pair (nothing reproducible changed, or no plain ZIP). */
export type DeltaStatus = 'ready' | 'too-large' | 'unproven' | 'none';

/** 1: ARDELTA1 (whole file); 2: ARDELTA2 (file by file). */
export type DeltaFormat = 1 | 2;

export interface DeltaDoc {
  _id: ObjectId;
  accountId: string;
  package: string;
  appId: ObjectId;
  fromApkId: ObjectId;
  fromMd5: string;
  toApkId: ObjectId;
  toSha256: string;
  /** Absent on documents written before ARDELTA2 (they are format 1; set at start-up). */
  format?: DeltaFormat;
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

/** The unique index before ARDELTA2, without the format. */
const PAIR_INDEX_V1 = 'account_package_from_to';

/**
 * One document per pair and format. Idempotent: documents from before ARDELTA2 get `format: 1`,
 * and the unique index without the format (which would refuse a pair's second format) is dropped.
 */
export async function ensureDeltaIndexes(db: Db): Promise<void> {
  const { deltas } = deltaCollections(db);
  await deltas.updateMany({ format: { $exists: false } }, { $set: { format: 1 } });
  const existing = await deltas
    .listIndexes()
    .toArray()
    .catch(() => []);
  if (existing.some((index: { name?: unknown }) => index.name === PAIR_INDEX_V1)) {
    await deltas.dropIndex(PAIR_INDEX_V1);
  }
  await deltas.createIndex(
    { accountId: 1, package: 1, fromMd5: 1, toSha256: 1, format: 1 },
    { unique: true, name: 'account_package_from_to_format' },
  );
}
