/**
 * The web administration's Installations tab and one installation's page (mounted by
 * api/web/routes.ts through `installationPages`): the JSON API's use-cases
 * (installations-list.ts, installation-detail.ts), rendered by web-views.ts and
 * installation-view.ts. A refused filter is answered 400 with its message.
 */
import { apksOf } from '../../shared/catalog/queries';
import { AppError } from '../../shared/errors';
import type { ApiDeps } from '../deps';
import type { Route } from '../route-table';
import { sendPage, viewerAndApp, type PageHandler } from '../apps/web-pages';
import { page as pageContract, uiGetAppsByPackageInstallationsContract } from '../web/contracts';
import type { Page } from '../web/page-maker';
import { messagePage } from '../web/views';
import { installationDetail } from './installation-detail';
import { installationPage } from './installation-view';
import { listInstallations, listingInput, type ListingInput } from './installations-list';
import { installationsTab } from './web-views';

export const uiGetAppsByPackageInstallationsByDeviceIdContract = pageContract(
  'One installation: its state, history of versions and installs, and crash reports.',
  true,
  [
    { name: 'package', in: 'path', required: true, schema: { type: 'string' } },
    { name: 'deviceId', in: 'path', required: true, schema: { type: 'string' } },
  ],
);

export function showInstallations(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (!found) return;
    const { viewer, app } = found;
    let input: ListingInput;
    try {
      input = listingInput(req.query);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return sendPage(res, 400, messagePage(viewer, 'Not listed', err.message));
    }
    const [page, apks] = await Promise.all([
      listInstallations(deps, app, input),
      apksOf(deps.db, app),
    ]);
    sendPage(res, 200, installationsTab(viewer, app, { page, input, apks, now: deps.now() }));
  };
}

export function showInstallation(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (!found) return;
    const { viewer, app } = found;
    const [detail, apks] = await Promise.all([
      installationDetail(deps, app, String(req.params.deviceId)),
      apksOf(deps.db, app),
    ]);
    if (!detail)
      return sendPage(res, 404, messagePage(viewer, 'Not found', 'No such installation.'));
    sendPage(res, 200, installationPage(viewer, app, { detail, apks, now: deps.now() }));
  };
}

export function installationPages(deps: ApiDeps, page: Page): Route[] {
  return [
    page(
      'get',
      '/ui/apps/:package/installations',
      'read',
      uiGetAppsByPackageInstallationsContract,
      showInstallations(deps),
    ),
    page(
      'get',
      '/ui/apps/:package/installations/:deviceId',
      'read',
      uiGetAppsByPackageInstallationsByDeviceIdContract,
      showInstallation(deps),
    ),
  ];
}
