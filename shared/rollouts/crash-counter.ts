/**
 * Unhandled exceptions per (app, APK), for the rollout health gate: one Redis hash per app, one
 * cumulative counter per APK. The exception intake counts every unhandled report it judges from a
 * registered installation running a known APK, whether it is stored or refused by the 24 h limit
 * (the limit protects storage, not the rate a rollout is judged on). A resent report (same digest
 * inside the window) is not counted again. The gate reads differences of these counters.
 */
import type { Redis } from '../storage/redis';
import { redisKeys } from '../redis-keys';

export interface CrashCounter {
  count(appId: string, apkId: string): Promise<void>;
  read(appId: string, apkId: string | null): Promise<number>;
}

export function crashCounter(redis: Redis, prefix: string): CrashCounter {
  const keys = redisKeys(prefix);
  return {
    async count(appId, apkId) {
      await redis.hincrby(keys.crashCounts(appId), apkId, 1);
    },
    async read(appId, apkId) {
      if (!apkId) return 0;
      return Number((await redis.hget(keys.crashCounts(appId), apkId)) ?? 0);
    },
  };
}
