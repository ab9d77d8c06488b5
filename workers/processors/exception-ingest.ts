/**
 * Processor of `exception-ingest`: stores an admitted report, its screenshot and its group.
 *
 * Idempotent, so retries and re-enqueued resends store a report once and count it once:
 * - the screenshot's GridFS id derives from the report id, and a complete copy is kept;
 * - the report document's `_id` is the report id: a second insert fails on the unique `_id`;
 * - the group is counted only while the report is `grouped: false`, then the flag is set (under
 *   the group's lock, see exception-groups.ts). A crash between the group update and the flag
 *   would count it twice on retry; that window is two consecutive writes (FerretDB has no
 *   transactions to close it).
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
      grouped: false,
    };
    try {
      await reports.insertOne(doc);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const existing = await reports.findOne({ _id: job.reportId }, { projection: { grouped: 1 } });
      if (existing?.grouped) return { stored: false, groupId };
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
    return { stored: true, groupId };
  };
}
