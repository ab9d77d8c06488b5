/**
 * The owner's enable or disable holds while the device writes its installation's document at the
 * same moment (a report, a download), against the real store and Redis. On the default store an
 * update writes the whole document back, so a device's write racing the owner's status change put
 * the old status back: a disabled till kept its updates past the plan, an enabled one was told it
 * is disabled though it holds a seat. The seat (an insert or a delete, which are exclusive) is the
 * truth; every write of the document is followed by a look at the seat (shared/devices/cards.ts).
 * Each round: the owner flips the status while RACERS devices write one after another until it is
 * done; then the document, the card the device routes read, and the card after one more device
 * write all say what the owner asked for.
 */
import { randomBytes } from 'node:crypto';
import type { Account } from '../../../shared/accounts/types';
import { devicesCollections, ensureDevicesIndexes } from '../../../shared/devices/collections';
import { liveState } from '../../../shared/devices/live-state';
import { claimSeat } from '../../../shared/devices/seats';
import {
  changeInstallationStatus,
  installationId,
  newInstallation,
  recordDownload,
  recordReported,
} from '../../../shared/devices/store';
import type { InstallationStatus } from '../../../shared/devices/types';
import { closeRedis, createProducerRedis, redisReady } from '../../../shared/storage/redis';
import { track } from '../../helpers/resources';
import { isolation, serviceUrls, useIsolatedMongo } from '../../helpers/services';

jest.setTimeout(120_000);
const store = useIsolatedMongo();
const { prefix } = isolation();
const ROUNDS = 20;
const RACERS = 8;
let redis: ReturnType<typeof createProducerRedis>;
let close: () => Promise<void>;

beforeAll(async () => {
  redis = createProducerRedis(serviceUrls().redisUrl, 'test:status-holds');
  close = track('redis status-holds', () => closeRedis(redis));
  await redisReady(redis, 5_000);
  await ensureDevicesIndexes(store.mongo.db);
});
afterAll(() => close());

test('an owner’s status change racing device writes holds in the document and the card', async () => {
  const accountId = randomBytes(12).toString('hex');
  const account: Account = {
    id: accountId,
    email: 'owner@example.com',
    plan: { installations: 5 },
    roles: ['owner'],
  };
  const app = { accountId, package: 'dev.apkrelay.till' };
  const deps = {
    db: store.mongo.db,
    live: liveState(redis, prefix),
    push: { kick: () => Promise.resolve() },
    now: () => new Date(),
  };
  const id = installationId(accountId, app.package, 'till-1');
  const key = { accountId, package: app.package, deviceId: 'till-1' };
  await devicesCollections(store.mongo.db).installations.insertOne(
    newInstallation(id, key, new Date(), { status: 'enabled' }),
  );
  expect(await claimSeat(store.mongo.db, accountId, 5, id, new Date())).toBe(true);

  const md5 = (round: number, i: number) => `${round}:${i}`.padEnd(32, '0');
  const deviceWrite = (round: number, i: number) =>
    i % 2 === 0
      ? recordDownload(deps, app, id, md5(round, i), new Date())
      : recordReported(deps, app, id, { installedMd5: md5(round, i) }, new Date());
  const seen: Array<{ doc?: string; card?: string; after?: string }> = [];
  const wanted: InstallationStatus[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const status: InstallationStatus = round % 2 === 0 ? 'disabled' : 'enabled';
    wanted.push(status);
    // The devices write all through the owner's change (each racer one write after another).
    let changing = true;
    const change = changeInstallationStatus(deps, account, app.package, 'till-1', status);
    const racers = Array.from({ length: RACERS }, async (_, i) => {
      do await deviceWrite(round, i);
      while (changing);
    });
    await change.finally(() => (changing = false));
    await Promise.all(racers);
    const doc = await devicesCollections(store.mongo.db).installations.findOne({ _id: id });
    const card = await deps.live.card(app, id.toHexString());
    await recordDownload(deps, app, id, md5(round, RACERS), new Date());
    const after = await deps.live.card(app, id.toHexString());
    seen.push({ doc: doc?.status, card: card?.status, after: after?.status });
  }
  expect(seen).toEqual(wanted.map((s) => ({ doc: s, card: s, after: s })));
});
