/**
 * The webhook events of exception reports (docs/webhooks.md#exception-events), emitted by the
 * ingest once a report is counted in its group:
 * - `exception.group.new`: the first report of a group (first seen within the last hour, so a
 *   group older than the webhooks never counts as new). Once per group: the event's key is the
 *   group (emitting it again queues nothing), and a Redis marker spares the work after that.
 * - `exception.spike`: an app's reports admitted in one UTC clock hour reach
 *   max(EXCEPTION_SPIKE_MIN, EXCEPTION_SPIKE_FACTOR × the previous hour's); once per app and hour.
 */
import type { Db } from 'mongodb';
import { redisKeys } from '../../shared/redis-keys';
import type { Redis } from '../../shared/storage/redis';
import { emitEvent, type EmitDeps } from '../../shared/webhooks/deliveries';
import { exceptionsCollections } from '../../shared/exceptions/collections';

export interface SpikeSettings {
  /** Reports in an hour below which nothing is a spike. */
  readonly min: number;
  /** How many times the previous hour's count makes a spike. */
  readonly factor: number;
}

export const DEFAULT_SPIKE: SpikeSettings = { min: 50, factor: 3 };

export interface ExceptionEventDeps {
  readonly db: Db;
  readonly redis: Redis;
  readonly prefix: string;
  readonly events: EmitDeps;
  readonly spike: SpikeSettings;
}

export interface CountedReport {
  readonly reportId: string;
  readonly accountId: string;
  readonly appId: string;
  readonly package: string;
  readonly groupId: string;
  readonly title: string;
  readonly receivedAt: Date;
}

const HOUR_MS = 3_600_000;
const MARKER_KEEP_S = 400 * 86_400;

async function newGroup(deps: ExceptionEventDeps, r: CountedReport): Promise<void> {
  const { groups } = exceptionsCollections(deps.db);
  const group = await groups.findOne({ _id: r.groupId }, { projection: { firstSeen: 1 } });
  if (!group || r.receivedAt.getTime() - group.firstSeen.getTime() > HOUR_MS) return;
  const marker = redisKeys(deps.prefix).webhookGroupSeen(r.groupId);
  if ((await deps.redis.exists(marker)) === 1) return;
  const data = { package: r.package, groupId: r.groupId, title: r.title };
  await emitEvent(deps.events, [r.accountId], 'exception.group.new', data, `group:${r.groupId}`);
  await deps.redis.set(marker, '1', 'EX', MARKER_KEEP_S);
}

/**
 * Counts a report in its app's UTC hour, once however often its job runs (a set of report ids,
 * kept three hours): the hour, its count and the previous hour's.
 */
async function countInHour(
  redis: Redis,
  prefix: string,
  r: Pick<CountedReport, 'appId' | 'reportId' | 'receivedAt'>,
): Promise<{ hour: number; count: number; previous: number }> {
  const keys = redisKeys(prefix);
  const hour = Math.floor(r.receivedAt.getTime() / HOUR_MS);
  const key = keys.exceptionHour(r.appId, hour);
  if ((await redis.sadd(key, r.reportId)) === 1) await redis.expire(key, 3 * 3600);
  const count = await redis.scard(key);
  const previous = await redis.scard(keys.exceptionHour(r.appId, hour - 1));
  return { hour, count, previous };
}

async function spike(deps: ExceptionEventDeps, r: CountedReport): Promise<void> {
  const keys = redisKeys(deps.prefix);
  const { hour, count, previous } = await countInHour(deps.redis, deps.prefix, r);
  const threshold = Math.max(deps.spike.min, deps.spike.factor * previous);
  if (count < threshold) return;
  const fired = keys.spikeFired(r.appId, hour);
  if ((await deps.redis.exists(fired)) === 1) return;
  const data = {
    package: r.package,
    hourStart: new Date(hour * HOUR_MS).toISOString(),
    reports: count,
    previousHour: previous,
  };
  await emitEvent(deps.events, [r.accountId], 'exception.spike', data, `spike:${r.appId}:${hour}`);
  await deps.redis.set(fired, '1', 'EX', 3 * 3600);
}

export async function exceptionEvents(deps: ExceptionEventDeps, r: CountedReport): Promise<void> {
  await newGroup(deps, r);
  await spike(deps, r);
}
