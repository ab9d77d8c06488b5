/**
 * How each update of an APK came over the network (docs/delta-updates.md): one document per
 * (installation, APK), from the `download` the client reports with the installation's outcome:
 * a patch or the full APK, the bytes received, and why a patch that was tried was not used. Like
 * the funnel's marks, its `_id` is derived, so a repeated report is refused as a duplicate and
 * the first one stands. The summary sums bytes per `via` and counts fallbacks by reason.
 */
import { createHash } from 'node:crypto';
import { MongoServerError, ObjectId, type Db } from 'mongodb';
import type { AppScope } from '../devices/store';
import type { DownloadReport, FallbackReason } from '../devices/install-outcome';

export const TRANSFERS_COLLECTION = 'update_transfers';

interface TransferDoc {
  _id: ObjectId;
  accountId: string;
  package: string;
  installation: string;
  md5: string;
  via: 'delta' | 'full';
  bytes: number;
  fallback: FallbackReason | null;
  at: Date;
}

const transfers = (db: Db) => db.collection<TransferDoc>(TRANSFERS_COLLECTION);

export async function ensureTransferIndexes(db: Db): Promise<void> {
  await transfers(db).createIndex({ accountId: 1, package: 1, md5: 1 }, { name: 'apk' });
}

function transferId(installation: string, md5: string): ObjectId {
  const digest = createHash('sha256').update(`${installation}\n${md5}\ntransfer`).digest();
  return new ObjectId(digest.subarray(0, 12));
}

/** Keeps how installation `installation` got the APK `md5`; a repeat changes nothing. */
export async function recordTransfer(
  db: Db,
  app: AppScope,
  update: { installation: string; md5: string; download: DownloadReport },
  at: Date,
): Promise<void> {
  const { installation, md5, download } = update;
  try {
    await transfers(db).insertOne({
      _id: transferId(installation, md5),
      accountId: app.accountId,
      package: app.package,
      installation,
      md5,
      via: download.via,
      bytes: download.bytes,
      fallback: download.fallback?.reason ?? null,
      at,
    });
  } catch (err) {
    if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
  }
}

export interface TransferSummary {
  readonly delta: { updates: number; bytes: number };
  readonly full: { updates: number; bytes: number };
  /** Full downloads after a patch was tried, by reason. */
  readonly fallbacks: Partial<Record<FallbackReason, number>>;
}

const empty = (): TransferSummary => ({
  delta: { updates: 0, bytes: 0 },
  full: { updates: 0, bytes: 0 },
  fallbacks: {},
});

/** The summary of every APK (by MD5) of the app that has reports: one grouped read. */
export async function transfersByApk(
  db: Db,
  app: AppScope,
  md5?: string,
): Promise<Map<string, TransferSummary>> {
  const match = { accountId: app.accountId, package: app.package, ...(md5 ? { md5 } : {}) };
  // Summed here, not by $group: the embedded server's $sum of a field gave 0.
  const docs = transfers(db).find(match, {
    projection: { _id: 0, md5: 1, via: 1, bytes: 1, fallback: 1 },
  });
  const byApk = new Map<string, TransferSummary>();
  for await (const doc of docs) {
    const summary = byApk.get(doc.md5) ?? empty();
    summary[doc.via].updates += 1;
    summary[doc.via].bytes += doc.bytes;
    if (doc.fallback) summary.fallbacks[doc.fallback] = (summary.fallbacks[doc.fallback] ?? 0) + 1;
    byApk.set(doc.md5, summary);
  }
  return byApk;
}

export async function transferSummary(
  db: Db,
  app: AppScope,
  md5: string,
): Promise<TransferSummary> {
  return (await transfersByApk(db, app, md5)).get(md5) ?? empty();
}

/** What patches saved on an APK of `size` bytes: against every reported update coming whole. */
export function deltaSaving(
  summary: TransferSummary,
  size: number,
): { saved: number; whole: number } | null {
  const updates = summary.delta.updates + summary.full.updates;
  if (summary.delta.updates === 0 || size <= 0) return null;
  const whole = updates * size;
  const saved = whole - summary.delta.bytes - summary.full.bytes;
  return { saved, whole };
}
