/**
 * Job durations per queue as a cumulative histogram kept in Redis: worker processes add each
 * finished job (completed or failed) with one pipelined round trip, and every API process reads
 * the same totals for `/metrics`. Fields: `le:<bound>` (cumulative counts), `le:+Inf`, `sum`.
 */
import type { Redis } from '../storage/redis';
import { redisKeys } from '../redis-keys';

export const DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800];

export interface DurationHistogram {
  readonly buckets: ReadonlyArray<{ readonly le: string; readonly count: number }>;
  readonly sum: number;
  readonly count: number;
}

export async function recordJobDuration(
  redis: Redis,
  prefix: string,
  queue: string,
  seconds: number,
): Promise<void> {
  const key = redisKeys(prefix).jobDurations(queue);
  const pipeline = redis.pipeline();
  for (const le of DURATION_BUCKETS) if (seconds <= le) pipeline.hincrby(key, `le:${le}`, 1);
  pipeline.hincrby(key, 'le:+Inf', 1);
  pipeline.hincrbyfloat(key, 'sum', seconds);
  await pipeline.exec();
}

export async function readJobDurations(
  redis: Redis,
  prefix: string,
  queue: string,
): Promise<DurationHistogram> {
  const fields = await redis.hgetall(redisKeys(prefix).jobDurations(queue));
  const count = Number(fields['le:+Inf'] ?? 0);
  return {
    buckets: [
      ...DURATION_BUCKETS.map((le) => ({ le: String(le), count: Number(fields[`le:${le}`] ?? 0) })),
      { le: '+Inf', count },
    ],
    sum: Number(fields.sum ?? 0),
    count,
  };
}
