/**
 * Registration through the installation store (shared/devices/store.ts `registerDevice`) against
 * the real database and Redis: whether the installation had a card only decides which write is
 * tried first, never the outcome. A new device is inserted and claims a seat; a known one is
 * refreshed; a known one whose card is gone (Redis lost it) is refreshed too, with its seat and
 * status kept and no second document.
 */
import { randomBytes } from 'node:crypto';
import { ObjectId } from 'mongodb';
import type { Account } from '../../../shared/accounts/types';
import type { AppDoc } from '../../../shared/catalog/types';
import { liveState, registerDevice } from '../../../shared/devices/store';
import { parseRegistration } from '../../../shared/devices/registration-input';
import type { InstallationDoc } from '../../../shared/devices/types';
import { redisKeys } from '../../../shared/redis-keys';
import { closeRedis, createProducerRedis, redisReady } from '../../../shared/storage/redis';
import { track } from '../../helpers/resources';
import { isolation, serviceUrls, useIsolatedMongo } from '../../helpers/services';
import { ensureDevicesIndexes } from '../../../shared/devices/collections';

const store = useIsolatedMongo();
const { prefix } = isolation();
let redis: ReturnType<typeof createProducerRedis>;
let close: () => Promise<void>;

beforeAll(async () => {
  redis = createProducerRedis(serviceUrls().redisUrl, 'test:registration');
  close = track('redis registration', () => closeRedis(redis));
  await redisReady(redis, 5_000);
  await ensureDevicesIndexes(store.mongo.db);
});
afterAll(() => close());

test('new, known, and known without a card: one document, one seat, fields refreshed', async () => {
  const accountId = randomBytes(12).toString('hex');
  const account: Account = {
    id: accountId,
    email: 'a@example.com',
    plan: { installations: 2 },
    roles: ['owner'],
  };
  const app = { _id: new ObjectId(), accountId, package: 'dev.apkrelay.sample' } as AppDoc;
  const deps = { db: store.mongo.db, live: liveState(redis, prefix) };
  const register = (installedMd5: string) =>
    registerDevice(
      deps,
      account,
      app,
      parseRegistration({ package: app.package, deviceId: 'till-1', installedMd5 }),
      new Date(),
    );
  const md5 = (c: string) => c.repeat(32);

  expect(await register(md5('a'))).toMatchObject({ status: 'enabled', installedMd5: md5('a') });
  expect(await register(md5('b'))).toMatchObject({ status: 'enabled', installedMd5: md5('b') });
  await redis.del(redisKeys(prefix).installationCards(accountId, app.package));
  const again = await register(md5('c'));
  expect(again).toMatchObject({ status: 'enabled', installedMd5: md5('c') });
  expect(await deps.live.card(app, again._id.toHexString())).toMatchObject({
    status: 'enabled',
    installedMd5: md5('c'),
  });
  const docs = await store.mongo.db
    .collection<InstallationDoc>('installations')
    .find({ accountId })
    .toArray();
  expect(docs.map((d) => [d.deviceId, d.status, d.installedMd5])).toEqual([
    ['till-1', 'enabled', md5('c')],
  ]);
  expect(await store.mongo.db.collection('seats').countDocuments({ accountId })).toBe(1);
});
