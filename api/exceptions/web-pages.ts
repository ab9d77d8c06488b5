/**
 * The app page's Exceptions tab, one issue (by fingerprint), one report, and its screenshot (web
 * administration). The tab's and the issue's numbers come from the JSON routes' use-cases
 * (stats.ts), so the pages and the API agree.
 */
import {
  groupsPage,
  readWhole,
  reportOfApp,
  type GroupKind,
} from '../../shared/exceptions/owner-queries';
import type { ApiDeps } from '../deps';
import { groupPage } from './group-view';
import { exceptionStats, groupView } from './stats';
import { exceptionsTab, hourlyChart, reportPage } from './web-views';
import { sendPage, viewerAndApp, type PageHandler } from '../apps/web-pages';
import { messagePage } from '../web/views';

const GROUPS_PER_PAGE = 50;
/** A group's fingerprint (shared/exceptions/fingerprint.ts); a report id has a `-<ms>` tail. */
const FINGERPRINT = /^[0-9a-f]{32}$/;

const pageOf = (value: unknown) => Math.max(1, Math.floor(Number(value ?? 1)) || 1);

export function showExceptions(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (!found) return;
    const { viewer, app } = found;
    const kind: GroupKind =
      req.query.kind === 'handled' || req.query.kind === 'unhandled' ? req.query.kind : '';
    const page = pageOf(req.query.page);
    const [{ total, groups }, stats] = await Promise.all([
      groupsPage(deps.db, app, { kind, page, perPage: GROUPS_PER_PAGE }),
      exceptionStats(deps, app, viewer.account.plan.installations),
    ]);
    const pages = Math.max(1, Math.ceil(total / GROUPS_PER_PAGE));
    sendPage(
      res,
      200,
      exceptionsTab(viewer, app, {
        groups,
        chart: hourlyChart(stats.hourly, stats.limit),
        rates: stats.versions,
        nav: { kind, page, pages, total },
        now: deps.now(),
      }),
    );
  };
}

/** `/exceptions/{fingerprint}`: the page; `/exceptions/{report id}`: one report. */
export function showExceptionReport(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const found = await viewerAndApp(deps, req, res);
    if (!found) return;
    const { viewer, app } = found;
    const id = String(req.params.id);
    const now = deps.now();
    if (FINGERPRINT.test(id)) {
      const group = await groupView(deps, app, id, pageOf(req.query.page));
      if (!group) return sendPage(res, 404, messagePage(viewer, 'Not found', 'No such issue.'));
      const latest = await reportOfApp(deps.db, app, group.group.latestReportId);
      return sendPage(res, 200, groupPage(viewer, app, { group, latest, now }));
    }
    const report = await reportOfApp(deps.db, app, id);
    if (!report) return sendPage(res, 404, messagePage(viewer, 'Not found', 'No such report.'));
    const shot = report.screenshotId ? `${req.originalUrl.split('?')[0]}/screenshot` : null;
    sendPage(res, 200, reportPage(viewer, app, { report, screenshotPath: shot, now }));
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
