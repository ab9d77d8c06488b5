/**
 * Makes, proves and publishes the patch from one stored APK to another: both read from the
 * store, the patch built, dropped when larger than `maxShare` of the target, else stored
 * encrypted, proven from the stored bytes (prove-patch.ts), and only then published by inserting
 * its `ready` document. A crash before that insert leaves a blob no document names: the next try
 * of the same pair deletes it first (by its metadata), so no half-stored patch is ever served.
 */
import { createHash } from 'node:crypto';
import { MongoServerError, ObjectId, type Db } from 'mongodb';
import type { ApkDoc } from '../catalog/types';
import type { KeyRing } from '../crypto/keys';
import type { BlobStore } from '../storage/blob-store';
import { buildPatch } from './build-patch';
import { DELTA_BUCKET, deltaCollections, type DeltaDoc, type DeltaStatus } from './collections';
import { provePatch } from './prove-patch';
import { openSealed, readSealed, storeSealed, type SealedBlob } from './stored-blob';

export interface DeltaSettings {
  /** DELTA_MAX_SOURCES: installed versions a target gets patches from. */
  readonly maxSources: number;
  /** DELTA_MAX_SHARE: a patch larger than this share of the full APK is not kept. */
  readonly maxShare: number;
}

export const DEFAULT_DELTA_SETTINGS: DeltaSettings = { maxSources: 3, maxShare: 0.6 };

export interface GenerateDeltaDeps {
  readonly db: Db;
  /** The APKs' blobs. */
  readonly apkBlobs: BlobStore;
  /** The patches' blobs (the `deltas` bucket). */
  readonly deltaBlobs: BlobStore;
  readonly keys: KeyRing;
  readonly now: () => Date;
  readonly settings: DeltaSettings;
  /** The patch maker (tests swap in a broken one to see the proof refuse it). */
  readonly build?: (old: Uint8Array, target: Uint8Array) => Buffer;
}

const DUPLICATE_KEY = 11000;

const pairKey = (from: ApkDoc, to: ApkDoc) =>
  `${to.accountId}/${to.package}/${from.md5}/${to.sha256}`;

/** Whether the pair was tried already (any status). */
export async function deltaTried(db: Db, from: ApkDoc, to: ApkDoc): Promise<boolean> {
  const found = await deltaCollections(db).deltas.findOne(
    { accountId: to.accountId, package: to.package, fromMd5: from.md5, toSha256: to.sha256 },
    { projection: { _id: 1 } },
  );
  return found !== null;
}

/** Deletes patch blobs of this pair that no document names (left by a crashed try). */
async function sweepLeftovers(deps: GenerateDeltaDeps, key: string): Promise<void> {
  const files = deps.db.collection<{ _id: ObjectId }>(`${DELTA_BUCKET}.files`);
  const left = await files.find({ 'metadata.pair': key }, { projection: { _id: 1 } }).toArray();
  for (const file of left) await deps.deltaBlobs.delete(file._id.toHexString());
}

function docOf(from: ApkDoc, to: ApkDoc, status: DeltaStatus, fields: Partial<DeltaDoc>): DeltaDoc {
  return {
    _id: new ObjectId(),
    accountId: to.accountId,
    package: to.package,
    appId: to.appId,
    fromApkId: from._id,
    fromMd5: from.md5,
    toApkId: to._id,
    toSha256: to.sha256,
    status,
    fullSize: to.size,
    size: 0,
    sha256: '',
    blobId: null,
    wrappedKey: null,
    noncePrefix: null,
    generateMs: 0,
    problem: null,
    createdAt: new Date(0),
    ...fields,
  };
}

/** Inserts the pair's document; false when another try got there first. */
async function record(deps: GenerateDeltaDeps, doc: DeltaDoc): Promise<boolean> {
  try {
    await deltaCollections(deps.db).deltas.insertOne({ ...doc, createdAt: deps.now() });
    return true;
  } catch (err) {
    if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
    throw err;
  }
}

async function proveStored(deps: GenerateDeltaDeps, sealed: SealedBlob, old: Buffer, to: ApkDoc) {
  const source = await openSealed(deps.deltaBlobs, deps.keys, sealed);
  try {
    return await provePatch(source, old, to);
  } finally {
    await source.close();
  }
}

/** Generates the patch `from` → `to`; what became of it. */
export async function generateDelta(
  deps: GenerateDeltaDeps,
  from: ApkDoc,
  to: ApkDoc,
): Promise<DeltaStatus | 'raced'> {
  const key = pairKey(from, to);
  await sweepLeftovers(deps, key);
  const started = performance.now();
  const [old, target] = await Promise.all([
    readSealed(deps.apkBlobs, deps.keys, from),
    readSealed(deps.apkBlobs, deps.keys, to),
  ]);
  const patch = (deps.build ?? buildPatch)(old, target);
  const generateMs = Math.round(performance.now() - started);
  const sha256 = createHash('sha256').update(patch).digest('hex');
  const base = { size: patch.length, sha256, generateMs };
  if (patch.length > deps.settings.maxShare * to.size) {
    return (await record(deps, docOf(from, to, 'too-large', base))) ? 'too-large' : 'raced';
  }
  const sealed = await storeSealed(deps.deltaBlobs, deps.keys, patch, { pair: key });
  const problem =
    createHash('md5').update(old).digest('hex') !== from.md5
      ? 'the stored old APK does not match its MD5'
      : await proveStored(deps, sealed, old, to);
  if (problem !== null) {
    await deps.deltaBlobs.delete(sealed.blobId);
    return (await record(deps, docOf(from, to, 'unproven', { ...base, problem })))
      ? 'unproven'
      : 'raced';
  }
  if (await record(deps, docOf(from, to, 'ready', { ...base, ...sealed }))) return 'ready';
  await deps.deltaBlobs.delete(sealed.blobId);
  return 'raced';
}
