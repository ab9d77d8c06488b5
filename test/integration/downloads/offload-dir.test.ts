/**
 * The nginx offload directory over the real GridFS blob store and real files: the plaintext
 * appears only complete and authenticated, readable by nginx whatever the umask, concurrent first
 * requests share one write, a tampered stored segment leaves no file, and files of APKs no longer
 * served are removed when another is written, once nobody was handed them for a minute.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ObjectId } from 'mongodb';
import { offloadDir } from '../../../api/downloads/offload-dir';
import { createKeyRing } from '../../../shared/crypto/keys';
import { createLogger } from '../../../shared/log';
import { gridFsBlobStore } from '../../../shared/storage/blob-store';
import { countedBlobs } from '../../helpers/counted-blobs';
import { useIsolatedMongo } from '../../helpers/services';
import { storedApk as storedApkOf } from '../../helpers/stored-apk';

const db = useIsolatedMongo();
const keys = createKeyRing(randomBytes(32));
const log = createLogger('silent');
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'apkrelay-offload-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const storedApk = (plain: Buffer) => storedApkOf(db.mongo.db, keys, plain);

test('one complete file per APK, mode 0644 under umask 077, one write for concurrent requests', async () => {
  const plain = randomBytes(300_000);
  const apk = await storedApk(plain);
  const blobs = countedBlobs(gridFsBlobStore(db.mongo.db));
  const offload = offloadDir({ dir, blobs, keys, log, isServed: () => Promise.resolve(true) });
  const umask = process.umask(0o077);
  try {
    const names = await Promise.all([1, 2, 3].map(() => offload.fileFor(apk)));
    expect(names).toEqual([1, 2, 3].map(() => `${apk.blobId}.apk`));
  } finally {
    process.umask(umask);
  }
  expect(await readdir(dir)).toEqual([`${apk.blobId}.apk`]);
  const file = path.join(dir, `${apk.blobId}.apk`);
  expect((await readFile(file)).equals(plain)).toBe(true);
  expect((await stat(file)).mode & 0o777).toBe(0o644);
  expect(blobs.reads).toHaveLength(1);
  await offload.fileFor(apk); // present: nothing read again
  expect(blobs.reads).toHaveLength(1);
});

test('a tampered stored segment leaves no file at all', async () => {
  const apk = await storedApk(randomBytes(200_000));
  const chunks = db.mongo.db.collection('apks.chunks');
  const chunk = await chunks.findOne({ files_id: new ObjectId(apk.blobId), n: 0 });
  const data = Buffer.from((chunk!.data as { buffer: Uint8Array }).buffer);
  data[3 * 65_552 + 5]! ^= 0x01; // in the last of 4 segments
  await chunks.updateOne({ _id: chunk!._id }, { $set: { data } });
  const offload = offloadDir({
    dir,
    blobs: gridFsBlobStore(db.mongo.db),
    keys,
    log,
    isServed: () => Promise.resolve(true),
  });
  await expect(offload.fileFor(apk)).rejects.toThrow('encrypted segment 3 failed authentication');
  expect(await readdir(dir)).toEqual([]);
});

/** Sets `name`'s modification time `ms` in the past: nobody handed it out since. */
async function age(name: string, ms: number): Promise<void> {
  const then = new Date(Date.now() - ms);
  await utimes(path.join(dir, name), then, then);
}

function offloadServing(served: ReadonlySet<string>) {
  return offloadDir({
    dir,
    blobs: gridFsBlobStore(db.mongo.db),
    keys,
    log,
    isServed: (blobId) => Promise.resolve(served.has(blobId)),
  });
}

test('writing a file removes those of APKs no longer served and not handed out for a minute', async () => {
  const [old, kept, next] = await Promise.all([1, 2, 3].map(() => storedApk(randomBytes(1_000))));
  const offload = offloadServing(new Set([kept!.blobId, next!.blobId]));
  await offload.fileFor(old!);
  await offload.fileFor(kept!);
  await age(`${old!.blobId}.apk`, 61_000);
  await age(`${kept!.blobId}.apk`, 61_000); // served: kept however old
  await writeFile(path.join(dir, 'notes.txt'), 'not ours'); // not an APK file: left alone
  await offload.fileFor(next!);
  expect((await readdir(dir)).sort()).toEqual(
    [`${kept!.blobId}.apk`, `${next!.blobId}.apk`, 'notes.txt'].sort(),
  );
});

test('a file handed out in the last minute outlives its APK being current: nginx still opens it', async () => {
  // The race: a download authorised while `old` was current gets its X-Accel-Redirect; meanwhile
  // `next` became current and its first download wrote its file and pruned.
  const [old, next, later] = await Promise.all([1, 2, 3].map(() => storedApk(randomBytes(1_000))));
  const served = new Set([old!.blobId]);
  const offload = offloadServing(served);
  await offload.fileFor(old!);
  await age(`${old!.blobId}.apk`, 50_000); // handed out 50 s ago, not since
  served.clear();
  served.add(next!.blobId);
  await offload.fileFor(next!);
  expect((await readdir(dir)).sort()).toEqual([`${next!.blobId}.apk`, `${old!.blobId}.apk`].sort());
  // A hand-out of an older file refreshes it: 2 minutes old, then handed out, then a prune.
  served.add(old!.blobId);
  await age(`${old!.blobId}.apk`, 120_000);
  await offload.fileFor(old!);
  served.delete(old!.blobId);
  served.add(later!.blobId);
  await offload.fileFor(later!);
  expect(await readdir(dir)).toContain(`${old!.blobId}.apk`);
  // Nobody handed it out for a minute since: the next prune removes it.
  await age(`${old!.blobId}.apk`, 60_000);
  await rm(path.join(dir, `${later!.blobId}.apk`));
  await offload.fileFor(later!);
  expect(await readdir(dir)).not.toContain(`${old!.blobId}.apk`);
});
