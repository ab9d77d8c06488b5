/**
 * Counting reports into their issue (`exception_groups`), correctly on FerretDB v1.
 *
 * FerretDB v1 applies an update as read, modify, write without isolation: concurrent `$inc`s on one
 * document lose increments (figures in docs/benchmarks.md). So every write to a group document
 * happens under a per-group Redis lock, and a worker process coalesces the reports waiting for the
 * same group into one update (`$inc` by the batch size, `$addToSet` with `$each`), which also cuts
 * MongoDB writes under load.
 *
 * Counting is idempotent per report: under the lock, the group's `pending` list and the reports'
 * stored markers tell which reports of a batch are counted already (group-pending.ts says why
 * that is exact), and the count and the new `pending` list are one single-document write.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from '../../shared/storage/redis';
import { MongoServerError, type Db } from 'mongodb';
import { type PendingCount, exceptionsCollections } from '../../shared/exceptions/collections';
import { withDeadline } from '../../shared/deadline';
import { DAY_MS } from '../../shared/exceptions/sliding-window';
import { FAILED_JOB_KEPT_S } from '../../shared/queues/exception-ingest';
import { idsToCheck, planCount } from './group-pending';
import { AppError } from '../../shared/errors';

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
  /** Resolves once the entry is counted in its group (at most once per report id). */
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
/** Waiting for the lock, then the count's few reads and one write. */
export const GROUP_WRITE_DEADLINE_MS = LOCK_WAIT_MS + 30_000;
/** A failed job can be retried while it is kept; a day more covers its own retries. */
const PENDING_KEEP_MS = FAILED_JOB_KEPT_S * 1000 + DAY_MS;

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
    if (Date.now() > deadline) {
      throw new AppError('LOCK_NOT_ACQUIRED', { message: `${key}: lock not acquired` });
    }
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
function batchUpdate(batch: readonly GroupEntry[], pending: readonly PendingCount[]) {
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
    $set: { lastReportId: latest.reportId, pending: [...pending] },
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

export interface GroupKeys {
  /** The group's lock. */
  lock(groupId: string): string;
  /** The marker set once the report document is stored. */
  stored(reportId: string): string;
}

/** Counts, in one write, the reports of `batch` not counted yet (run it under the group's lock). */
async function countOnce(
  db: Db,
  redis: Redis,
  keys: GroupKeys,
  groupId: string,
  batch: readonly GroupEntry[],
): Promise<void> {
  const { groups } = exceptionsCollections(db);
  const group = await groups.findOne({ _id: groupId }, { projection: { pending: 1 } });
  const pending = group?.pending ?? [];
  const ids = idsToCheck(batch, pending);
  const markers = await Promise.all(ids.map((id) => redis.exists(keys.stored(id))));
  const stored = new Set(ids.filter((_, i) => markers[i] === 1));
  const plan = planCount(batch, pending, stored, new Date(), PENDING_KEEP_MS);
  if (!plan.changed) return;
  if (plan.fresh.length === 0) {
    await groups.updateOne({ _id: groupId }, { $set: { pending: plan.pending } });
    return;
  }
  const update = batchUpdate(plan.fresh, plan.pending);
  try {
    await groups.updateOne({ _id: groupId }, update, { upsert: true });
  } catch (err) {
    if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
    await groups.updateOne({ _id: groupId }, update);
  }
}

export function groupWriter(db: Db, redis: Redis, keys: GroupKeys): GroupWriter {
  const pending = new Map<string, Waiting[]>();
  const flushing = new Set<string>();

  // Under a deadline: a write that never settles would hold every later report of its group.
  async function write(groupId: string, batch: readonly GroupEntry[]): Promise<void> {
    await withDeadline({ ms: GROUP_WRITE_DEADLINE_MS, what: `group ${groupId} count` }, () =>
      withLock(redis, keys.lock(groupId), () => countOnce(db, redis, keys, groupId, batch)),
    );
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
