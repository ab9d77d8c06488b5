/**
 * Exception reports and their groups as stored in MongoDB. A report is one document (`_id` = the
 * report id, so storing it twice is impossible); a group is one document per app and fingerprint,
 * updated with single-document atomic upserts (no transactions). Metadata are lists of
 * `{key, value}`: a document key may not hold `.` or start with `$`.
 */
import type { Db } from 'mongodb';
import { collectionsOf } from '../collections';
import type { MetadataEntry } from './report';

export const EXCEPTIONS = 'exceptions';
export const EXCEPTION_GROUPS = 'exception_groups';
export const SCREENSHOT_BUCKET = 'screenshots';

export interface ExceptionDoc {
  /** `<content digest (32 hex)>-<admission ms>`; also the job id and the screenshot's id. */
  _id: string;
  accountId: string;
  appId: string;
  package: string;
  apkId: string;
  /** `versionName (versionCode)` of the APK the device runs. */
  version: string;
  apkHash: string;
  deviceId: string;
  handled: boolean;
  stack: string[];
  log: string[];
  metadata: MetadataEntry[];
  extra: MetadataEntry[];
  fingerprint: string;
  groupId: string;
  /** GridFS file id (hex) in the `screenshots` bucket, or null without a screenshot. */
  screenshotId: string | null;
  screenshotBytes: number;
  receivedAt: Date;
}

export interface ExceptionGroupDoc {
  /** `<appId>:<fingerprint>`. */
  _id: string;
  accountId: string;
  appId: string;
  package: string;
  fingerprint: string;
  exceptionClass: string;
  /** The first line of the first report's stack. */
  title: string;
  count: number;
  handledCount: number;
  unhandledCount: number;
  firstSeen: Date;
  lastSeen: Date;
  versions: string[];
  devices: string[];
  lastReportId: string;
  /**
   * Reports counted here whose report document may not be stored yet: the proof, for a retried
   * job, that its report is already counted (workers/exceptions/group-pending.ts). Absent on
   * groups written before it existed.
   */
  pending?: PendingCount[];
}

export interface PendingCount {
  /** The report id. */
  readonly id: string;
  /** When it was counted. */
  readonly at: Date;
}

export function exceptionsCollections(db: Db) {
  return collectionsOf<{ reports: ExceptionDoc; groups: ExceptionGroupDoc }>(db, {
    reports: EXCEPTIONS,
    groups: EXCEPTION_GROUPS,
  });
}

export function groupIdOf(appId: string, fingerprint: string): string {
  return `${appId}:${fingerprint}`;
}

export async function ensureExceptionsIndexes(db: Db): Promise<void> {
  const { reports, groups } = exceptionsCollections(db);
  await reports.createIndex({ accountId: 1, package: 1, receivedAt: -1 }, { name: 'app_received' });
  await reports.createIndex({ groupId: 1, receivedAt: -1 }, { name: 'group_received' });
  await groups.createIndex({ accountId: 1, package: 1, lastSeen: -1 }, { name: 'app_last_seen' });
}
