/**
 * The owner's paginated, filterable list of an app's installations: the query, parsed, and each
 * row told whether it is "ahead" (it runs a higher versionCode than the APK it would be offered:
 * it is offered nothing, shared/devices/decide.ts), from the app's targets as the push hub
 * picks them.
 */
import type { Request } from 'express';
import { ObjectId } from 'mongodb';
import { apkById, versionCodesOf } from '../../shared/catalog/queries';
import type { AppDoc } from '../../shared/catalog/types';
import { isAhead } from '../../shared/devices/decide';
import {
  listInstallationPage,
  type InstallationFilter,
  type InstallationQuery,
} from '../../shared/devices/store';
import { targetFor } from '../../shared/rollouts/target';
import { loadTargets } from '../../shared/rollouts/targets';
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

/** The page, filter and online threshold the query asks for. */
function queryOf(deps: ApiDeps, req: Request): InstallationQuery {
  const q = req.query;
  return {
    page: Math.max(1, Number(q.page ?? 1) || 1),
    pageSize: Math.min(MAX_PAGE_SIZE, Math.max(1, Number(q.pageSize ?? 50) || 50)),
    status: statusOf(q.status),
    deviceIdPrefix: typeof q.q === 'string' && q.q !== '' ? q.q : null,
    onlineSince: new Date(deps.now().getTime() - 3 * deps.limits.heartbeatSeconds * 1000),
  };
}

export async function listInstallations(deps: ApiDeps, app: AppDoc, req: Request) {
  const scope = { accountId: app.accountId, package: app.package };
  const [listed, loaded, versionCodes] = await Promise.all([
    listInstallationPage(deps, scope, queryOf(deps, req)),
    loadTargets(deps.db, app, (id) => apkById(deps.db, app.accountId, new ObjectId(id))),
    versionCodesOf(deps.db, app),
  ]);
  const installations = listed.installations.map((row) => {
    const installed = versionCodes.get(row.installedMd5 ?? '') ?? null;
    return { ...row, ahead: isAhead(targetFor(loaded.targets, row), installed) };
  });
  return { ...listed, installations };
}
