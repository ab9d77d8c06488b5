/**
 * Restores a backup archive into a database: every document exactly as it was (canonical Extended
 * JSON keeps ObjectIds, dates, binaries and numeric types), every GridFS file re-chunked with its
 * original chunk size. The archive is verified completely before anything is written. The target
 * must be empty (no collection holds a document) unless `force`, which first empties it.
 * Redis is not part of a backup: queues and notice streams start empty on the restored instance.
 */
import { Binary, BSON, ObjectId, type Db, type Document } from 'mongodb';
import type { KeyRing } from '../crypto/keys';
import { AppError } from '../errors';
import { listContents } from './create-backup';
import type { Part } from './manifest';
import { readParts, verifyBackup } from './read-archive';
import { PINNED_KEYS } from '../crypto/collections';

const { EJSON } = BSON;
const BATCH = 500;

export interface RestoreSummary {
  readonly path: string;
  readonly sha256: string;
  readonly collections: Readonly<Record<string, number>>;
  readonly files: number;
}

/** Names of collections that hold at least one document. */
export async function nonEmptyCollections(db: Db): Promise<string[]> {
  const { plain, buckets } = await listContents(db);
  const names = [...plain, ...buckets.flatMap((b) => [`${b}.files`, `${b}.chunks`])];
  const full: string[] = [];
  for (const name of names) {
    if (await db.collection(name).findOne({}, { projection: { _id: 1 } })) full.push(name);
  }
  return full;
}

async function* lines(body: AsyncIterable<Buffer>): AsyncGenerator<string> {
  let rest = '';
  for await (const chunk of body) {
    const parts = (rest + chunk.toString('utf8')).split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) if (line !== '') yield line;
  }
  if (rest !== '') yield rest;
}

async function restoreCollection(db: Db, name: string, body: AsyncIterable<Buffer>) {
  const collection = db.collection(name);
  let batch: Document[] = [];
  for await (const line of lines(body)) {
    batch.push(EJSON.parse(line, { relaxed: false }) as Document);
    if (batch.length >= BATCH) {
      await collection.insertMany(batch, { ordered: true });
      batch = [];
    }
  }
  if (batch.length > 0) await collection.insertMany(batch, { ordered: true });
}

async function restoreFile(
  db: Db,
  part: Extract<Part, { kind: 'gridfs' }>,
  body: AsyncIterable<Buffer>,
) {
  const chunks = db.collection(`${part.bucket}.chunks`);
  const filesId = EJSON.parse(part.fileId, { relaxed: false }) as unknown;
  let pending: Buffer = Buffer.alloc(0);
  let n = 0;
  let batch: Document[] = [];
  const push = async (data: Buffer, last: boolean) => {
    batch.push({ _id: new ObjectId(), files_id: filesId, n: n++, data: new Binary(data) });
    if (batch.length >= 16 || last) {
      await chunks.insertMany(batch, { ordered: true });
      batch = [];
    }
  };
  for await (const c of body) {
    pending = pending.length === 0 ? c : Buffer.concat([pending, c]);
    while (pending.length >= part.chunkSize) {
      await push(Buffer.from(pending.subarray(0, part.chunkSize)), false);
      pending = pending.subarray(part.chunkSize);
    }
  }
  if (pending.length > 0) await push(Buffer.from(pending), true);
  else if (batch.length > 0) await chunks.insertMany(batch, { ordered: true });
}

export async function restoreBackup(
  db: Db,
  file: string,
  options: { keys: KeyRing; force?: boolean },
): Promise<RestoreSummary> {
  // The whole archive is authenticated before anything is written.
  const report = await verifyBackup(file, options.keys);
  if (!report.ok) {
    throw new AppError('VALIDATION_FAILED', {
      message: `backup archive is damaged: ${report.problems.join('; ')}`,
    });
  }
  // Pinned keys are written by any process at its start, not data: the archive's replace them.
  const occupied = (await nonEmptyCollections(db)).filter((n) => n !== PINNED_KEYS);
  if (occupied.length > 0) {
    if (!options.force) {
      throw new AppError('VALIDATION_FAILED', {
        message: `the database is not empty (${occupied.join(', ')}); restore with --force to replace it`,
      });
    }
    for (const name of occupied) await db.collection(name).deleteMany({});
  }
  await db.collection(PINNED_KEYS).deleteMany({});
  const manifest = await readParts(file, options.keys, async (part, body) => {
    if (part.kind === 'collection') await restoreCollection(db, part.collection, body);
    else await restoreFile(db, part, body);
  });
  return {
    path: file,
    sha256: report.sha256,
    collections: manifest.collections,
    files: manifest.files,
  };
}
