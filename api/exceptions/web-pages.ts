/** The app page's Exceptions tab, one report, and its screenshot (web administration). */
import { groupsPage, readWhole, reportOfApp } from '../../shared/exceptions/owner-queries';
import type { ApiDeps } from '../deps';
import { exceptionLimit } from './intake';
import { exceptionsTab, hourlyChart, reportPage } from './web-views';
import { sendPage, viewerAndApp, type PageHandler } from '../apps/web-pages';
import { messagePage } from '../web/views';

const GROUPS_PER_PAGE = 50;

export function showExceptions(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (!found) return;
    const { viewer, app } = found;
    const kind =
      req.query.kind === 'handled' || req.query.kind === 'unhandled' ? req.query.kind : '';
    const page = Math.max(1, Math.floor(Number(req.query.page ?? 1)) || 1);
    const { total, groups, hourly } = await groupsPage(deps.db, app, {
      kind,
      page,
      perPage: GROUPS_PER_PAGE,
      nowMs: deps.now().getTime(),
    });
    const chart = hourlyChart(hourly, exceptionLimit(viewer.account.plan.installations));
    const pages = Math.max(1, Math.ceil(total / GROUPS_PER_PAGE));
    sendPage(res, 200, exceptionsTab(viewer, app, groups, chart, { kind, page, pages, total }));
  };
}

export function showExceptionReport(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (!found) return;
    const { viewer, app } = found;
    const report = await reportOfApp(deps.db, app, String(req.params.id));
    if (!report) return sendPage(res, 404, messagePage(viewer, 'Not found', 'No such report.'));
    const shot = report.screenshotId ? `${req.originalUrl.split('?')[0]}/screenshot` : null;
    sendPage(res, 200, reportPage(viewer, app, report, shot));
  };
}

export function showScreenshot(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (!found) return;
    const { viewer, app } = found;
    const report = await reportOfApp(deps.db, app, String(req.params.id));
    const { screenshots } = deps.exceptions;
    const file = report?.screenshotId ? await screenshots.open(report.screenshotId) : null;
    if (!file) return sendPage(res, 404, messagePage(viewer, 'Not found', 'No screenshot.'));
    const bytes = await readWhole(file.stream);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.status(200).type('image/jpeg').send(bytes);
  };
}
