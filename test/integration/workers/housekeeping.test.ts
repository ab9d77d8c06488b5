import { Readable } from 'node:stream';
import { ObjectId } from 'mongodb';
import { Redis } from 'ioredis';
import { appendNotice } from '../../../shared/notices/append-notice';
import { redisKeys } from '../../../shared/redis-keys';
import { gridFsBlobStore } from '../../../shared/storage/blob-store';
import { claimOnce } from '../../../shared/storage/claims';
import { housekeepingProcessor } from '../../../workers/uploads/housekeeping-processor';
import { jobContext } from '../../helpers/job-context';
import { track } from '../../helpers/resources';
import { isolation, serviceUrls, useIsolatedMongo } from '../../helpers/services';

const ctx = jobContext();
const db = useIsolatedMongo();
const { prefix } = isolation();

test('sweeps blobs no APK owns once they are old enough; keeps owned and young ones', async () => {
  const blobs = gridFsBlobStore(db.mongo.db);
  const orphan = new ObjectId().toHexString();
  const owned = new ObjectId().toHexString();
  for (const id of [orphan, owned])
    await blobs.put(id, Readable.from([Buffer.alloc(100_000, 1)]), {});
  await db.mongo.db.collection('apks').insertOne({ blobId: owned });
  await db.mongo.db
    .collection('uploads')
    .insertOne({ _id: orphan as unknown as ObjectId, status: 'queued', verdict: null });

  const young = housekeepingProcessor({ db: db.mongo.db, blobs, now: () => new Date() });
  expect(await young({ task: 'sweep-orphan-blobs', olderThanMs: 3_600_000 }, ctx)).toEqual({
    removed: 0,
    claimsPurged: 0,
  });

  const later = housekeepingProcessor({
    db: db.mongo.db,
    blobs,
    now: () => new Date(Date.now() + 2 * 3_600_000),
  });
  expect(await later({ task: 'sweep-orphan-blobs', olderThanMs: 3_600_000 }, ctx)).toEqual({
    removed: 1,
    claimsPurged: 0,
  });
  expect(await blobs.size(orphan)).toBeNull();
  expect(
    await db.mongo.db.collection('apks.chunks').countDocuments({ files_id: new ObjectId(orphan) }),
  ).toBe(0);
  expect(await blobs.size(owned)).toBe(100_000);
  const upload = await db.mongo.db
    .collection('uploads')
    .findOne({ _id: orphan as unknown as ObjectId });
  expect(upload).toMatchObject({ status: 'failed', verdict: { code: 'UPLOAD_FAILED' } });
  // Idempotent.
  expect(await later({ task: 'sweep-orphan-blobs', olderThanMs: 3_600_000 }, ctx)).toEqual({
    removed: 0,
    claimsPurged: 0,
  });
});

test('expired one-time claims are deleted, live ones kept', async () => {
  const blobs = gridFsBlobStore(db.mongo.db);
  const now = new Date('2026-11-29T12:00:00Z');
  const minutes = (n: number) => new Date(now.getTime() + n * 60_000);
  expect(await claimOnce(db.mongo.db, 'test:expired', minutes(-20), minutes(-10))).toBe(true);
  expect(await claimOnce(db.mongo.db, 'test:at-now', minutes(-20), now)).toBe(true);
  expect(await claimOnce(db.mongo.db, 'test:live', minutes(-20), minutes(10))).toBe(true);
  const sweep = housekeepingProcessor({ db: db.mongo.db, blobs, now: () => now });
  expect(await sweep({ task: 'sweep-orphan-blobs', olderThanMs: 3_600_000 }, ctx)).toEqual({
    removed: 0,
    claimsPurged: 2,
  });
  // Purged: claimable again; live: still held.
  expect(await claimOnce(db.mongo.db, 'test:expired', now, minutes(10))).toBe(true);
  expect(await claimOnce(db.mongo.db, 'test:live', now, minutes(10))).toBe(false);
});

test('a version notice is appended once per version, however often the job runs', async () => {
  const redis = new Redis(serviceUrls().redisUrl);
  const close = track('redis', async () => void (await redis.quit()));
  try {
    const notice = { accountId: 'a', appId: 'app1', package: 'p.q', apkId: 'x', currentVersion: 3 };
    const first = await appendNotice(redis, prefix, notice);
    expect(await appendNotice(redis, prefix, notice)).toBe(first);
    expect(await appendNotice(redis, prefix, { ...notice, currentVersion: 2 })).toBe(first);
    const next = await appendNotice(redis, prefix, { ...notice, currentVersion: 4 });
    expect(next).not.toBe(first);
    expect(await redis.xlen(redisKeys(prefix).noticeStream('app1'))).toBe(2);
    await redis.del(redisKeys(prefix).noticeStream('app1'));
  } finally {
    await close();
  }
});
