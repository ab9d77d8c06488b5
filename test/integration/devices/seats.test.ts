/**
 * Seat claims with the seat cursor (shared/devices/seats.ts), against the real database and
 * Redis: two API processes (two Redis connections) claiming a filling plan at once take each slot
 * once and never more than the plan; the cursor lost or behind the seats restarts after the
 * highest taken one; past the plan, freed seats are found by reading the seats.
 */
import { ObjectId } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { liveState } from '../../../shared/devices/live-state';
import { claimSeat, releaseSeat, type SeatCursor } from '../../../shared/devices/seats';
import { redisKeys } from '../../../shared/redis-keys';
import { closeRedis, createProducerRedis, redisReady } from '../../../shared/storage/redis';
import { track } from '../../helpers/resources';
import { isolation, serviceUrls, useIsolatedMongo } from '../../helpers/services';
import { devicesCollections, ensureDevicesIndexes } from '../../../shared/devices/collections';

const store = useIsolatedMongo();
const { prefix } = isolation();
const redises: Array<ReturnType<typeof createProducerRedis>> = [];
const closers: Array<() => Promise<void>> = [];
let cursors: SeatCursor[];

beforeAll(async () => {
  for (const name of ['a', 'b']) {
    const redis = createProducerRedis(serviceUrls().redisUrl, `test:seats-${name}`);
    closers.push(track(`redis seats-${name}`, () => closeRedis(redis)));
    await redisReady(redis, 5_000);
    redises.push(redis);
  }
  cursors = redises.map((r) => liveState(r, prefix).seatCursor);
  await ensureDevicesIndexes(store.mongo.db);
});
afterAll(async () => {
  for (const close of closers) await close();
});

const newAccountId = () => randomBytes(12).toString('hex');
const slotsOf = async (accountId: string) =>
  (await devicesCollections(store.mongo.db).seats.find({ accountId }).toArray())
    .map((s) => s.slot)
    .sort((a, b) => a - b);
const cursorKey = (accountId: string) => redisKeys(prefix).seatCursor(accountId);

test('40 claims at once from two processes fill a plan of 40, each slot taken by one insert', async () => {
  const accountId = newAccountId();
  const now = new Date();
  const claim = (i: number) =>
    claimSeat(store.mongo.db, accountId, 40, new ObjectId(), now, cursors[i % 2]);
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => claim(i)));
  expect(results).toEqual(Array(40).fill(true));
  expect(await slotsOf(accountId)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  // The cursor handed out each slot once: no claim collided, none fell back to reading the seats.
  expect(Number(await redises[0]!.get(cursorKey(accountId)))).toBe(40);
  const over = await Promise.all(Array.from({ length: 5 }, (_, i) => claim(i)));
  expect(over).toEqual(Array(5).fill(false));
  expect(await slotsOf(accountId)).toHaveLength(40);
});

test('50 claims at once from two processes on a plan of 40: exactly 40 seats', async () => {
  const accountId = newAccountId();
  const now = new Date();
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      claimSeat(store.mongo.db, accountId, 40, new ObjectId(), now, cursors[i % 2]),
    ),
  );
  expect(results.filter(Boolean)).toHaveLength(40);
  expect(await slotsOf(accountId)).toEqual(Array.from({ length: 40 }, (_, i) => i));
});

test('a lost cursor restarts after the highest taken seat; one behind the seats catches up', async () => {
  const accountId = newAccountId();
  const now = new Date();
  const claim = (cursor: SeatCursor) =>
    claimSeat(store.mongo.db, accountId, 100, new ObjectId(), now, cursor);
  for (let i = 0; i < 10; i++) expect(await claim(cursors[0]!)).toBe(true);
  await redises[0]!.del(cursorKey(accountId));
  expect(await claim(cursors[1]!)).toBe(true);
  expect(await slotsOf(accountId)).toEqual(Array.from({ length: 11 }, (_, i) => i));
  await redises[0]!.set(cursorKey(accountId), '3'); // e.g. Redis restored from an older copy
  expect(await claim(cursors[0]!)).toBe(true);
  expect(await slotsOf(accountId)).toEqual(Array.from({ length: 12 }, (_, i) => i));
  expect(Number(await redises[0]!.get(cursorKey(accountId)))).toBe(12);
});

test('past the plan, seats freed since are found; then the plan is full', async () => {
  const accountId = newAccountId();
  const now = new Date();
  const ids = Array.from({ length: 5 }, () => new ObjectId());
  for (const id of ids) {
    expect(await claimSeat(store.mongo.db, accountId, 5, id, now, cursors[0])).toBe(true);
  }
  await releaseSeat(store.mongo.db, ids[1]!);
  await releaseSeat(store.mongo.db, ids[3]!);
  const later = await Promise.all(
    Array.from({ length: 3 }, (_, i) =>
      claimSeat(store.mongo.db, accountId, 5, new ObjectId(), now, cursors[i % 2]),
    ),
  );
  expect(later.filter(Boolean)).toHaveLength(2);
  expect(await slotsOf(accountId)).toEqual([0, 1, 2, 3, 4]);
});

test('an installation that holds a seat claims again: true, and it still holds one seat', async () => {
  const accountId = newAccountId();
  const id = new ObjectId();
  const now = new Date();
  expect(await claimSeat(store.mongo.db, accountId, 3, id, now, cursors[0])).toBe(true);
  expect(await claimSeat(store.mongo.db, accountId, 3, id, now, cursors[1])).toBe(true);
  expect(
    await devicesCollections(store.mongo.db).seats.countDocuments({ installationId: id }),
  ).toBe(1);
  expect(await devicesCollections(store.mongo.db).seats.countDocuments({ accountId })).toBe(1);
});
