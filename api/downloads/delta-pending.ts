/**
 * Reads what "not ready yet" needs for one pair with no document (shared/delta/pending.ts): the
 * state of the app's current `delta-generate` job, whether a worker holds its lock, and the pairs
 * it listed, from Redis (no aggregation: a whole fleet asks at once); and, only before the job
 * has listed its pairs, whether the app stores an APK of each hash.
 */
import type { Db } from 'mongodb';
import { catalogCollections } from '../../shared/catalog/collections';
import type { AppDoc } from '../../shared/catalog/types';
import { pairPending, pendingPair, type JobView } from '../../shared/delta/pending';
import { deltaGenerateQueue } from '../../shared/queues/delta-generate';
import type { Producers } from '../../shared/queues/producers';
import type { Redis } from '../../shared/storage/redis';

interface PendingDeps {
  readonly db: Db;
  readonly redis: Redis;
  readonly producers: Producers;
}

async function jobView(deps: PendingDeps, app: AppDoc): Promise<JobView> {
  const queue = deps.producers.get(deltaGenerateQueue.name);
  const jobId = deltaGenerateQueue.jobId!({
    accountId: app.accountId,
    appId: app._id.toHexString(),
    currentVersion: app.currentVersion,
  });
  const key = queue.toKey(jobId);
  const [state, progress, locked] = await Promise.all([
    queue.getJobState(jobId),
    deps.redis.hget(key, 'progress'),
    deps.redis.exists(`${key}:lock`),
  ]);
  return {
    state,
    locked: locked === 1,
    progress: progress ? (JSON.parse(progress) as unknown) : 0,
  };
}

/** Whether the app stores an APK with this MD5 and one with this SHA-256 (two different ones). */
async function bothStored(db: Db, app: AppDoc, from: string, to: string): Promise<boolean> {
  const apks = await catalogCollections(db)
    .apks.find(
      { accountId: app.accountId, appId: app._id, $or: [{ md5: from }, { sha256: to }] },
      { projection: { md5: 1, sha256: 1 } },
    )
    .toArray();
  return apks.some((x) => x.md5 === from) && apks.some((x) => x.sha256 === to && x.md5 !== from);
}

export async function deltaPending(
  deps: PendingDeps,
  app: AppDoc,
  from: string,
  to: string,
): Promise<boolean> {
  const job = await jobView(deps, app);
  return pairPending(job, pendingPair(from, to), () => bothStored(deps.db, app, from, to));
}
