/**
 * The funnel's marks in MongoDB: one small document per (installation, APK, stage), never updated.
 * Its `_id` is derived from the three (stages.ts), so recording is an insert that the database
 * refuses as a duplicate when the mark exists: idempotent across reconnects, retries and API
 * processes, with no read first and no counter to increment (on the embedded server concurrent
 * updates of one document can lose writes: storage.md). Counts are `countDocuments`.
 */
import { MongoBulkWriteError, MongoServerError, type Db } from 'mongodb';
import type { AppScope } from '../devices/store';
import {
  markId,
  MARKS_PER_INSTALLATION,
  marksOfReport,
  rowsOfMarks,
  type FunnelMark,
  type FunnelRow,
  type FunnelStage,
  type Reported,
} from './stages';
import { funnelCollections, type MarkDoc } from './collections';
import { recordTransfer } from './transfers';

const DUPLICATE_KEY = 11000;

function onlyDuplicates(err: unknown): boolean {
  if (err instanceof MongoBulkWriteError) {
    const errors = [err.writeErrors].flat(2) as ReadonlyArray<{ readonly code: number }>;
    return errors.length > 0 && errors.every((e) => e.code === DUPLICATE_KEY);
  }
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}

/** Records marks of one app; those already recorded stay as first recorded. */
export async function recordMarks(
  db: Db,
  app: AppScope,
  list: readonly FunnelMark[],
): Promise<void> {
  if (list.length === 0) return;
  const docs = list.map((m) => ({
    _id: markId(m.installation, m.md5, m.stage),
    accountId: app.accountId,
    package: app.package,
    installation: m.installation,
    md5: m.md5,
    stage: m.stage,
    at: m.at,
    ...(m.stage === 'failed' ? { osStatus: m.osStatus ?? null, message: m.message ?? null } : {}),
  }));
  try {
    await funnelCollections(db).marks.insertMany(docs, { ordered: false });
  } catch (err) {
    if (!onlyDuplicates(err)) throw err;
  }
}

export type FunnelCounts = Record<FunnelStage, number>;

/** How many installations reached each stage of the APK with this MD5: one grouped read. */
export async function funnelCounts(db: Db, app: AppScope, md5: string): Promise<FunnelCounts> {
  return (await groupedCounts(db, { ...scopeOf(app), md5 })).get(md5) ?? noMarks();
}

/** One page of per-installation rows, ordered by installation id, after `after` (exclusive). */
export async function funnelRows(
  db: Db,
  app: AppScope,
  md5: string,
  page: { readonly after: string | null; readonly limit: number },
): Promise<{ rows: FunnelRow[]; next: string | null }> {
  const filter = {
    accountId: app.accountId,
    package: app.package,
    md5,
    ...(page.after ? { installation: { $gt: page.after } } : {}),
  };
  const found = await funnelCollections(db)
    .marks.find(filter)
    .sort({ installation: 1, stage: 1 })
    .limit(page.limit * MARKS_PER_INSTALLATION + 1)
    .toArray();
  const { rows, more } = rowsOfMarks(found, page.limit);
  return { rows, next: more ? (rows[rows.length - 1]?.installation ?? null) : null };
}

/** What a registration or heartbeat reported, as marks of the installation (hex id). */
export async function recordReport(
  db: Db,
  app: AppScope,
  installation: string,
  reported: Reported,
  at: Date,
): Promise<void> {
  await recordMarks(db, app, marksOfReport(installation, reported, at));
  const o = reported.outcome;
  if (o?.download)
    await recordTransfer(db, app, { installation, md5: o.md5, download: o.download }, at);
}

/** The push hub sent these installations (hex ids) a `version` event for the APK `md5`. */
export function recordOffers(
  db: Db,
  app: AppScope,
  md5: string,
  installationIds: readonly string[],
  at: Date,
): Promise<void> {
  return recordMarks(
    db,
    app,
    installationIds.map((installation) => ({ installation, md5, stage: 'offered', at })),
  );
}

const noMarks = (): FunnelCounts => ({ offered: 0, downloaded: 0, installed: 0, failed: 0 });
const scopeOf = (app: AppScope) => ({ accountId: app.accountId, package: app.package });

/** The counts of every APK (by MD5) of the app that has marks: one grouped read. */
export function funnelCountsByApk(db: Db, app: AppScope): Promise<Map<string, FunnelCounts>> {
  return groupedCounts(db, scopeOf(app));
}

async function groupedCounts(
  db: Db,
  match: Record<string, string>,
): Promise<Map<string, FunnelCounts>> {
  const groups = await funnelCollections(db)
    .marks.aggregate<{ _id: { md5: string; stage: FunnelStage }; n: number }>([
      { $match: match },
      { $group: { _id: { md5: '$md5', stage: '$stage' }, n: { $sum: 1 } } },
    ])
    .toArray();
  const byApk = new Map<string, FunnelCounts>();
  for (const { _id, n } of groups) {
    const counts = byApk.get(_id.md5) ?? noMarks();
    counts[_id.stage] = n;
    byApk.set(_id.md5, counts);
  }
  return byApk;
}

/** Every mark of one installation (hex id) of the app, oldest first: its history of versions. */
export function marksOfInstallation(
  db: Db,
  app: AppScope,
  installation: string,
): Promise<MarkDoc[]> {
  return funnelCollections(db)
    .marks.find({ ...scopeOf(app), installation })
    .sort({ at: 1, stage: 1 })
    .toArray();
}
