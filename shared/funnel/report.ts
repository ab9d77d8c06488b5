/** The owner's view of an APK's install funnel: counts per stage and a page of installations. */
import type { Db } from 'mongodb';
import { deviceIdsOf, type AppScope } from '../devices/store';
import { funnelCounts, funnelRows } from './marks';
import { transferSummary } from './transfers';

const iso = (d: Date | null) => d?.toISOString() ?? null;

export async function apkFunnel(
  db: Db,
  app: AppScope,
  md5: string,
  page: { readonly after: string | null; readonly limit: number },
) {
  const [counts, { rows, next }, transfers] = await Promise.all([
    funnelCounts(db, app, md5),
    funnelRows(db, app, md5, page),
    transferSummary(db, app, md5),
  ]);
  const devices = await deviceIdsOf(
    { db },
    app,
    rows.map((r) => r.installation),
  );
  return {
    counts,
    transfers,
    installations: rows.map((r) => ({
      deviceId: devices.get(r.installation) ?? null,
      offeredAt: iso(r.offeredAt),
      downloadedAt: iso(r.downloadedAt),
      installedAt: iso(r.installedAt),
      failedAt: iso(r.failedAt),
      failure: r.failure,
    })),
    next,
  };
}
