/**
 * Handlers of the web administration's signed-in pages (mounted by api/web/routes.ts): the apps
 * list, an app's APKs tab, the API key. Each one takes the session's viewer, asks a use-case, and
 * renders a view. The Installations tab is in api/devices/web-pages.ts, the Exceptions tab in
 * api/exceptions/web-pages.ts, the forms that change an app in web-actions.ts, the upload form in
 * api/uploads/web-page.ts.
 */
import type { Request, Response } from 'express';
import { adoptionSeries } from '../../shared/adoption/samples';
import { apksOf, findApp } from '../../shared/catalog/queries';
import { funnelCountsByApk } from '../../shared/funnel/marks';
import { transfersByApk } from '../../shared/funnel/transfers';
import type { AppDoc } from '../../shared/catalog/types';
import { audit } from '../audit-context';
import type { ApiDeps } from '../deps';
import { exceptionLimit } from '../exceptions/intake';
import { apksTab } from './web-views';
import { appOverview } from './overview';
import { currentSession } from '../web/sessions';
import { appsPage, messagePage, type Viewer } from '../web/views';

/** How far back the app page's adoption chart goes. */
const ADOPTION_SHOWN_MS = 7 * 24 * 60 * 60 * 1000;

export type PageHandler = (req: Request, res: Response) => Promise<void>;

export function sendPage(res: Response, status: number, body: string): void {
  res.status(status).type('text/html; charset=utf-8').send(body);
}

/**
 * The signed-in viewer of a page: the session's account, user, CSRF token and, for owners only,
 * the account's API key (it can do everything, the owner's switches included: docs/teams.md).
 */
export async function viewerOfSession(deps: ApiDeps, res: Response): Promise<Viewer> {
  const { account, csrf, user } = currentSession(res);
  const apiKey = user.role === 'owner' ? await deps.accounts.revealApiKey(account.id) : null;
  return { account, user, csrf, apiKey };
}

/** The viewer's app named by the path; another account's (or no) app answers 404 (null). */
export async function ownApp(
  deps: ApiDeps,
  req: Request,
  res: Response,
  viewer: Viewer,
): Promise<AppDoc | null> {
  const app = await findApp(deps.db, viewer.account.id, String(req.params.package));
  if (!app) sendPage(res, 404, messagePage(viewer, 'Not found', 'No such app.'));
  return app;
}

/** The viewer and the app named by the path; null when the 404 is sent. */
export async function viewerAndApp(deps: ApiDeps, req: Request, res: Response) {
  const viewer = await viewerOfSession(deps, res);
  const app = await ownApp(deps, req, res, viewer);
  return app ? { viewer, app } : null;
}

export function showApps(deps: ApiDeps): PageHandler {
  return async (_req, res) => {
    const viewer = await viewerOfSession(deps, res);
    const rows = (await appOverview(deps, viewer.account.id)).map(({ app, current, fleet }) => ({
      package: app.package,
      currentVersion: current ? `${current.versionName ?? ''} (${current.versionCode})` : null,
      fleet,
    }));
    sendPage(res, 200, appsPage(viewer, rows, exceptionLimit(viewer.account.plan.installations)));
  };
}

/** The APKs tab, with a refused form's problem when there is one. */
export async function apksPage(
  deps: ApiDeps,
  found: { viewer: Viewer; app: AppDoc },
  problem: string | null = null,
): Promise<string> {
  const { viewer, app } = found;
  const now = deps.now();
  const [apks, funnels, transfers, adoption] = await Promise.all([
    apksOf(deps.db, app),
    funnelCountsByApk(deps.db, app),
    transfersByApk(deps.db, app),
    adoptionSeries(deps, app, new Date(now.getTime() - ADOPTION_SHOWN_MS), now),
  ]);
  return apksTab(viewer, app, apks, { funnels, transfers, adoption, problem, now });
}

export function showApks(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (found) sendPage(res, 200, await apksPage(deps, found));
  };
}

export function regenerateKey(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const viewer = await viewerOfSession(deps, res);
    if ((req.body as { confirm?: unknown }).confirm !== 'yes') {
      return sendPage(res, 400, messagePage(viewer, 'Not regenerated', 'Confirm first.'));
    }
    const accountId = viewer.account.id;
    await deps.accounts.regenerateApiKey(accountId);
    await audit(deps, req, res, {
      accountId,
      action: 'account-key.regenerated',
      resource: { kind: 'account-key', id: accountId },
    });
    res.redirect(303, '/ui/apps');
  };
}
