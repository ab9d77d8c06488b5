/**
 * Seats: an installation is enabled while it holds one of its account's `plan.installations`
 * seats. A seat is a document whose `_id` is `<accountId>:<slot>` with slot < plan, so the unique
 * `_id` index makes two processes claiming the last seat at once end with one winner: never N+1
 * enabled, with single-document operations only (no transactions: store.ts). An
 * installation holds at most one seat (unique index on `installationId`).
 *
 * Which slot a claim tries: the account's seat cursor, a counter in Redis shared by every API
 * process, hands out slots in turn, so concurrent claims of a filling plan each insert once and
 * never collide. The cursor is only a hint (the unique ids decide): lost, it restarts after the
 * highest taken slot; behind the seats (a restored Redis), a taken slot sends it there too. Past
 * the plan, only seats freed since remain: those are found by reading the account's seats, as
 * every claim did before the cursor (one read of all the seats per attempt, so registrations
 * slowed down as the plan filled: docs/benchmarks.md).
 */
import { MongoServerError, type Db, type ObjectId } from 'mongodb';
import { devicesCollections } from './collections';

/** Hands out the next slot of an account's seats to try (a Redis counter: live-state.ts). */
export interface SeatCursor {
  /** The next slot; `start()` gives the first one when the account has no cursor. */
  next(accountId: string, start: () => Promise<number>): Promise<number>;
  /** The cursor is behind the taken seats: the next claim restarts it from `start()`. */
  forget(accountId: string): Promise<void>;
}

type Attempt = 'claimed' | 'taken';

function seatClaims(db: Db, accountId: string, installationId: ObjectId, now: Date) {
  const col = devicesCollections(db).seats;
  return {
    async tryInsert(slot: number): Promise<Attempt> {
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
    },
    holds: async () => (await col.findOne({ installationId }, { projection: { _id: 1 } })) !== null,
    /** The slot after the highest taken one (0 when none is taken). */
    async afterHighest(): Promise<number> {
      const [top] = await col
        .find({ accountId }, { projection: { slot: 1 } })
        .sort({ slot: -1 })
        .limit(1)
        .toArray();
      return top ? top.slot + 1 : 0;
    },
    /** The free slots below `plan` (at most 64, lowest first), from one read of all the seats. */
    async freeSlots(plan: number): Promise<number[]> {
      const taken = new Set(
        (await col.find({ accountId }, { projection: { slot: 1 } }).toArray()).map((s) => s.slot),
      );
      const free: number[] = [];
      for (let slot = 0; slot < plan && free.length < 64; slot++)
        if (!taken.has(slot)) free.push(slot);
      return free;
    },
  };
}

/** Up to three slots from the cursor; null when it is past the plan (or kept landing on taken). */
async function claimByCursor(
  claims: ReturnType<typeof seatClaims>,
  cursor: SeatCursor,
  accountId: string,
  plan: number,
): Promise<boolean | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const slot = await cursor.next(accountId, () => claims.afterHighest());
    if (slot >= plan) return null;
    if ((await claims.tryInsert(slot)) === 'claimed') return true;
    if (await claims.holds()) return true; // this installation holds a seat already
    await cursor.forget(accountId);
  }
  return null;
}

/**
 * Claims a free seat for `installationId`; false when all `plan` seats are taken. With a cursor,
 * the slot it hands out (see above). Without one, or past it: a few blind attempts at random
 * slots (one insert each) when there is no cursor, then reads of the taken slots and a random
 * free one among the lowest, so concurrent claims spread out. The unique index keeps it exact
 * whatever the order.
 */
export async function claimSeat(
  db: Db,
  accountId: string,
  plan: number,
  installationId: ObjectId,
  now: Date,
  cursor?: SeatCursor,
): Promise<boolean> {
  if (plan <= 0) return false;
  const claims = seatClaims(db, accountId, installationId, now);
  if (cursor) {
    const claimed = await claimByCursor(claims, cursor, accountId, plan);
    if (claimed !== null) return claimed;
  } else {
    for (let blind = 0; blind < 3; blind++) {
      if ((await claims.tryInsert(Math.floor(Math.random() * plan))) === 'claimed') return true;
    }
  }
  for (let attempt = 0; attempt < plan + 8; attempt++) {
    if (await claims.holds()) return true; // a concurrent registration of this installation won
    const free = await claims.freeSlots(plan);
    if (free.length === 0) return false;
    if ((await claims.tryInsert(free[Math.floor(Math.random() * free.length)]!)) === 'claimed')
      return true;
  }
  return claims.holds();
}

export async function releaseSeat(db: Db, installationId: ObjectId): Promise<void> {
  await devicesCollections(db).seats.deleteOne({ installationId });
}

export async function holdsSeat(db: Db, installationId: ObjectId): Promise<boolean> {
  return (
    (await devicesCollections(db).seats.findOne({ installationId }, { projection: { _id: 1 } })) !==
    null
  );
}
