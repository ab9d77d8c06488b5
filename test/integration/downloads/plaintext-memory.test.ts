/**
 * The memory of decrypted APKs for downloads, over the real GridFS blob store: the plaintext
 * equals what was encrypted, concurrent first requests share one read and one decryption, the
 * bound drops the least recently served APK, an APK over the bound is never held, and a tampered
 * stored segment anywhere (even the last, far from a small range) fails before any plaintext.
 */
import { randomBytes } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { plaintextMemory } from '../../../api/downloads/plaintext-memory';
import { createKeyRing } from '../../../shared/crypto/keys';
import { gridFsBlobStore } from '../../../shared/storage/blob-store';
import { useIsolatedMongo } from '../../helpers/services';
import { storedApk as storedApkOf } from '../../helpers/stored-apk';
import { countedBlobs } from '../../helpers/counted-blobs';

const db = useIsolatedMongo();
const keys = createKeyRing(randomBytes(32));

const storedApk = (plain: Buffer) => storedApkOf(db.mongo.db, keys, plain);

test('the plaintext as encrypted; concurrent first requests share one read', async () => {
  const plain = randomBytes(300_000);
  const apk = await storedApk(plain);
  const blobs = countedBlobs(gridFsBlobStore(db.mongo.db));
  const memory = plaintextMemory({ maxBytes: 10 * 1024 ** 2, blobs, keys });
  const got = await Promise.all(Array.from({ length: 5 }, () => memory.plaintext(apk)));
  expect(got[0]!.equals(plain)).toBe(true);
  expect(got.every((b) => b === got[0])).toBe(true);
  // 300,000 bytes: 5 segments, 4 full (65,552) and one of 37,856 + 16: 300,080 bytes.
  expect(blobs.reads).toEqual([[0, 300_080]]);
  expect((await memory.plaintext(apk))!.equals(plain)).toBe(true);
  expect(blobs.reads).toHaveLength(1);
});

test('the bound drops the least recently served APK; one over the bound is never held', async () => {
  const [a, b, c] = await Promise.all([1, 2, 3].map(() => storedApk(randomBytes(400_000))));
  const huge = await storedApk(randomBytes(1_100_000));
  const blobs = countedBlobs(gridFsBlobStore(db.mongo.db));
  const memory = plaintextMemory({ maxBytes: 1_000_000, blobs, keys });
  await memory.plaintext(a!);
  await memory.plaintext(b!);
  await memory.plaintext(a!); // a is now the most recently served
  await memory.plaintext(c!); // 1.2 MB: b goes
  expect(blobs.reads).toHaveLength(3);
  const before = blobs.reads.length;
  await memory.plaintext(a!);
  await memory.plaintext(c!);
  expect(blobs.reads.length).toBe(before); // both held
  await memory.plaintext(b!);
  expect(blobs.reads.length).toBe(before + 1); // b was dropped: read again
  expect(await memory.plaintext(huge)).toBeNull();
  expect(blobs.reads.length).toBe(before + 1);
});

test('a tampered last segment fails the whole APK, every time, and nothing is held', async () => {
  const plain = randomBytes(200_000); // 4 segments; the last starts at 3 x 65,552
  const apk = await storedApk(plain);
  const chunks = db.mongo.db.collection('apks.chunks');
  const chunk = await chunks.findOne({ files_id: new ObjectId(apk.blobId), n: 0 });
  const data = Buffer.from((chunk!.data as { buffer: Uint8Array }).buffer);
  data[3 * 65_552 + 5]! ^= 0x01;
  await chunks.updateOne({ _id: chunk!._id }, { $set: { data } });
  const blobs = countedBlobs(gridFsBlobStore(db.mongo.db));
  const memory = plaintextMemory({ maxBytes: 10 * 1024 ** 2, blobs, keys });
  await expect(memory.plaintext(apk)).rejects.toThrow('encrypted segment 3 failed authentication');
  await expect(memory.plaintext(apk)).rejects.toThrow('encrypted segment 3 failed authentication');
  expect(blobs.reads).toHaveLength(2);
});

test('a stored blob shorter than the record says fails instead of serving a short APK', async () => {
  const plain = randomBytes(200_000);
  const apk = await storedApk(plain);
  const memory = plaintextMemory({
    maxBytes: 10 * 1024 ** 2,
    blobs: gridFsBlobStore(db.mongo.db),
    keys,
  });
  await expect(memory.plaintext({ ...apk, size: 300_000 })).rejects.toThrow(/300080/);
});
