/**
 * "Who is in at p %" (issue 31, docs/rollouts.md): an app's installations with the bucket each
 * falls in (bucket.ts: SHA-256 of `<appId>:<deviceId>`), and whether a rollout at `percent` with
 * no targeting would include it. The app id is part of the answer, so an owner can compute the
 * same buckets. Pure; the route reads the device ids.
 */
import { BUCKETS, bucketOf, thresholdOf } from './bucket';

export interface RolloutPreview {
  readonly appId: string;
  readonly percent: number;
  /** Buckets below this are in (of `buckets`). */
  readonly threshold: number;
  readonly buckets: number;
  readonly installations: number;
  readonly included: number;
  /** Every installation, lowest bucket first (the first ones in as the percentage grows). */
  readonly devices: ReadonlyArray<{ deviceId: string; bucket: number; included: boolean }>;
}

/** A percentage from 0 to 100 with at most two decimals (a rollout stage's), else null. */
export function previewPercent(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  if (!Number.isFinite(n) || n < 0 || n > 100 || Math.round(n * 100) !== n * 100) return null;
  return n;
}

export function previewRollout(
  appId: string,
  deviceIds: readonly string[],
  percent: number,
): RolloutPreview {
  const threshold = thresholdOf(percent);
  const devices = deviceIds
    .map((deviceId) => {
      const bucket = bucketOf(appId, deviceId);
      return { deviceId, bucket, included: bucket < threshold };
    })
    .sort((a, b) => a.bucket - b.bucket || (a.deviceId < b.deviceId ? -1 : 1));
  return {
    appId,
    percent,
    threshold,
    buckets: BUCKETS,
    installations: devices.length,
    included: devices.filter((d) => d.included).length,
    devices,
  };
}
