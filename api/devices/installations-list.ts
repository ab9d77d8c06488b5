/** The owner's paginated, filterable list of an app's installations: the query, parsed. */
import type { Request } from 'express';
import type { AppDoc } from '../../shared/catalog/types';
import { listInstallationPage, type InstallationFilter } from '../../shared/devices/store';
import { AppError } from '../../shared/errors';
import type { ApiDeps } from '../deps';

const MAX_PAGE_SIZE = 200;
const STATUSES: readonly string[] = ['enabled', 'disabled', 'online', 'offline'];

function statusOf(value: unknown): InstallationFilter {
  if (value === undefined || value === '') return null;
  if (typeof value === 'string' && STATUSES.includes(value)) return value as InstallationFilter;
  throw new AppError('VALIDATION_FAILED', {
    message: 'status must be enabled, disabled, online or offline',
  });
}

export async function listInstallations(deps: ApiDeps, app: AppDoc, req: Request) {
  const q = req.query;
  const page = Math.max(1, Number(q.page ?? 1) || 1);
  const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Number(q.pageSize ?? 50) || 50));
  const onlineSince = new Date(deps.now().getTime() - 3 * deps.limits.heartbeatSeconds * 1000);
  return listInstallationPage(
    deps,
    { accountId: app.accountId, package: app.package },
    {
      page,
      pageSize,
      status: statusOf(q.status),
      deviceIdPrefix: typeof q.q === 'string' && q.q !== '' ? q.q : null,
      onlineSince,
    },
  );
}
