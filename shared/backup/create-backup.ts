/**
 * Writes one backup archive of a database into a directory (see manifest.ts for the format).
 *
 * Consistency: without snapshots or transactions (not every MongoDB-protocol server has them), the
 * archive is not a point-in-time image. What holds: each collection is read in one pass; plain
 * collections are read before the GridFS buckets, and GridFS files are immutable and written before
 * the records that point at them, so every APK record (and exception screenshot reference) in the
 * archive has its bytes in the archive. A write racing the backup may or may not be included; a
 * GridFS file deleted mid-backup is left out with its `.files` document. Run it when writes are
 * rare (the nightly default, 02:30) for an archive that is, in practice, a single point in time.
 *
 * Parts are staged in a private directory next to the archives, then packed, gzip'd and sealed
 * (envelope.ts: encrypted and authenticated under a key derived from the master key); the
 * archive appears under its final name only when complete (rename), with a `.sha256` sidecar
 * (a quick unkeyed check of the file; authenticity rests on the envelope).
 */
import { mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { BSON, GridFSBucket, type Db, type Document } from 'mongodb';
import type { KeyRing } from '../crypto/keys';
import type { Logger } from '../log';
import { sealArchive } from './envelope';
import { digestTap, writeHashed } from './hashing';
import {
  archiveName,
  FORMAT,
  MANIFEST_NAME,
  sidecarName,
  type Manifest,
  type Part,
} from './manifest';
import { tarStream, type TarInput } from './tar';
import { coerceError } from '../errors';
import { CLAIMS_COLLECTION } from '../storage/claims';

const { EJSON } = BSON;

export interface BackupSummary {
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly collections: Readonly<Record<string, number>>;
  readonly files: number;
}

export interface CreateBackupOptions {
  readonly db: Db;
  readonly dir: string;
  /** The instant the backup is for; names the archive (a re-run for it replaces it). */
  readonly at: Date;
  readonly log: Logger;
  /** Seals the archive (the current master key). */
  readonly keys: KeyRing;
  readonly signal?: AbortSignal;
}

/** Collections to dump, plain ones first, and the GridFS buckets (by `<bucket>.files`). */
export async function listContents(db: Db): Promise<{ plain: string[]; buckets: string[] }> {
  const names = (await db.listCollections({}, { nameOnly: true }).toArray())
    .map((c) => c.name)
    // Claims guard races under way, not data: restored, they would hold back moves they no longer
    // match (a rollout's next revision) until they expire.
    .filter((n) => !n.startsWith('system.') && n !== CLAIMS_COLLECTION)
    .sort();
  const buckets = names
    .filter((n) => n.endsWith('.files') && names.includes(`${n.slice(0, -6)}.chunks`))
    .map((n) => n.slice(0, -6));
  const gridfs = new Set(buckets.flatMap((b) => [`${b}.files`, `${b}.chunks`]));
  return { plain: names.filter((n) => !gridfs.has(n)), buckets };
}

async function* ejsonLines(docs: AsyncIterable<Document>, counter: { n: number }) {
  for await (const doc of docs) {
    counter.n += 1;
    yield `${EJSON.stringify(doc, { relaxed: false })}\n`;
  }
}

/** What the dump steps add up: the archive's parts and the counts the manifest reports. */
interface Dumped {
  readonly parts: Part[];
  readonly collections: Record<string, number>;
  files: number;
}

export async function createBackup(options: CreateBackupOptions): Promise<BackupSummary> {
  const { db, dir, at } = options;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stage = await mkdtemp(path.join(dir, '.staging-'));
  try {
    await mkdir(path.join(stage, 'collections'));
    await mkdir(path.join(stage, 'gridfs'));
    const dumped: Dumped = { parts: [], collections: {}, files: 0 };
    const { plain, buckets } = await listContents(db);
    await dumpCollections(options, stage, plain, dumped);
    for (const [b, bucket] of buckets.entries())
      await dumpBucket(options, stage, b, bucket, dumped);
    const { parts, collections, files } = dumped;
    const manifest: Manifest = {
      format: FORMAT,
      version: 1,
      createdAt: at.toISOString(),
      database: db.databaseName,
      collections,
      files,
      parts,
    };
    await writeFile(path.join(stage, MANIFEST_NAME), JSON.stringify(manifest, null, 2), {
      mode: 0o600,
    });
    const { final, bytes, sha256 } = await packArchive(options, stage, parts);
    return { path: final, bytes, sha256, collections, files };
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

/** Writes each plain collection as EJSON lines (`collections/<i>.ejson`). */
async function dumpCollections(
  options: CreateBackupOptions,
  stage: string,
  plain: readonly string[],
  dumped: Dumped,
): Promise<void> {
  for (const [i, name] of plain.entries()) {
    options.signal?.throwIfAborted();
    const counter = { n: 0 };
    const rel = `collections/${i}.ejson`;
    const digest = await writeHashed(
      path.join(stage, rel),
      ejsonLines(options.db.collection(name).find({}), counter),
    );
    dumped.collections[name] = counter.n;
    dumped.parts.push({
      kind: 'collection',
      path: rel,
      collection: name,
      count: counter.n,
      ...digest,
    });
  }
}

/**
 * Writes bucket number `b`: each GridFS file's bytes (`gridfs/<b>/<n>.bin`), then the `.files`
 * documents of the files it copied (a file deleted meanwhile is left out with its document).
 */
async function dumpBucket(
  options: CreateBackupOptions,
  stage: string,
  b: number,
  bucket: string,
  dumped: Dumped,
): Promise<void> {
  const { db, log } = options;
  const filesDocs: Document[] = [];
  const gridfs = new GridFSBucket(db, { bucketName: bucket });
  await mkdir(path.join(stage, 'gridfs', String(b)));
  for await (const doc of db.collection(`${bucket}.files`).find({})) {
    options.signal?.throwIfAborted();
    const rel = `gridfs/${b}/${filesDocs.length}.bin`;
    try {
      const digest = await writeHashed(path.join(stage, rel), gridfs.openDownloadStream(doc._id));
      dumped.parts.push({
        kind: 'gridfs',
        path: rel,
        bucket,
        fileId: EJSON.stringify(doc._id, { relaxed: false }),
        chunkSize: Number(doc.chunkSize),
        ...digest,
      });
      filesDocs.push(doc);
    } catch (err) {
      // Deleted while we read it (an orphan sweep, an APK removed): leave it out.
      log.warn({ bucket, err: coerceError(err) }, 'backup: GridFS file skipped');
      await rm(path.join(stage, rel), { force: true });
    }
  }
  const rel = `collections/gridfs-${b}.files.ejson`;
  const counter = { n: 0 };
  const digest = await writeHashed(
    path.join(stage, rel),
    ejsonLines(Readable.from(filesDocs), counter),
  );
  dumped.collections[`${bucket}.files`] = counter.n;
  dumped.files += counter.n;
  dumped.parts.push({
    kind: 'collection',
    path: rel,
    collection: `${bucket}.files`,
    count: counter.n,
    ...digest,
  });
}

/**
 * Packs the manifest and the parts into the sealed archive, then gives it (and its `.sha256`
 * sidecar) their final names.
 */
async function packArchive(
  options: CreateBackupOptions,
  stage: string,
  parts: readonly Part[],
): Promise<{ final: string; bytes: number; sha256: string }> {
  const { dir, at } = options;
  const inputs: TarInput[] = [];
  for (const rel of [MANIFEST_NAME, ...parts.map((p) => p.path)]) {
    const file = path.join(stage, rel);
    inputs.push({ name: rel, file, size: (await stat(file)).size });
  }
  const name = archiveName(at);
  const final = path.join(dir, name);
  const partial = path.join(stage, `${name}.partial`);
  const { tap, digest } = digestTap();
  const { header, encryptor } = sealArchive(options.keys);
  await pipeline(
    Readable.from(tarStream(inputs, at)),
    createGzip(),
    encryptor,
    async function* (sealed: AsyncIterable<Buffer>) {
      yield header;
      yield* sealed;
    },
    tap,
    createWriteStream(partial, { mode: 0o600 }),
  );
  const { bytes, sha256 } = digest();
  await writeFile(path.join(stage, 'sidecar'), `${sha256}  ${name}\n`, { mode: 0o600 });
  await rename(partial, final);
  await rename(path.join(stage, 'sidecar'), path.join(dir, sidecarName(name)));
  return { final, bytes, sha256 };
}
