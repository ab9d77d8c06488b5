/**
 * The Rollouts tab's handlers (mounted by api/web/routes.ts): show the app's rollout, start one,
 * act on it. Each asks the JSON API's use-cases (shared/rollouts/actions.ts, rollout-view.ts,
 * shared/funnel/report.ts); a refusal (a wrong field, a state that does not allow the action) is
 * shown as a page with its status.
 */
import type { Response } from 'express';
import { pickApk } from '../../shared/catalog/pick-apk';
import { apksOf } from '../../shared/catalog/queries';
import { AppError } from '../../shared/errors';
import { apkFunnel } from '../../shared/funnel/report';
import { actOnRollout, startRollout } from '../../shared/rollouts/actions';
import { isRolloutAction } from '../../shared/rollouts/rollout';
import { findRollout } from '../../shared/rollouts/store';
import { auditContext } from '../audit-context';
import type { ApiDeps } from '../deps';
import { rolloutDeps, rolloutView } from './rollout-view';
import { sendPage, viewerAndApp, type PageHandler } from '../apps/web-pages';
import { rolloutFormBody } from './web-form';
import { previewPercent } from '../../shared/rollouts/preview';
import { appPreview } from './rollout-view';
import { rolloutsTab } from './web-views';
import { messagePage, type Viewer } from '../web/views';

/** Installations shown per page of the funnel. */
const FUNNEL_PAGE = 50;

const tabPath = (pkg: string) => `/ui/apps/${encodeURIComponent(pkg)}/rollouts`;

/** Runs a change; a refusal (4xx) becomes a page with its status, anything else is thrown. */
async function refusalsAsPages(
  res: Response,
  viewer: Viewer,
  change: () => Promise<unknown>,
): Promise<boolean> {
  try {
    await change();
    return true;
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    sendPage(res, err.status, messagePage(viewer, 'Refused', err.message));
    return false;
  }
}

export function showRollouts(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (!found) return;
    const { viewer, app } = found;
    const after = typeof req.query.after === 'string' && req.query.after ? req.query.after : null;
    const [doc, apks] = await Promise.all([findRollout(deps.db, app), apksOf(deps.db, app)]);
    const rollout = doc ? await rolloutView(deps, app, doc) : null;
    const funnel = rollout?.apk
      ? await apkFunnel(deps.db, app, rollout.apk.md5, { after, limit: FUNNEL_PAGE })
      : null;
    const percent = req.query.preview === undefined ? null : previewPercent(req.query.preview);
    const preview = percent === null ? null : await appPreview(deps, app, percent);
    sendPage(res, 200, rolloutsTab(viewer, app, { rollout, funnel, apks, preview }));
  };
}

export function startRolloutPage(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (!found) return;
    const { viewer, app } = found;
    const body = rolloutFormBody((req.body ?? {}) as Record<string, unknown>);
    const started = await refusalsAsPages(res, viewer, async () => {
      const apk = pickApk(await apksOf(deps.db, app), { sha256: body.sha256 });
      await startRollout(rolloutDeps(deps, auditContext(req, res)), app, apk, body, deps.now());
    });
    if (started) res.redirect(303, tabPath(app.package));
  };
}

export function actOnRolloutPage(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (!found) return;
    const { viewer, app } = found;
    const action = String(req.params.action);
    if (!isRolloutAction(action)) {
      return sendPage(res, 404, messagePage(viewer, 'Not found', 'No such rollout action.'));
    }
    const done = await refusalsAsPages(res, viewer, () =>
      actOnRollout(rolloutDeps(deps, auditContext(req, res)), app, action, deps.now()),
    );
    if (done) res.redirect(303, tabPath(app.package));
  };
}
