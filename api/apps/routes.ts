/** JSON API over apps and APKs: list, show, and set the current APK (the spec's "give up"). */
import { presentApk } from '../../shared/catalog/present';
import { apksOf, currentApkOf } from '../../shared/catalog/queries';
import { pickApk } from '../../shared/catalog/pick-apk';
import type { ApkDoc, AppDoc } from '../../shared/catalog/types';
import { appNeed, bearerAuth, currentAccount } from '../auth';
import type { ApiDeps } from '../deps';
import { appOf } from '../owned-app';
import { appOverview } from './overview';
import { makeCurrentAs } from '../rollouts/rollout-view';
import { listAppsContract, makeCurrentContract, showAppContract } from '../downloads/contracts';
import type { Route } from '../route-table';

export function appRoutes(deps: ApiDeps): Route[] {
  const auth = bearerAuth(deps);

  async function summary(app: AppDoc, known?: ApkDoc | null) {
    const current = known === undefined ? await currentApkOf(deps.db, app) : known;
    return {
      package: app.package,
      label: app.label,
      signerSha256: app.signerSha256,
      currentVersion: app.currentVersion,
      current: current ? presentApk(current) : null,
      createdAt: app.createdAt.toISOString(),
    };
  }

  return [
    {
      method: 'get',
      path: '/api/v2/apps',
      hosts: ['admin'],
      access: 'apiKey',
      contract: listAppsContract,
      handlers: [
        auth,
        async (_req, res) => {
          const rows = await appOverview(deps, currentAccount(res).id);
          const apps = rows.map(async ({ app, current, fleet }) => ({
            ...(await summary(app, current)),
            fleet,
          }));
          res.json({ apps: await Promise.all(apps) });
        },
      ],
    },
    {
      method: 'get',
      path: '/api/v2/apps/:package',
      hosts: ['admin'],
      access: 'apiKey',
      contract: showAppContract,
      handlers: [
        auth,
        async (req, res) => {
          const app = await appOf(deps, res, req);
          const apks = await apksOf(deps.db, app);
          res.json({
            ...(await summary(app)),
            apks: apks.map((a) => ({
              ...presentApk(a),
              current: app.currentApkId?.equals(a._id) ?? false,
            })),
          });
        },
      ],
    },
    {
      method: 'put',
      path: '/api/v2/apps/:package/current',
      hosts: ['admin'],
      access: 'apiKey',
      contract: makeCurrentContract,
      handlers: [
        // CI tokens of this app too (docs/keys.md).
        bearerAuth(deps, { need: appNeed('make-current') }),
        async (req, res) => {
          const app = await appOf(deps, res, req);
          const apk = pickApk(
            await apksOf(deps.db, app),
            (req.body ?? {}) as Record<string, unknown>,
          );
          const updated = await makeCurrentAs(deps, req, res, app, apk);
          res.json({ ...(await summary(updated)), current: presentApk(apk) });
        },
      ],
    },
  ];
}
