/** Handlers of the web administration's signed-in pages (mounted by api/routes/web.ts). */
import type { Request, Response } from 'express';
import { setCurrentApk } from '../../shared/catalog/current-apk';
import { catalog } from '../../shared/catalog/collections';
import { linkToken } from '../../shared/catalog/download-links';
import { apksOf, appsOf, currentApkOf, findApp } from '../../shared/catalog/queries';
import type { AppDoc } from '../../shared/catalog/types';
import { changeInstallationStatus, countEnabled, countOnline } from '../../shared/devices/store';
import { AppError } from '../../shared/errors';
import { exceptionCollections } from '../../shared/exceptions/collections';
import { gridFsScreenshots } from '../../shared/exceptions/screenshots';
import { queueNoticeSink } from '../../shared/queues/notice-sink';
import { versionNoticeQueue } from '../../shared/queues/version-notice';
import type { ApiDeps } from '../deps';
import { exceptionLimit } from '../exceptions/intake';
import { pickApk } from '../routes/apps';
import { insertDownloadLink } from '../routes/download-links';
import { listInstallations } from '../routes/installations-list';
import { receiveUpload, uploadProgressBounds } from '../upload/receive-upload';
import { apksTab, installationsTab, linkPage } from './app-views';
import { exceptionsTab, hourlyChart, reportPage } from './exception-views';
import { currentSession, sameToken } from './sessions';
import { appsPage, messagePage, type Viewer } from './views';

const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;
const GROUPS_PER_PAGE = 50;
const LINK_TTL_SECONDS = 7 * 24 * 3600;

export function sendPage(res: Response, status: number, body: string): void {
  res.status(status).type('text/html; charset=utf-8').send(body);
}

/** The signed-in viewer of a page: the session's account, CSRF token and API key. */
export async function viewerOfSession(deps: ApiDeps, res: Response): Promise<Viewer> {
  const { account, csrf } = currentSession(res);
  return { account, csrf, apiKey: await deps.accounts.revealApiKey(account.id) };
}

export function webPages(deps: ApiDeps) {
  const notices = queueNoticeSink(deps.producers.get(versionNoticeQueue.name));
  const { groups, reports } = exceptionCollections(deps.db);
  const screenshots = gridFsScreenshots(deps.db);

  const viewerOf = (res: Response) => viewerOfSession(deps, res);

  /** The viewer's app named by the path; another account's (or no) app answers 404. */
  async function ownApp(req: Request, res: Response, viewer: Viewer): Promise<AppDoc | null> {
    const app = await findApp(deps.db, viewer.account.id, String(req.params.package));
    if (!app) sendPage(res, 404, messagePage(viewer, 'Not found', 'No such app.'));
    return app;
  }

  const reportOf = (app: AppDoc, req: Request) =>
    reports.findOne({
      _id: String(req.params.id),
      accountId: app.accountId,
      appId: app._id.toHexString(),
    });

  const since = () => new Date(deps.now().getTime() - DAY_MS);

  return {
    apps: async (_req: Request, res: Response): Promise<void> => {
      const viewer = await viewerOf(res);
      const apps = await appsOf(deps.db, viewer.account.id);
      const onlineSince = new Date(deps.now().getTime() - 3 * deps.limits.heartbeatSeconds * 1000);
      const rows = await Promise.all(
        apps.map(async (app) => {
          const scope = { accountId: app.accountId, package: app.package };
          const [current, online, enabled, exceptions24h] = await Promise.all([
            currentApkOf(deps.db, app),
            countOnline(deps, scope, onlineSince),
            countEnabled(deps, scope),
            reports.countDocuments({
              accountId: app.accountId,
              appId: app._id.toHexString(),
              receivedAt: { $gte: since() },
            }),
          ]);
          return {
            package: app.package,
            currentVersion: current
              ? `${current.versionName ?? ''} (${current.versionCode})`
              : null,
            online,
            enabled,
            exceptions24h,
          };
        }),
      );
      sendPage(res, 200, appsPage(viewer, rows, exceptionLimit(viewer.account.plan.installations)));
    },

    apks: async (req: Request, res: Response): Promise<void> => {
      const viewer = await viewerOf(res);
      const app = await ownApp(req, res, viewer);
      if (app) sendPage(res, 200, apksTab(viewer, app, await apksOf(deps.db, app)));
    },

    installations: async (req: Request, res: Response): Promise<void> => {
      const viewer = await viewerOf(res);
      const app = await ownApp(req, res, viewer);
      if (!app) return;
      const status = typeof req.query.status === 'string' ? req.query.status : '';
      const q = typeof req.query.q === 'string' ? req.query.q : '';
      const [page, apks] = await Promise.all([
        listInstallations(deps, app, req),
        apksOf(deps.db, app),
      ]);
      sendPage(res, 200, installationsTab(viewer, app, page, { status, q }, apks));
    },

    exceptions: async (req: Request, res: Response): Promise<void> => {
      const viewer = await viewerOf(res);
      const app = await ownApp(req, res, viewer);
      if (!app) return;
      const scope = { accountId: app.accountId, appId: app._id.toHexString() };
      const now = deps.now().getTime();
      const hours = Array.from({ length: 24 }, (_, i) => now - (24 - i) * HOUR_MS);
      const kind =
        req.query.kind === 'handled' || req.query.kind === 'unhandled' ? req.query.kind : '';
      const filter = {
        ...scope,
        ...(kind === 'handled' ? { handledCount: { $gt: 0 } } : {}),
        ...(kind === 'unhandled' ? { unhandledCount: { $gt: 0 } } : {}),
      };
      const page = Math.max(1, Math.floor(Number(req.query.page ?? 1)) || 1);
      const [total, list, ...counts] = await Promise.all([
        groups.countDocuments(filter),
        groups
          .find(filter)
          .sort({ lastSeen: -1, _id: 1 })
          .skip((page - 1) * GROUPS_PER_PAGE)
          .limit(GROUPS_PER_PAGE)
          .toArray(),
        ...hours.map((from) =>
          reports.countDocuments({
            ...scope,
            receivedAt: { $gte: new Date(from), $lt: new Date(from + HOUR_MS) },
          }),
        ),
      ]);
      const chart = hourlyChart(counts, exceptionLimit(viewer.account.plan.installations));
      const pages = Math.max(1, Math.ceil(total / GROUPS_PER_PAGE));
      sendPage(res, 200, exceptionsTab(viewer, app, list, chart, { kind, page, pages, total }));
    },

    report: async (req: Request, res: Response): Promise<void> => {
      const viewer = await viewerOf(res);
      const app = await ownApp(req, res, viewer);
      if (!app) return;
      const report = await reportOf(app, req);
      if (!report) return sendPage(res, 404, messagePage(viewer, 'Not found', 'No such report.'));
      const shot = report.screenshotId ? `${req.originalUrl.split('?')[0]}/screenshot` : null;
      sendPage(res, 200, reportPage(viewer, app, report, shot));
    },

    screenshot: async (req: Request, res: Response): Promise<void> => {
      const viewer = await viewerOf(res);
      const app = await ownApp(req, res, viewer);
      if (!app) return;
      const report = await reportOf(app, req);
      const file = report?.screenshotId ? await screenshots.open(report.screenshotId) : null;
      if (!file) return sendPage(res, 404, messagePage(viewer, 'Not found', 'No screenshot.'));
      const chunks: Buffer[] = [];
      for await (const chunk of file.stream) chunks.push(chunk as Buffer);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.status(200).type('image/jpeg').send(Buffer.concat(chunks));
    },

    setStatus: async (req: Request, res: Response): Promise<void> => {
      const viewer = await viewerOf(res);
      const app = await ownApp(req, res, viewer);
      if (!app) return;
      const status = (req.body as { status?: unknown }).status;
      if (status !== 'enabled' && status !== 'disabled') {
        return sendPage(res, 400, messagePage(viewer, 'Refused', 'Choose enabled or disabled.'));
      }
      const deviceId = String(req.params.deviceId);
      try {
        await changeInstallationStatus(deps, viewer.account, app.package, deviceId, status);
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        return sendPage(res, err.status, messagePage(viewer, 'Refused', err.message));
      }
      res.redirect(303, `/ui/apps/${encodeURIComponent(app.package)}/installations`);
    },

    regenerateKey: async (req: Request, res: Response): Promise<void> => {
      const viewer = await viewerOf(res);
      if ((req.body as { confirm?: unknown }).confirm !== 'yes') {
        return sendPage(res, 400, messagePage(viewer, 'Not regenerated', 'Confirm first.'));
      }
      await deps.accounts.regenerateApiKey(viewer.account.id);
      res.redirect(303, '/ui/apps');
    },

    makeCurrent: async (req: Request, res: Response): Promise<void> => {
      const viewer = await viewerOf(res);
      const app = await ownApp(req, res, viewer);
      if (!app) return;
      const apk = pickApk(await apksOf(deps.db, app), {
        sha256: (req.body as { sha256?: unknown }).sha256,
      });
      await setCurrentApk(deps.db, notices, apk, deps.now());
      res.redirect(303, `/ui/apps/${encodeURIComponent(app.package)}`);
    },

    createLink: async (req: Request, res: Response): Promise<void> => {
      const viewer = await viewerOf(res);
      const app = await ownApp(req, res, viewer);
      if (!app) return;
      const apk = pickApk(await apksOf(deps.db, app), {
        sha256: (req.body as { sha256?: unknown }).sha256,
      });
      const link = await insertDownloadLink(deps, app, apk, LINK_TTL_SECONDS, null);
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
        }),
      );
    },

    /** Upload form of the apps list (any package) or of an app page (that package only). */
    upload: async (req: Request, res: Response): Promise<void> => {
      const viewer = await viewerOf(res);
      const expectedPackage = req.params.package ? String(req.params.package) : null;
      const received = await receiveUpload(req, deps.blobs, {
        maxApkBytes: deps.limits.maxApkBytes,
        progress: uploadProgressBounds(deps.limits.uploads),
      });
      if (!received.ok) {
        sendPage(
          res,
          received.reason === 'too-large' ? 413 : received.reason === 'too-slow' ? 408 : 400,
          messagePage(viewer, 'Upload refused', received.detail),
        );
        return;
      }
      const { file, fields } = received;
      if (!sameToken(fields.get('_csrf'), viewer.csrf) || !file) {
        if (file) await deps.blobs.delete(file.uploadId);
        const status = file ? 403 : 400;
        sendPage(
          res,
          status,
          messagePage(
            viewer,
            'Upload refused',
            file ? 'Missing or wrong CSRF token.' : 'Choose an APK file.',
          ),
        );
        return;
      }
      const uploadId = await deps.ingest.submit(viewer.account.id, file, {
        current: fields.get('current') === 'true',
        whatsnew: fields.get('whatsnew') || null,
        expectedPackage,
      });
      const verdict = await deps.ingest.waitForVerdict(uploadId, deps.limits.uploadWaitTimeoutMs);
      if (!verdict) {
        sendPage(
          res,
          202,
          messagePage(viewer, 'Upload queued', 'Still processing; reload the app page shortly.'),
        );
      } else if (verdict.status === 'rejected') {
        sendPage(res, 422, messagePage(viewer, 'Upload refused', verdict.message));
      } else {
        const apk = await catalog(deps.db).apks.findOne({ uploadId, accountId: viewer.account.id });
        res.redirect(303, apk ? `/ui/apps/${encodeURIComponent(apk.package)}` : '/ui/apps');
      }
    },
  };
}
