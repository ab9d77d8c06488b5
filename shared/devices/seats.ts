/**
 * Seats: an installation is enabled while it holds one of its account's `plan.installations`
 * seats. A seat is a document whose `_id` is `<accountId>:<slot>` with slot < plan, so the unique
 * `_id` index makes two processes claiming the last seat at once end with one winner: never N+1
 * enabled, with single-document operations only (no transactions, as FerretDB v1 requires). An
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

/** Claims a free seat for `installationId`; false when all `plan` seats are taken. */
export async function claimSeat(
  db: Db,
  accountId: string,
  plan: number,
  installationId: ObjectId,
  now: Date,
): Promise<boolean> {
  const col = seats(db);
  for (let attempt = 0; attempt < plan + 8; attempt++) {
    const taken = new Set(
      (await col.find({ accountId }, { projection: { slot: 1 } }).toArray()).map((s) => s.slot),
    );
    let slot = 0;
    while (slot < plan && taken.has(slot)) slot++;
    if (slot >= plan) return false;
    try {
      await col.insertOne({
        _id: `${accountId}:${slot}`,
        accountId,
        slot,
        installationId,
        claimedAt: now,
      });
      return true;
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
      // The slot went to someone else meanwhile, or this installation already holds a seat.
      if (await col.findOne({ installationId }, { projection: { _id: 1 } })) return true;
    }
  }
  return false;
}

export async function releaseSeat(db: Db, installationId: ObjectId): Promise<void> {
  await seats(db).deleteOne({ installationId });
}

export async function holdsSeat(db: Db, installationId: ObjectId): Promise<boolean> {
  return (await seats(db).findOne({ installationId }, { projection: { _id: 1 } })) !== null;
}
