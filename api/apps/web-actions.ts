/**
 * The web forms that change an app: make an APK current (once its box is ticked: refused on the
 * APKs tab otherwise), create a download link, enable or disable an installation. Each one asks
 * the same use-case as the JSON API.
 */
import { insertDownloadLink, linkToken } from '../../shared/catalog/download-links';
import { pickApk } from '../../shared/catalog/pick-apk';
import { apksOf } from '../../shared/catalog/queries';
import { AppError } from '../../shared/errors';
import { audit, linkChange, statusChange } from '../audit-context';
import type { ApiDeps } from '../deps';
import { makeCurrentAs } from '../rollouts/rollout-view';
import { changeInstallationStatus } from '../../shared/devices/store';
import { linkPage } from './web-views';
import { apksPage, sendPage, viewerAndApp, type PageHandler } from './web-pages';
import { messagePage } from '../web/views';

const LINK_TTL_SECONDS = 7 * 24 * 3600;

const sha256Of = (body: unknown) => ({ sha256: (body as { sha256?: unknown }).sha256 });

export function changeStatus(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (!found) return;
    const { viewer, app } = found;
    const status = (req.body as { status?: unknown }).status;
    if (status !== 'enabled' && status !== 'disabled') {
      return sendPage(res, 400, messagePage(viewer, 'Refused', 'Choose enabled or disabled.'));
    }
    const deviceId = String(req.params.deviceId);
    try {
      await changeInstallationStatus(deps, viewer.account, app.package, deviceId, status);
      await audit(deps, req, res, statusChange(app, deviceId, status));
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return sendPage(res, err.status, messagePage(viewer, 'Refused', err.message));
    }
    res.redirect(303, `/ui/apps/${encodeURIComponent(app.package)}/installations`);
  };
}

export function makeCurrent(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (!found) return;
    const { app } = found;
    if ((req.body as { confirm?: unknown }).confirm !== 'yes') {
      const problem = 'Tick the box to confirm first: the current APK was not changed.';
      return sendPage(res, 400, await apksPage(deps, found, problem));
    }
    const apk = pickApk(await apksOf(deps.db, app), sha256Of(req.body));
    await makeCurrentAs(deps, req, res, app, apk);
    res.redirect(303, `/ui/apps/${encodeURIComponent(app.package)}`);
  };
}

export function createLink(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (!found) return;
    const { viewer, app } = found;
    const apk = pickApk(await apksOf(deps.db, app), sha256Of(req.body));
    const link = await insertDownloadLink(deps, app, apk, LINK_TTL_SECONDS, null);
    await audit(deps, req, res, linkChange('download-link.created', link, apk));
    const token = linkToken(deps.keys, link._id);
    sendPage(
      res,
      201,
      linkPage(viewer, app, {
        url: `${deps.publicUrls.web}/d/${token}`,
        // Same-origin path (the admin host serves /d/ too), so the CSP needs no other origin.
        qrPath: `/d/${token}/qr.svg`,
        expiresAt: link.expiresAt,
        versionName: apk.versionName ?? String(apk.versionCode),
        now: deps.now(),
      }),
    );
  };
}
