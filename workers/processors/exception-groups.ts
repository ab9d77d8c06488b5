/**
 * Counting reports into their issue (`exception_groups`), correctly on FerretDB v1.
 *
 * FerretDB v1 applies an update as read, modify, write without isolation: concurrent `$inc`s on
 * one document lose increments (measured: 1000 reports over 20 groups, 16 at a time, counted
 * 909). So every write to a group document happens under a per-group Redis lock, and a worker
 * process coalesces the reports waiting for the same group into one update (`$inc` by the batch
 * size, `$addToSet` with `$each`), which also cuts MongoDB writes under load.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { MongoServerError, type Db } from 'mongodb';
import { exceptionCollections } from '../../shared/exceptions/collections';

export interface GroupEntry {
  readonly reportId: string;
  readonly groupId: string;
  readonly accountId: string;
  readonly appId: string;
  readonly package: string;
  readonly fingerprint: string;
  readonly exceptionClass: string;
  readonly title: string;
  readonly handled: boolean;
  readonly version: string;
  readonly deviceId: string;
  readonly receivedAt: Date;
}

export interface GroupWriter {
  /** Resolves once the entry is counted in its group. */
  count(entry: GroupEntry): Promise<void>;
}

/**
 * KEYS[1]  the group's lock
 * ARGV[1]  the holder's token
 * Returns  1 released, 0 not held by this token (expired and taken by another)
 */
const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

const LOCK_TTL_MS = 30_000;
const LOCK_WAIT_MS = 60_000;

interface Waiting {
  readonly entry: GroupEntry;
  resolve(): void;
  reject(err: unknown): void;
}

/** Runs `work` holding the group's Redis lock (waits for it at most LOCK_WAIT_MS). */
async function withLock<T>(redis: Redis, key: string, work: () => Promise<T>): Promise<T> {
  const token = randomBytes(12).toString('hex');
  const deadline = Date.now() + LOCK_WAIT_MS;
  while ((await redis.set(key, token, 'PX', LOCK_TTL_MS, 'NX')) !== 'OK') {
    if (Date.now() > deadline) throw new Error(`${key}: lock not acquired`);
    await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
  }
  try {
    return await work();
  } finally {
    // The work is done: a failed release must not fail the job (that would count it again);
    // the lock then expires by itself.
    await redis.eval(RELEASE_LUA, 1, key, token).catch(() => undefined);
  }
}

/** One update counting a batch of reports of one group (upserting the group). */
function batchUpdate(batch: readonly GroupEntry[]) {
  const first = batch[0]!;
  const handled = batch.filter((e) => e.handled).length;
  const times = batch.map((e) => e.receivedAt.getTime());
  const latest = batch.reduce((a, b) => (b.receivedAt > a.receivedAt ? b : a));
  return {
    $inc: { count: batch.length, handledCount: handled, unhandledCount: batch.length - handled },
    $min: { firstSeen: new Date(Math.min(...times)) },
    $max: { lastSeen: new Date(Math.max(...times)) },
    $addToSet: {
      versions: { $each: [...new Set(batch.map((e) => e.version))] },
      devices: { $each: [...new Set(batch.map((e) => e.deviceId))] },
    },
    $set: { lastReportId: latest.reportId },
    $setOnInsert: {
      accountId: first.accountId,
      appId: first.appId,
      package: first.package,
      fingerprint: first.fingerprint,
      exceptionClass: first.exceptionClass,
      title: first.title,
    },
  };
}

export function groupWriter(
  db: Db,
  redis: Redis,
  lockKey: (groupId: string) => string,
): GroupWriter {
  const pending = new Map<string, Waiting[]>();
  const flushing = new Set<string>();

  async function write(groupId: string, batch: readonly GroupEntry[]): Promise<void> {
    const { groups } = exceptionCollections(db);
    const update = batchUpdate(batch);
    await withLock(redis, lockKey(groupId), async () => {
      try {
        await groups.updateOne({ _id: groupId }, update, { upsert: true });
      } catch (err) {
        if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
        await groups.updateOne({ _id: groupId }, update);
      }
    });
  }

  async function flush(groupId: string): Promise<void> {
    flushing.add(groupId);
    try {
      for (;;) {
        const batch = pending.get(groupId) ?? [];
        pending.delete(groupId);
        if (batch.length === 0) return;
        try {
          await write(
            groupId,
            batch.map((w) => w.entry),
          );
          batch.forEach((w) => w.resolve());
        } catch (err) {
          batch.forEach((w) => w.reject(err));
        }
      }
    } finally {
      flushing.delete(groupId);
    }
  }

  return {
    count(entry) {
      return new Promise<void>((resolve, reject) => {
        const list = pending.get(entry.groupId) ?? [];
        list.push({ entry, resolve, reject });
        pending.set(entry.groupId, list);
        if (!flushing.has(entry.groupId)) void flush(entry.groupId);
      });
    },
  };
}
