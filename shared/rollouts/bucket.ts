/**
 * Deterministic bucketing: every (app, device id) falls in one bucket of [0, 10000), the same in
 * every process and at every evaluation, so a device in at 5 % (buckets below 500) stays in at
 * 25 % (below 2500). The bucket is the first four bytes of SHA-256 of `<appId>:<deviceId>` read
 * as a big-endian unsigned integer, modulo 10,000 (the bias of the modulo is below 3·10⁻⁶).
 */
import { createHash } from 'node:crypto';

export const BUCKETS = 10_000;

export function bucketOf(appId: string, deviceId: string): number {
  const digest = createHash('sha256').update(`${appId}:${deviceId}`, 'utf8').digest();
  return digest.readUInt32BE(0) % BUCKETS;
}

/** Buckets below this are in at `percent` (0 to 100, two decimals at most: 0.01 % steps). */
export function thresholdOf(percent: number): number {
  return Math.round(percent * (BUCKETS / 100));
}
