/**
 * Makes, proves and publishes the patches from one stored APK to another, in each format: both
 * APKs read from the store (into shared memory), ARDELTA2 (file by file) built when the APKs allow
 * it, then ARDELTA1 (whole file), each built on a thread (build-off-thread.ts). Each patch is dropped when larger than `maxShare` of the target, else stored encrypted, proven from the stored bytes
 * with its format's applier (prove-patch.ts), and only then published by inserting its `ready`
 * document. A crash before that insert leaves a blob no document names: the next try of the same
 * pair and format deletes it first (by its metadata), so no half-stored patch is ever served.
 */
import { createHash } from 'node:crypto';
import { MongoServerError, ObjectId, type Db } from 'mongodb';
import type { ApkDoc } from '../catalog/types';
import type { KeyRing } from '../crypto/keys';
import type { BlobStore } from '../storage/blob-store';
import { buildPatch2OffThread, buildPatchOffThread } from './build-off-thread';
import type { Patch2 } from './build-patch2';
import {
  DELTA_BUCKET,
  deltaCollections,
  type DeltaDoc,
  type DeltaFormat,
  type DeltaStatus,
} from './collections';
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
  /**
   * The patch makers (tests swap in a broken one to see the proof refuse it); by default each
   * runs on a thread of its own (build-off-thread.ts), stopped by the signal.
   */
  readonly build?: (old: Buffer, target: Buffer, signal: AbortSignal) => Buffer | Promise<Buffer>;
  readonly build2?: (old: Buffer, target: Buffer, signal: AbortSignal) => Promise<Patch2 | null>;
}

const defaultBuild = (pair: string) => (old: Buffer, target: Buffer, signal: AbortSignal) =>
  buildPatchOffThread({ pair, old, target, signal });
const defaultBuild2 = (pair: string) => (old: Buffer, target: Buffer, signal: AbortSignal) =>
  buildPatch2OffThread({ pair, old, target, signal });

const DUPLICATE_KEY = 11000;

const pairKey = (from: ApkDoc, to: ApkDoc) =>
  `${to.accountId}/${to.package}/${from.md5}/${to.sha256}`;

const pairQuery = (from: ApkDoc, to: ApkDoc) => ({
  accountId: to.accountId,
  package: to.package,
  fromMd5: from.md5,
  toSha256: to.sha256,
});

/** The pair's document of `format`, if it was tried already (any status). */
async function triedDoc(db: Db, from: ApkDoc, to: ApkDoc, format: DeltaFormat) {
  return deltaCollections(db).deltas.findOne({ ...pairQuery(from, to), format });
}

/** Whether the pair was tried already in every format (any status). */
export async function deltaTried(db: Db, from: ApkDoc, to: ApkDoc): Promise<boolean> {
  const count = await deltaCollections(db).deltas.countDocuments({
    ...pairQuery(from, to),
    format: { $in: [1, 2] },
  });
  return count >= 2;
}

/** A patch blob's metadata: the pair, and the format unless 1 (as before ARDELTA2). */
const metadataOf = (key: string, format: DeltaFormat) =>
  format === 1 ? { pair: key } : { pair: key, format };

/** Deletes patch blobs of this pair and format that no document names (left by a crashed try). */
async function sweepLeftovers(deps: GenerateDeltaDeps, key: string, format: DeltaFormat) {
  const files = deps.db.collection<{ _id: ObjectId }>(`${DELTA_BUCKET}.files`);
  const query = {
    'metadata.pair': key,
    'metadata.format': format === 1 ? { $exists: false } : format,
  };
  const left = await files.find(query, { projection: { _id: 1 } }).toArray();
  for (const file of left) await deps.deltaBlobs.delete(file._id.toHexString());
}

interface Made {
  readonly format: DeltaFormat;
  readonly from: ApkDoc;
  readonly to: ApkDoc;
}

function docOf(made: Made, status: DeltaStatus, fields: Partial<DeltaDoc>): DeltaDoc {
  const { from, to } = made;
  return {
    _id: new ObjectId(),
    accountId: to.accountId,
    package: to.package,
    appId: to.appId,
    fromApkId: from._id,
    fromMd5: from.md5,
    toApkId: to._id,
    toSha256: to.sha256,
    format: made.format,
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

async function proveStored(deps: GenerateDeltaDeps, sealed: SealedBlob, old: Buffer, made: Made) {
  const source = await openSealed(deps.deltaBlobs, deps.keys, sealed);
  try {
    return await provePatch(source, old, made.to, made.format);
  } finally {
    await source.close();
  }
}

/**
 * Keeps a made patch when it is at most `limit` bytes: stored, proven, published. What became of
 * it ('raced' when another try published the pair's format first).
 */
async function publish(
  deps: GenerateDeltaDeps,
  made: Made,
  patch: { bytes: Buffer; generateMs: number; old: Buffer; limit: number },
): Promise<DeltaStatus | 'raced'> {
  const { bytes, old } = patch;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const base = { size: bytes.length, sha256, generateMs: patch.generateMs };
  const settle = async (status: DeltaStatus, fields: Partial<DeltaDoc>) =>
    (await record(deps, docOf(made, status, fields))) ? status : 'raced';
  if (bytes.length > patch.limit) return settle('too-large', base);
  const key = pairKey(made.from, made.to);
  const sealed = await storeSealed(deps.deltaBlobs, deps.keys, bytes, metadataOf(key, made.format));
  const problem =
    createHash('md5').update(old).digest('hex') !== made.from.md5
      ? 'the stored old APK does not match its MD5'
      : await proveStored(deps, sealed, old, made);
  if (problem !== null) {
    await deps.deltaBlobs.delete(sealed.blobId);
    return settle('unproven', { ...base, problem });
  }
  const outcome = await settle('ready', { ...base, ...sealed });
  if (outcome === 'raced') await deps.deltaBlobs.delete(sealed.blobId);
  return outcome;
}

const elapsed = (started: number) => Math.round(performance.now() - started);

/** ARDELTA2 for the pair (`none` when no entry can go file by file). */
async function generateFormat2(
  deps: GenerateDeltaDeps,
  made: Made,
  files: { old: Buffer; target: Buffer; signal: AbortSignal },
): Promise<DeltaStatus | 'raced'> {
  const key = pairKey(made.from, made.to);
  await sweepLeftovers(deps, key, 2);
  const started = performance.now();
  const built = await (deps.build2 ?? defaultBuild2(key))(files.old, files.target, files.signal);
  if (built?.patch == null) {
    const none = docOf(made, 'none', { generateMs: elapsed(started) });
    return (await record(deps, none)) ? 'none' : 'raced';
  }
  const limit = deps.settings.maxShare * made.to.size;
  const patch = { bytes: built.patch, generateMs: elapsed(started), old: files.old, limit };
  return publish(deps, made, patch);
}

/**
 * Generates the patches `from` → `to` (each format not tried yet); what became of ARDELTA1.
 * `signal` (the worker closing, the job's budget spent) stops a generation under way at once:
 * the call rejects and nothing of that format is published.
 * ARDELTA2 first: it is usually several times smaller and quicker to make, and the devices that
 * apply it (every current client) are told "not ready yet" until it is decided, so they get it
 * rather than a larger ARDELTA1 made before it. Each is kept within DELTA_MAX_SHARE; the endpoint
 * serves the smallest the client accepts.
 */
export async function generateDelta(
  deps: GenerateDeltaDeps,
  from: ApkDoc,
  to: ApkDoc,
  signal: AbortSignal = new AbortController().signal,
): Promise<DeltaStatus | 'raced'> {
  const [old, target] = await Promise.all([
    readSealed(deps.apkBlobs, deps.keys, from),
    readSealed(deps.apkBlobs, deps.keys, to),
  ]);
  if ((await triedDoc(deps.db, from, to, 2)) === null) {
    await generateFormat2(deps, { format: 2, from, to }, { old, target, signal });
  }
  if ((await triedDoc(deps.db, from, to, 1)) !== null) return 'raced';
  const key = pairKey(from, to);
  await sweepLeftovers(deps, key, 1);
  const started = performance.now();
  const bytes = await (deps.build ?? defaultBuild(key))(old, target, signal);
  const limit = deps.settings.maxShare * to.size;
  const patch = { bytes, generateMs: elapsed(started), old, limit };
  return publish(deps, { format: 1, from, to }, patch);
}
