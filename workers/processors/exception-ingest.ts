/**
 * Processor of `exception-ingest`: stores an admitted report, its screenshot and its group.
 *
 * Idempotent, so retries and re-enqueued resends store a report once and count it once:
 * - the screenshot's GridFS id derives from the report id, and a complete copy is kept;
 * - the report document's `_id` is the report id: a second insert fails on the unique `_id`;
 * - the group is counted only while the report is `grouped: false`, then the flag is set. A crash
 *   between the group update and the flag would count it twice on retry; that window is two
 *   consecutive single-document writes (FerretDB has no transactions to close it).
 * A payload that cannot be stored (bad base64) never will be: UnrecoverableError.
 */
import { UnrecoverableError } from 'bullmq';
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
import type { Processor } from '../processor';

export interface ExceptionIngestDeps {
  readonly db: Db;
  /** Defaults to GridFS in `db`; built on first use. */
  readonly screenshots?: ScreenshotStore;
}

const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

export function exceptionIngestProcessor(
  deps: ExceptionIngestDeps,
): Processor<ExceptionIngestPayload, ExceptionIngestResult> {
  let screenshots = deps.screenshots;
  return async (job) => {
    const { reports, groups } = exceptionCollections(deps.db);
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

    const update = {
      $inc: {
        count: 1,
        handledCount: report.handled ? 1 : 0,
        unhandledCount: report.handled ? 0 : 1,
      },
      $min: { firstSeen: receivedAt },
      $max: { lastSeen: receivedAt },
      $addToSet: { versions: job.version, devices: report.deviceId },
      $set: { lastReportId: job.reportId },
      $setOnInsert: {
        accountId: job.accountId,
        appId: job.appId,
        package: report.package,
        fingerprint: print,
        exceptionClass: exceptionClass(report.stack[0] ?? ''),
        title: stackTitle(report.stack),
      },
    };
    try {
      await groups.updateOne({ _id: groupId }, update, { upsert: true });
    } catch (err) {
      // Two first reports of a group raced to insert it: the loser updates the winner's document.
      if (!isDuplicateKey(err)) throw err;
      await groups.updateOne({ _id: groupId }, update);
    }
    await reports.updateOne({ _id: job.reportId }, { $set: { grouped: true } });
    return { stored: true, groupId };
  };
}
