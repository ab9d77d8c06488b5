/**
 * Seats: an installation is enabled while it holds one of its account's `plan.installations`
 * seats. A seat is a document whose `_id` is `<accountId>:<slot>` with slot < plan, so the unique
 * `_id` index makes two processes claiming the last seat at once end with one winner: never N+1
 * enabled, with single-document operations only (no transactions: store.ts). An
 * installation holds at most one seat (unique index on `installationId`).
 */
import { MongoServerError, type Collection, type Db, type ObjectId } from 'mongodb';

export interface SeatDoc {
  _id: string;
  accountId: string;
  slot: number;
  installationId: ObjectId;
  claimedAt: Date;
}

export const SEATS = 'seats';

export function seats(db: Db): Collection<SeatDoc> {
  return db.collection<SeatDoc>(SEATS);
}

export async function ensureSeatIndexes(db: Db): Promise<void> {
  await seats(db).createIndex(
    { installationId: 1 },
    { unique: true, name: 'one_seat_per_installation' },
  );
  await seats(db).createIndex({ accountId: 1, slot: 1 }, { name: 'account_slot' });
}

/**
 * Claims a free seat for `installationId`; false when all `plan` seats are taken. Concurrent
 * claims spread over random slots instead of all racing for the lowest free one: a few blind
 * attempts (one insert each; the unique _id decides), then a read of the taken slots and a random
 * free one. The unique index keeps it exact whatever the order.
 */
export async function claimSeat(
  db: Db,
  accountId: string,
  plan: number,
  installationId: ObjectId,
  now: Date,
): Promise<boolean> {
  const col = seats(db);
  const tryInsert = async (slot: number): Promise<'claimed' | 'taken'> => {
    try {
      await col.insertOne({
        _id: `${accountId}:${slot}`,
        accountId,
        slot,
        installationId,
        claimedAt: now,
      });
      return 'claimed';
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
      return 'taken';
    }
  };
  const holds = async () =>
    (await col.findOne({ installationId }, { projection: { _id: 1 } })) !== null;
  if (plan <= 0) return false;
  for (let blind = 0; blind < 3; blind++) {
    if ((await tryInsert(Math.floor(Math.random() * plan))) === 'claimed') return true;
  }
  for (let attempt = 0; attempt < plan + 8; attempt++) {
    if (await holds()) return true; // a concurrent registration of this installation won
    const taken = new Set(
      (await col.find({ accountId }, { projection: { slot: 1 } }).toArray()).map((s) => s.slot),
    );
    const free: number[] = [];
    for (let slot = 0; slot < plan && free.length < 64; slot++)
      if (!taken.has(slot)) free.push(slot);
    if (free.length === 0) return false;
    if ((await tryInsert(free[Math.floor(Math.random() * free.length)]!)) === 'claimed')
      return true;
  }
  return holds();
}

export async function releaseSeat(db: Db, installationId: ObjectId): Promise<void> {
  await seats(db).deleteOne({ installationId });
}

export async function holdsSeat(db: Db, installationId: ObjectId): Promise<boolean> {
  return (await seats(db).findOne({ installationId }, { projection: { _id: 1 } })) !== null;
}
