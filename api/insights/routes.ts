/**
 * What happened to an app's updates (issue 19): an APK's install funnel (offered, downloaded,
 * installed, failed; counts and per-installation rows) and the app's version adoption over time.
 * The use-cases are in shared/funnel/ and shared/adoption/.
 */
import type { Request, Response } from 'express';
import { adoptionSeries } from '../../shared/adoption/samples';
import type { AdoptionPoint } from '../../shared/adoption/points';
import { presentApk } from '../../shared/catalog/present';
import { apksOf } from '../../shared/catalog/queries';
import { pickApk } from '../../shared/catalog/pick-apk';
import { AppError } from '../../shared/errors';
import { apkFunnel } from '../../shared/funnel/report';
import { bearerAuth } from '../auth';
import type { ApiDeps } from '../deps';
import { appOf } from '../owned-app';
import type { Route } from '../route-table';

const MAX_PAGE = 200;
const MAX_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

function intParam(value: unknown, name: string, min: number, max: number, fallback: number) {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max))
    throw new AppError('VALIDATION_FAILED', {
      message: `${name} must be an integer from ${min} to ${max}`,
    });
  return n;
}

/** The APK named in the query as `sha256`, `md5` or `versionCode`. */
function apkQuery(req: Request): Record<string, unknown> {
  const { sha256, md5, versionCode } = req.query;
  if (typeof sha256 === 'string') return { sha256 };
  if (typeof md5 === 'string') return { md5 };
  if (typeof versionCode === 'string')
    return { versionCode: intParam(versionCode, 'versionCode', 0, 2 ** 31 - 1, 0) };
  return {};
}

export async function getApkFunnel(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const app = await appOf(deps, res, req);
  const apk = pickApk(await apksOf(deps.db, app), apkQuery(req));
  const limit = intParam(req.query.limit, 'limit', 1, MAX_PAGE, 50);
  const after = typeof req.query.after === 'string' && req.query.after ? req.query.after : null;
  const funnel = await apkFunnel(deps.db, app, apk.md5, { after, limit });
  res.json({ apk: presentApk(apk), ...funnel });
}

export function presentPoint(p: AdoptionPoint) {
  return { at: p.at.toISOString(), total: p.total, versions: p.versions };
}

export async function getAdoption(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const app = await appOf(deps, res, req);
  const days = intParam(req.query.days, 'days', 1, MAX_DAYS, 7);
  const now = deps.now();
  const points = await adoptionSeries(deps, app, new Date(now.getTime() - days * DAY_MS), now);
  res.json({ package: app.package, days, points: points.map(presentPoint) });
}

export function insightRoutes(deps: ApiDeps): Route[] {
  const owner = bearerAuth(deps);
  return [
    {
      method: 'get',
      path: '/api/v2/apps/:package/funnel',
      hosts: ['admin'],
      access: 'apiKey',
      summary:
        "An APK's install funnel (named by sha256, md5 or versionCode): counts of installations offered, downloaded, installed and failed, and a page of installations.",
      handlers: [owner, (req, res) => getApkFunnel(deps, req, res)],
    },
    {
      method: 'get',
      path: '/api/v2/apps/:package/adoption',
      hosts: ['admin'],
      access: 'apiKey',
      summary:
        "The app's version adoption: installations seen in the previous 24 h by version, hourly over `days`, the last point now.",
      handlers: [owner, (req, res) => getAdoption(deps, req, res)],
    },
  ];
}
