/**
 * Queue `exception-ingest`: one job per admitted exception report. The API has already decided the
 * verdict (authenticated, checked the app, the APK hash and the 24 h limit) and answered the
 * device; the worker stores the report, its screenshot and its group. The job id is the report
 * id (content digest + admission time), so re-enqueueing a resent report is a no-op. The payload
 * holds no API key: only the account id the key resolved to.
 */
import type { ExceptionReport, MetadataEntry } from '../exceptions/report';
import { MINUTE_MS } from './budget';
import { asRecord, defineQueue } from './definition';
import { PayloadInvalid } from '../errors';

export interface ExceptionIngestPayload {
  readonly reportId: string;
  readonly accountId: string;
  readonly appId: string;
  readonly apkId: string;
  /** `versionName (versionCode)` of the APK the hash names. */
  readonly version: string;
  /** Admission time (ms) from the API's clock: the report's `receivedAt`. */
  readonly admittedAt: number;
  readonly report: ExceptionReport;
}

export interface ExceptionIngestResult {
  readonly stored: boolean;
  readonly groupId: string;
}

/** How long a job that failed for good is kept, so that it can still be retried (seconds). */
export const FAILED_JOB_KEPT_S = 7 * 24 * 3600;

const REPORT_ID = /^[0-9a-f]{32}-\d{1,16}$/;

function strings(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new PayloadInvalid('exception-ingest', `${what} must be a list of strings`);
  }
  return value;
}

function entries(value: unknown, what: string): MetadataEntry[] {
  if (!Array.isArray(value)) throw new PayloadInvalid('exception-ingest', `${what} must be a list`);
  return value.map((e) => {
    const r = asRecord(e, `exception-ingest ${what}`);
    if (typeof r.key !== 'string' || typeof r.value !== 'string') {
      throw new PayloadInvalid('exception-ingest', `${what} entries are {key, value} strings`);
    }
    return { key: r.key, value: r.value };
  });
}

export const exceptionIngestQueue = defineQueue<
  ExceptionIngestPayload,
  ExceptionIngestResult,
  'exception-ingest'
>({
  name: 'exception-ingest',
  // I/O-bound (a few Mongo writes per report): many in flight per process.
  concurrency: 16,
  // Whole-job budget (workers/runtime.ts): each store step has its own deadline (screenshot 30 s, group count 90 s, insert 60 s).
  budgetMs: 3 * MINUTE_MS,
  parse(data) {
    const p = asRecord(data, 'exception-ingest');
    const str = (r: Record<string, unknown>, k: string) => {
      if (typeof r[k] !== 'string')
        throw new PayloadInvalid('exception-ingest', `${k} must be a string`);
      return r[k];
    };
    const reportId = str(p, 'reportId');
    if (!REPORT_ID.test(reportId))
      throw new PayloadInvalid('exception-ingest', 'malformed reportId');
    if (typeof p.admittedAt !== 'number' || !Number.isSafeInteger(p.admittedAt)) {
      throw new PayloadInvalid('exception-ingest', 'admittedAt must be an integer');
    }
    const r = asRecord(p.report, 'exception-ingest report');
    if (typeof r.handled !== 'boolean')
      throw new PayloadInvalid('exception-ingest', 'handled is boolean');
    if (r.screen !== null && typeof r.screen !== 'string') {
      throw new PayloadInvalid('exception-ingest', 'screen must be a string or null');
    }
    return {
      reportId,
      accountId: str(p, 'accountId'),
      appId: str(p, 'appId'),
      apkId: str(p, 'apkId'),
      version: str(p, 'version'),
      admittedAt: p.admittedAt,
      report: {
        package: str(r, 'package'),
        hash: str(r, 'hash'),
        deviceId: str(r, 'deviceId'),
        stack: strings(r.stack, 'stack'),
        log: strings(r.log, 'log'),
        metadata: entries(r.metadata, 'metadata'),
        extra: entries(r.extra, 'extra'),
        screen: r.screen,
        handled: r.handled,
      },
    };
  },
  jobId: (p) => `exc-${p.reportId}`,
  jobOptions: {
    // An acknowledged report must not be lost: retry Mongo outages for about an hour.
    attempts: 12,
    backoff: { type: 'exponential', delay: 1_000 },
    // Payloads can carry a screenshot of hundreds of KB: do not keep finished jobs in Redis.
    removeOnComplete: true,
    removeOnFail: { age: FAILED_JOB_KEPT_S, count: 1_000 },
  },
});
