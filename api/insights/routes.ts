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
import { apkFunnel } from '../../shared/funnel/report';
import { bearerAuth } from '../auth';
import type { ApiDeps } from '../deps';
import { appOf } from '../owned-app';
import { adoptionContract, funnelContract } from './contracts';
import { inputOf } from '../request-validation';
import type { Route } from '../route-table';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The APK the query names by `sha256`, `md5` or `versionCode`, in that order of preference. */
function apkQuery(query: { sha256?: string; md5?: string; versionCode?: number }) {
  const { sha256, md5, versionCode } = query;
  if (sha256 !== undefined) return { sha256 };
  if (md5 !== undefined) return { md5 };
  if (versionCode !== undefined) return { versionCode };
  return {};
}

export async function getApkFunnel(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const { query } = inputOf(funnelContract, res);
  const app = await appOf(deps, res, req);
  const apk = pickApk(await apksOf(deps.db, app), apkQuery(query));
  const page = { after: query.after ?? null, limit: query.limit ?? 50 };
  const funnel = await apkFunnel(deps.db, app, apk.md5, page);
  res.json({ apk: presentApk(apk), ...funnel });
}

export function presentPoint(p: AdoptionPoint) {
  return { at: p.at.toISOString(), total: p.total, versions: p.versions };
}

export async function getAdoption(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const days = inputOf(adoptionContract, res).query.days ?? 7;
  const app = await appOf(deps, res, req);
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
      contract: funnelContract,
      handlers: [owner, (req, res) => getApkFunnel(deps, req, res)],
    },
    {
      method: 'get',
      path: '/api/v2/apps/:package/adoption',
      hosts: ['admin'],
      access: 'apiKey',
      contract: adoptionContract,
      handlers: [owner, (req, res) => getAdoption(deps, req, res)],
    },
  ];
}
