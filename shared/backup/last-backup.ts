/** The last successful backup, kept in Redis so every API process can report its age. */
import type { Redis } from '../storage/redis';
import { redisKeys } from '../redis-keys';

export interface LastBackup {
  /** When the archive was completed (ms since the epoch). */
  readonly at: number;
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
}

export async function recordLastBackup(redis: Redis, prefix: string, last: LastBackup) {
  await redis.set(redisKeys(prefix).lastBackup(), JSON.stringify(last));
}

export async function readLastBackup(redis: Redis, prefix: string): Promise<LastBackup | null> {
  const raw = await redis.get(redisKeys(prefix).lastBackup());
  if (!raw) return null;
  const parsed = JSON.parse(raw) as Partial<LastBackup>;
  return typeof parsed.at === 'number' ? (parsed as LastBackup) : null;
}
