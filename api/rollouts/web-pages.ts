/**
 * The Rollouts tab's handlers (mounted by api/web/routes.ts): show the app's rollout, start one,
 * act on it. Each asks the JSON API's use-cases (shared/rollouts/actions.ts, rollout-view.ts,
 * shared/funnel/report.ts); a refusal (a wrong field, a state that does not allow the action, an
 * unticked confirmation) is shown on the tab, with its status and the start form's fields kept.
 */
import type { Request } from 'express';
import type { AppDoc } from '../../shared/catalog/types';
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
import { needsConfirmation, rolloutsTab, type RolloutProblem } from './web-views';
import { messagePage, type Viewer } from '../web/views';

/** Installations shown per page of the funnel. */
const FUNNEL_PAGE = 50;

const tabPath = (pkg: string) => `/ui/apps/${encodeURIComponent(pkg)}/rollouts`;

interface Refusal {
  readonly status: number;
  readonly message: string;
}

/** Runs a change; a refusal (4xx) is returned to be shown, anything else is thrown. */
async function refusalOf(change: () => Promise<unknown>): Promise<Refusal | null> {
  try {
    await change();
    return null;
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    return { status: err.status, message: err.message };
  }
}

/** An action to confirm sent without its box ticked. */
const UNCONFIRMED: Refusal = {
  status: 400,
  message: 'Tick the box to confirm first: nothing was done.',
};

/** The tab as the request asks it, with a refused form's problem when there is one. */
async function renderTab(
  deps: ApiDeps,
  req: Request,
  found: { viewer: Viewer; app: AppDoc },
  problem: RolloutProblem | null = null,
): Promise<string> {
  const { viewer, app } = found;
  const after = typeof req.query.after === 'string' && req.query.after ? req.query.after : null;
  const [doc, apks] = await Promise.all([findRollout(deps.db, app), apksOf(deps.db, app)]);
  const rollout = doc ? await rolloutView(deps, app, doc) : null;
  const funnel = rollout?.apk
    ? await apkFunnel(deps.db, app, rollout.apk.md5, { after, limit: FUNNEL_PAGE })
    : null;
  const percent = req.query.preview === undefined ? null : previewPercent(req.query.preview);
  const preview = percent === null ? null : await appPreview(deps, app, percent);
  const page = { rollout, funnel, apks, preview, now: deps.now(), problem };
  return rolloutsTab(viewer, app, page);
}

export function showRollouts(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (found) sendPage(res, 200, await renderTab(deps, req, found));
  };
}

/** The start form's fields as sent, to show them again with a refusal. */
function sentFields(body: Record<string, unknown>): Record<string, string> {
  const names = ['sha256', 'stages', 'metadataKey', 'metadataValues', 'deviceIds'];
  return Object.fromEntries(
    names.map((n) => [n, typeof body[n] === 'string' ? body[n] : ''] as const),
  );
}

export function startRolloutPage(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (!found) return;
    const { app } = found;
    const sent = (req.body ?? {}) as Record<string, unknown>;
    const body = rolloutFormBody(sent);
    const refused = await refusalOf(async () => {
      const apk = pickApk(await apksOf(deps.db, app), { sha256: body.sha256 });
      await startRollout(rolloutDeps(deps, auditContext(req, res)), app, apk, body, deps.now());
    });
    if (refused === null) return res.redirect(303, tabPath(app.package));
    const problem = { message: refused.message, form: 'start' as const, fields: sentFields(sent) };
    sendPage(res, refused.status, await renderTab(deps, req, found, problem));
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
    const confirmed = (req.body as { confirm?: unknown } | undefined)?.confirm === 'yes';
    const refused =
      needsConfirmation(action) && !confirmed
        ? UNCONFIRMED
        : await refusalOf(() =>
            actOnRollout(rolloutDeps(deps, auditContext(req, res)), app, action, deps.now()),
          );
    if (refused === null) return res.redirect(303, tabPath(app.package));
    const problem = { message: refused.message, form: action };
    sendPage(res, refused.status, await renderTab(deps, req, found, problem));
  };
}
