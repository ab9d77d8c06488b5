/**
 * The web administration's audit log page: filtered, paginated. The use-case is the JSON API's
 * (shared/audit). The webhooks pages are in api/webhooks/web-pages.ts.
 */
import { uiGetAuditContract } from '../web/contracts';
import { listAudit, parseAuditFilter } from '../../shared/audit/list';
import { AppError } from '../../shared/errors';
import type { ApiDeps } from '../deps';
import type { Route } from '../route-table';
import type { Page } from '../web/page-maker';
import { auditPage } from './web-views';
import { sendPage, viewerOfSession, type PageHandler } from '../apps/web-pages';
import { messagePage } from '../web/views';

export function showAudit(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const viewer = await viewerOfSession(deps, res);
    let filter;
    try {
      filter = parseAuditFilter(req.query);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return sendPage(res, 400, messagePage(viewer, 'Refused', err.message));
    }
    const page = await listAudit(deps.db, viewer.account.id, filter);
    const query = new URLSearchParams(req.query as Record<string, string>);
    if (page.next) query.set('before', page.next);
    const older = `/ui/audit?${query.toString()}`;
    sendPage(res, 200, auditPage(viewer, deps.now(), filter, page, older));
  };
}

/** The page's route, made by api/web/routes.ts's page maker. */
export function auditPages(deps: ApiDeps, page: Page): Route[] {
  return [page('get', '/ui/audit', 'read', uiGetAuditContract, showAudit(deps))];
}
