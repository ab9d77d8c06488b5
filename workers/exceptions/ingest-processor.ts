/**
 * Processor of `exception-ingest`: stores an admitted report, its screenshot and its group.
 *
 * Idempotent, so retries and re-enqueued resends store a report once and count it once:
 * - a stored report leaves a Redis marker (kept 25 h, longer than the window in which a resend
 *   can map to the same report id): its job finds it and does nothing more;
 * - the screenshot's GridFS id derives from the report id, and a complete copy is kept;
 * - the group is counted (groups.ts) before the report document is inserted
 *   (`_id` = report id, so it cannot happen twice), then the marker is set. The count is exact
 *   however a run fails: the group's write records the report id in its `pending` list, and the
 *   id leaves that list only once its marker exists (group-pending.ts); a retry finds one or the
 *   other and does not count again. A report is never stored without having been counted.
 * Inserts and group updates are coalesced per worker process (coalesce.ts, groups.ts).
 * Every read and write here addresses one document by `_id`: a server that scans a collection for
 * other filters would make ingestion slow down as reports accumulate.
 * A payload that cannot be stored (bad base64) never will be: UnrecoverableError. Nor will one
 * whose app is not of its account (job-ownership.ts), checked before the first write.
 */
import { UnrecoverableError } from 'bullmq';
import type { Redis } from '../../shared/storage/redis';
import { MongoBulkWriteError, type Collection, type Db } from 'mongodb';
import {
  groupIdOf,
  type ExceptionDoc,
  exceptionsCollections,
} from '../../shared/exceptions/collections';
import { exceptionClass, fingerprint, stackTitle } from '../../shared/exceptions/fingerprint';
import { gridFsScreenshots, type ScreenshotStore } from '../../shared/exceptions/screenshots';
import { DAY_MS } from '../../shared/exceptions/sliding-window';
import type {
  ExceptionIngestPayload,
  ExceptionIngestResult,
} from '../../shared/queues/exception-ingest';
import { redisKeys } from '../../shared/redis-keys';
import type { Processor } from '../processor';
import { coalesce, type Coalescer } from './coalesce';
import { groupWriter, type GroupWriter } from './groups';
import { appOfAccount } from '../job-ownership';
import { exceptionEvents, type ExceptionEventDeps } from './events';

export interface ExceptionIngestDeps {
  readonly db: Db;
  /** For the per-group locks (see groups.ts). */
  readonly redis: Redis;
  readonly prefix: string;
  /** Defaults to GridFS in `db`; built on first use. */
  readonly screenshots?: ScreenshotStore;
  /** Webhook events of reports (events.ts); unset: none. */
  readonly events?: Omit<ExceptionEventDeps, 'db' | 'redis' | 'prefix'>;
}

/** Inserts reports in one command; a report already there (a concurrent run of its job) is fine. */
async function insertReports(
  reports: Collection<ExceptionDoc>,
  docs: readonly ExceptionDoc[],
): Promise<void> {
  try {
    await reports.insertMany([...docs], { ordered: false });
  } catch (err) {
    const errors = err instanceof MongoBulkWriteError ? [err.writeErrors].flat() : [];
    if (errors.length === 0 || errors.some((e) => e.code !== 11000)) throw err;
  }
}

export function exceptionIngestProcessor(
  deps: ExceptionIngestDeps,
): Processor<ExceptionIngestPayload, ExceptionIngestResult> {
  let screenshots = deps.screenshots;
  let groups: GroupWriter | undefined;
  let inserts: Coalescer<ExceptionDoc> | undefined;
  return async (job) => {
    const { reports } = exceptionsCollections(deps.db);
    const { report } = job;
    await appOfAccount(deps.db, job.accountId, job.appId, report.package);
    const print = fingerprint(report.stack);
    const groupId = groupIdOf(job.appId, print);
    const receivedAt = new Date(job.admittedAt);
    // Stored already (a resend re-enqueued after the first job finished): a Redis marker that
    // outlives the window answers without a MongoDB read.
    const marker = redisKeys(deps.prefix).exceptionStored(job.reportId);
    if ((await deps.redis.exists(marker)) === 1) return { stored: false, groupId };

    let screenshotId: string | null = null;
    let screenshotBytes = 0;
    if (report.screen) {
      const bytes = Buffer.from(report.screen, 'base64');
      if (bytes.length === 0) throw new UnrecoverableError('screenshot decodes to nothing');
      screenshots ??= gridFsScreenshots(deps.db);
      screenshotId = await screenshots.put(job.reportId, bytes, {
        accountId: job.accountId,
        package: report.package,
      });
      screenshotBytes = bytes.length;
    }

    groups ??= groupWriter(deps.db, deps.redis, {
      lock: redisKeys(deps.prefix).exceptionGroupLock,
      stored: redisKeys(deps.prefix).exceptionStored,
    });
    await groups.count({
      reportId: job.reportId,
      groupId,
      accountId: job.accountId,
      appId: job.appId,
      package: report.package,
      fingerprint: print,
      exceptionClass: exceptionClass(report.stack[0] ?? ''),
      title: stackTitle(report.stack),
      handled: report.handled,
      version: job.version,
      deviceId: report.deviceId,
      receivedAt,
    });
    if (deps.events) {
      const counted = { ...job, package: report.package, groupId, receivedAt };
      await exceptionEvents(
        { ...deps, ...deps.events },
        { ...counted, title: stackTitle(report.stack) },
      );
    }
    const doc: ExceptionDoc = {
      _id: job.reportId,
      accountId: job.accountId,
      appId: job.appId,
      package: report.package,
      apkId: job.apkId,
      version: job.version,
      apkHash: report.hash,
      deviceId: report.deviceId,
      handled: report.handled,
      stack: [...report.stack],
      log: [...report.log],
      metadata: [...report.metadata],
      extra: [...report.extra],
      fingerprint: print,
      groupId,
      screenshotId,
      screenshotBytes,
      receivedAt,
    };
    inserts ??= coalesce((docs) => insertReports(reports, docs));
    await inserts.submit(doc);
    await deps.redis.set(marker, '1', 'PX', DAY_MS + 3_600_000);
    return { stored: true, groupId };
  };
}
