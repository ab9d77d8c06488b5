/**
 * Queue `version-notice`: the current APK of an app changed (an upload with current=true, the JSON
 * API, the web administration). The worker appends the notice to the app's Redis stream and
 * publishes it, so that every API process relays it to its own connected devices and a device
 * that reconnects can catch up from the stream.
 */
import { MINUTE_MS } from './budget';
import type { VersionNoticePayload } from '../notices/version-notice';
import { asRecord, defineQueue } from './definition';

export type { VersionNoticePayload };

export const versionNoticeQueue = defineQueue<
  VersionNoticePayload,
  { streamId: string },
  'version-notice'
>({
  name: 'version-notice',
  concurrency: 8,
  // Whole-job budget (workers/runtime.ts): one notice to the push hubs.
  budgetMs: 2 * MINUTE_MS,
  parse(data) {
    const p = asRecord(data, 'version-notice');
    for (const k of ['accountId', 'appId', 'package'] as const) {
      if (typeof p[k] !== 'string') throw new Error(`version-notice: ${k} must be a string`);
    }
    if (p.apkId !== null && typeof p.apkId !== 'string') {
      throw new Error('version-notice: apkId must be a string or null');
    }
    if (typeof p.currentVersion !== 'number' || !Number.isInteger(p.currentVersion)) {
      throw new Error('version-notice: currentVersion must be an integer');
    }
    return {
      accountId: p.accountId as string,
      appId: p.appId as string,
      package: p.package as string,
      apkId: p.apkId,
      currentVersion: p.currentVersion,
    };
  },
  jobId: (p) => `${p.appId}-${p.currentVersion}`,
  jobOptions: {
    attempts: 10,
    backoff: { type: 'exponential', delay: 500 },
    removeOnComplete: { count: 1_000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  },
});
