/**
 * The web administration's audit log (filtered, paginated) and webhooks (endpoints, latest
 * deliveries, redelivery by hand). The use-cases are the JSON API's (shared/audit,
 * shared/webhooks).
 */
import {
  uiGetAuditContract,
  uiGetWebhooksContract,
  uiPostWebhookDeliveriesByDeliveryIdRedeliverContract,
} from '../web/contracts';
import type { RequestHandler } from 'express';
import { listAudit, parseAuditFilter } from '../../shared/audit/list';
import { AppError } from '../../shared/errors';
import { deliveriesOf, redeliver } from '../../shared/webhooks/deliveries';
import { listEndpoints } from '../../shared/webhooks/endpoints';
import { auditContext, emitDeps } from '../audit-context';
import type { ApiDeps } from '../deps';
import type { Route } from '../route-table';
import type { Page } from '../web/page-maker';
import { auditPage, webhooksPage } from './web-views';
import { sendPage, viewerOfSession, type PageHandler } from '../apps/web-pages';
import { messagePage } from '../web/views';

const DELIVERIES_SHOWN = 20;

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
    sendPage(res, 200, auditPage(viewer, filter, page, `/ui/audit?${query.toString()}`));
  };
}

export function showWebhooks(deps: ApiDeps): PageHandler {
  return async (_req, res) => {
    const viewer = await viewerOfSession(deps, res);
    const docs = await listEndpoints(deps.db, viewer.account.id);
    const endpoints = await Promise.all(
      docs.map(async (doc) => ({
        doc,
        deliveries: await deliveriesOf(deps.db, doc._id, DELIVERIES_SHOWN),
      })),
    );
    sendPage(res, 200, webhooksPage(viewer, endpoints));
  };
}

export function redeliverForm(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const viewer = await viewerOfSession(deps, res);
    const ctx = auditContext(req, res);
    try {
      await redeliver(emitDeps(deps), ctx, viewer.account.id, String(req.params.deliveryId));
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      const after = err.details?.retryAfterSeconds;
      if (typeof after === 'number') res.setHeader('Retry-After', String(after));
      return sendPage(res, err.status, messagePage(viewer, 'Refused', err.message));
    }
    res.redirect(303, '/ui/webhooks');
  };
}

/** The pages' routes, made by web.ts's page maker (session, CSRF on the form). */
export function auditPages(deps: ApiDeps, page: Page, form: readonly RequestHandler[]): Route[] {
  return [
    page('get', '/ui/audit', 'read', uiGetAuditContract, showAudit(deps)),
    page('get', '/ui/webhooks', 'read', uiGetWebhooksContract, showWebhooks(deps)),
    page(
      'post',
      '/ui/webhook-deliveries/:deliveryId/redeliver',
      'manage',
      uiPostWebhookDeliveriesByDeliveryIdRedeliverContract,
      ...form,
      redeliverForm(deps),
    ),
  ];
}
