/**
 * Processor of `exception-ingest`: stores an admitted report, its screenshot and its group.
 *
 * Idempotent, so retries and re-enqueued resends store a report once and count it once:
 * - a report whose document exists (`_id` = the report id) is done: nothing more happens;
 * - the screenshot's GridFS id derives from the report id, and a complete copy is kept;
 * - the group is counted (exception-groups.ts) before the report document is inserted, and the
 *   insert is the job's last write. A crash between the two would count the report twice on
 *   retry; that window is two consecutive writes (FerretDB has no transactions to close it).
 * Every read and write here addresses one document by `_id`: FerretDB v1 scans a collection for
 * other filters, which would make ingestion slow down as reports accumulate.
 * A payload that cannot be stored (bad base64) never will be: UnrecoverableError.
 */
import { UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import { MongoServerError, type Db } from 'mongodb';
import {
  exceptionCollections,
  groupIdOf,
  type ExceptionDoc,
} from '../../shared/exceptions/collections';
import { exceptionClass, fingerprint, stackTitle } from '../../shared/exceptions/fingerprint';
import { gridFsScreenshots, type ScreenshotStore } from '../../shared/exceptions/screenshots';
import type {
  ExceptionIngestPayload,
  ExceptionIngestResult,
} from '../../shared/queues/exception-ingest';
import { redisKeys } from '../../shared/redis-keys';
import type { Processor } from '../processor';
import { groupWriter, type GroupWriter } from './exception-groups';

export interface ExceptionIngestDeps {
  readonly db: Db;
  /** For the per-group locks (see exception-groups.ts). */
  readonly redis: Redis;
  readonly prefix: string;
  /** Defaults to GridFS in `db`; built on first use. */
  readonly screenshots?: ScreenshotStore;
}

const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

export function exceptionIngestProcessor(
  deps: ExceptionIngestDeps,
): Processor<ExceptionIngestPayload, ExceptionIngestResult> {
  let screenshots = deps.screenshots;
  let groups: GroupWriter | undefined;
  return async (job) => {
    const { reports } = exceptionCollections(deps.db);
    const { report } = job;
    const print = fingerprint(report.stack);
    const groupId = groupIdOf(job.appId, print);
    const receivedAt = new Date(job.admittedAt);
    if (await reports.findOne({ _id: job.reportId }, { projection: { _id: 1 } })) {
      return { stored: false, groupId };
    }

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

    groups ??= groupWriter(deps.db, deps.redis, redisKeys(deps.prefix).exceptionGroupLock);
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
    try {
      await reports.insertOne(doc);
    } catch (err) {
      // A concurrent run of the same job got there first.
      if (isDuplicateKey(err)) return { stored: false, groupId };
      throw err;
    }
    return { stored: true, groupId };
  };
}
