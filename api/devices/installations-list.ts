/** The owner's paginated, filterable list of an app's installations. */
import type { Request } from 'express';
import type { Filter } from 'mongodb';
import type { AppDoc } from '../../shared/catalog/types';
import { presentInstallOutcome } from '../../shared/devices/install-outcome';
import { installations } from '../../shared/devices/installations';
import { lastSeenAt, seenFilter } from '../../shared/devices/live-state';
import type { InstallationDoc } from '../../shared/devices/types';
import { AppError } from '../../shared/errors';
import type { ApiDeps } from '../deps';

const MAX_PAGE_SIZE = 200;

export async function listInstallations(deps: ApiDeps, app: AppDoc, req: Request) {
  const q = req.query;
  const page = Math.max(1, Number(q.page ?? 1) || 1);
  const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Number(q.pageSize ?? 50) || 50));
  const now = deps.now().getTime();
  const onlineSince = new Date(now - 3 * deps.limits.heartbeatSeconds * 1000);
  const scope = { accountId: app.accountId, package: app.package };
  let filter: Filter<InstallationDoc> = { ...scope };
  switch (q.status) {
    case undefined:
    case '':
      break;
    case 'enabled':
    case 'disabled':
      filter.status = q.status;
      break;
    case 'online':
    case 'offline':
      filter = {
        ...filter,
        ...(await seenFilter(deps.live, scope, onlineSince, q.status === 'online')),
      };
      break;
    default:
      throw new AppError('VALIDATION_FAILED', {
        message: 'status must be enabled, disabled, online or offline',
      });
  }
  if (typeof q.q === 'string' && q.q !== '') {
    // A prefix of the device id, as a literal (no regex injection).
    filter.deviceId = { $regex: `^${q.q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}` };
  }
  const col = installations(deps.db);
  const [total, docs] = await Promise.all([
    col.countDocuments(filter),
    col
      .find(filter)
      .sort({ lastSeenAt: -1, deviceId: 1 })
      .skip((page - 1) * pageSize)
      .limit(pageSize)
      .toArray(),
  ]);
  const ids = docs.map((d) => d._id.toHexString());
  const [seen, offers] = await Promise.all([
    deps.live.lastSeen(scope, ids),
    deps.live.offers(scope, ids),
  ]);
  return {
    page,
    pageSize,
    total,
    installations: docs.map((d, i) => ({
      deviceId: d.deviceId,
      status: d.status,
      online: lastSeenAt(d, seen[i]!) >= onlineSince,
      installedMd5: d.installedMd5,
      lastDownloadedMd5: d.lastDownloadedMd5,
      pendingApkId: offers[i]!.offeredApkId,
      strategy: d.strategy,
      device: d.device,
      metadata: d.metadata,
      location: d.location
        ? { lat: d.location.lat, lon: d.location.lon, at: d.location.at.toISOString() }
        : null,
      lastInstall: d.lastInstall ? presentInstallOutcome(d.lastInstall) : null,
      registeredAt: d.registeredAt.toISOString(),
      lastSeenAt: lastSeenAt(d, seen[i]!).toISOString(),
    })),
  };
}
