/**
 * The metrics `/metrics` exposes (Prometheus text format, prom-client).
 *
 * Two kinds of series:
 * - per API process, counted where things happen (sum them across instances): bytes of APK
 *   downloaded, exception reports by verdict, open push streams, uploads being received;
 * - deployment-wide, read at scrape time from the shared stores (every API process reports the
 *   same values; aggregate with `max`, not `sum`): queue depths, overdue (stuck) jobs and job
 *   durations per queue (Redis; workers record durations), uploads by verdict (MongoDB), backup age (Redis).
 */
import type { Db } from 'mongodb';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { readLastBackup } from '../../shared/backup/last-backup';
import type { Verdict } from '../../shared/exceptions/verdicts';
import { QUEUES } from '../../shared/queues';
import { overdueJobs } from '../../shared/queues/budget';
import type { Producers } from '../../shared/queues/producers';
import type { Redis } from '../../shared/storage/redis';
import { jobDurationText } from './job-duration-text';

const JOB_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'paused',
  'failed',
  'completed',
] as const;

export interface MetricsSources {
  readonly db: Db;
  readonly redis: Redis;
  readonly prefix: string;
  readonly producers: Producers;
  /** Open push connections of this process by channel (`sse`, `pushlink`). */
  readonly openStreams: () => Readonly<Record<string, number>>;
  /** Uploads this process is receiving: the upload slots held (api/uploads/upload-slots.ts). */
  readonly uploadsReceiving: () => number;
  readonly now: () => Date;
}

export interface ApiMetrics {
  /** Body bytes of APK downloads sent in full (both hosts, hashed links included). */
  readonly bytesDownloaded: Counter;
  /** Connections the PushLink listener refused, by bound: `total` or `address`. */
  readonly legacyPushRefused: Counter<'reason'>;
  /** Counts an exception report's verdict and returns it unchanged. */
  countException(verdict: Verdict): Verdict;
  readonly contentType: string;
  render(): Promise<string>;
}

/** Uploads by verdict are counted in MongoDB at most this often (a scan of `uploads`). */
const UPLOAD_COUNTS_TTL_MS = 10_000;

export function createApiMetrics(sources: MetricsSources): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'apkrelay_' });
  const bytesDownloaded = new Counter({
    name: 'apkrelay_download_bytes_total',
    help: 'Bytes of APKs sent to devices and people by this API process.',
    registers: [registry],
  });
  const exceptions = new Counter({
    name: 'apkrelay_exception_reports_total',
    help: 'Exception reports received by this API process, by verdict (REGISTERED or the LOST reason).',
    labelNames: ['verdict'],
    registers: [registry],
  });
  new Gauge({
    name: 'apkrelay_push_streams_open',
    help: 'Device push connections open on this API process, by channel: sse (SSE streams), pushlink (PushLink SDK sockets).',
    labelNames: ['channel'],
    registers: [registry],
    collect() {
      for (const [channel, n] of Object.entries(sources.openStreams())) this.set({ channel }, n);
    },
  });
  new Gauge({
    name: 'apkrelay_uploads_receiving',
    help: 'Uploads this API process is receiving: slots of UPLOADS_TOTAL held, each until its handler is done with the body (stored, or refused and deleted).',
    registers: [registry],
    collect() {
      this.set(sources.uploadsReceiving());
    },
  });
  new Gauge({
    name: 'apkrelay_nodejs_array_buffers_bytes',
    help: 'Memory of the ArrayBuffers and Buffers of this API process (process.memoryUsage().arrayBuffers, part of external memory).',
    registers: [registry],
    collect() {
      this.set(process.memoryUsage().arrayBuffers);
    },
  });
  const legacyPushRefused = new Counter({
    name: 'apkrelay_legacy_push_refused_total',
    help: 'Connections the PushLink listener of this API process refused, by bound: total (LEGACY_PUSH_MAX_CONNECTIONS) or address (LEGACY_PUSH_MAX_PENDING_PER_ADDRESS).',
    labelNames: ['reason'],
    registers: [registry],
  });
  deploymentGauges(registry, sources);
  return {
    bytesDownloaded,
    legacyPushRefused,
    countException(verdict) {
      exceptions.inc({ verdict: verdict.status === 'REGISTERED' ? 'REGISTERED' : verdict.reason });
      return verdict;
    },
    contentType: registry.contentType,
    async render() {
      const durations = await jobDurationText(
        sources.redis,
        sources.prefix,
        QUEUES.map((q) => q.name),
      );
      return `${await registry.metrics()}\n${durations}`;
    },
  };
}

/** The deployment-wide series, read at scrape time from the shared stores. */
function deploymentGauges(registry: Registry, sources: MetricsSources): void {
  const uploadCounts = { at: -Infinity };
  new Gauge({
    name: 'apkrelay_queue_jobs',
    help: 'Jobs per queue and state (deployment-wide).',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const q of QUEUES) {
        const counts = await sources.producers.get(q.name).getJobCounts(...JOB_STATES);
        for (const state of JOB_STATES) this.set({ queue: q.name, state }, counts[state] ?? 0);
      }
    },
  });
  new Gauge({
    name: 'apkrelay_jobs_overdue',
    help: "Active jobs running longer than their queue's budget: stuck worker slots (deployment-wide).",
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      this.reset();
      const now = sources.now().getTime();
      for (const q of QUEUES) {
        const active = await sources.producers.get(q.name).getActive();
        this.set({ queue: q.name }, overdueJobs(active, q.budgetMs, now).length);
      }
    },
  });
  new Gauge({
    name: 'apkrelay_uploads',
    help: 'Uploads recorded, by verdict: accepted, a rejection code, or pending (deployment-wide).',
    labelNames: ['verdict'],
    registers: [registry],
    async collect() {
      const now = sources.now().getTime();
      // One aggregation over `uploads` per UPLOAD_COUNTS_TTL_MS, however often scrapers come.
      if (now - uploadCounts.at < UPLOAD_COUNTS_TTL_MS) return;
      const groups = await sources.db
        .collection('uploads')
        .aggregate<{ _id: { status?: string | null; code?: string | null }; n: number }>([
          { $group: { _id: { status: '$verdict.status', code: '$verdict.code' }, n: { $sum: 1 } } },
        ])
        .toArray();
      this.reset();
      for (const g of groups) {
        const verdict = g._id.status === 'accepted' ? 'accepted' : (g._id.code ?? 'pending');
        this.inc({ verdict }, g.n);
      }
      uploadCounts.at = now;
    },
  });
  new Gauge({
    name: 'apkrelay_backup_age_seconds',
    help: 'Seconds since the last successful backup job (+Inf: none yet) (deployment-wide).',
    registers: [registry],
    async collect() {
      const last = await readLastBackup(sources.redis, sources.prefix);
      this.set(last ? (sources.now().getTime() - last.at) / 1000 : Infinity);
    },
  });
}
