/**
 * The web administration's webhooks pages (docs/webhooks.md): the endpoints list and the form
 * adding one, an endpoint's page with the form changing it, its test button and its delivery log,
 * and redelivery by hand. The use-cases are the JSON API's (shared/webhooks), audited the same
 * way; a refusal is shown on the page with the input kept.
 */
import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../../shared/errors';
import { deliveriesOf, redeliver, type EmitDeps } from '../../shared/webhooks/deliveries';
import type { AuditContext } from '../../shared/audit/types';
import {
  createEndpoint,
  endpointOf,
  listEndpoints,
  updateEndpoint,
} from '../../shared/webhooks/endpoints';
import { sendTestDelivery } from '../../shared/webhooks/test-delivery';
import { WEBHOOK_EVENTS, type EndpointDoc } from '../../shared/webhooks/types';
import { auditContext, emitDeps } from '../audit-context';
import type { ApiDeps } from '../deps';
import type { Route } from '../route-table';
import { uiPostWebhookDeliveriesByDeliveryIdRedeliverContract } from '../web/contracts';
import { uiGetWebhooksContract } from '../web/contracts';
import type { Page } from '../web/page-maker';
import { messagePage, type Viewer } from '../web/views';
import { sendPage, viewerOfSession, type PageHandler } from '../apps/web-pages';
import {
  uiGetWebhooksByIdContract,
  uiPostWebhooksByIdContract,
  uiPostWebhooksByIdTestContract,
  uiPostWebhooksContract,
} from './web-contracts';
import { endpointPage, webhooksPage, type EndpointInput } from './web-views';

const DELIVERIES_SHOWN = 50;
const EMPTY: EndpointInput = { url: '', events: [], enabled: true };

/** The form as sent: the URL, the checked events (one `event:<type>` field each), enabled. */
function inputOf(req: Request): EndpointInput {
  const body = (req.body ?? {}) as Record<string, string | undefined>;
  return {
    url: body.url ?? '',
    events: WEBHOOK_EVENTS.filter((e) => body[`event:${e}`] !== undefined),
    enabled: body.enabled !== undefined,
  };
}

const inputOfDoc = (doc: EndpointDoc): EndpointInput => ({
  url: doc.url,
  events: doc.events,
  enabled: doc.enabled,
});

/** A refusal a person can correct (4xx), or rethrown. */
function refusal(err: unknown): AppError {
  if (!(err instanceof AppError) || err.status >= 500) throw err;
  return err;
}

async function listPage(deps: ApiDeps, viewer: Viewer) {
  const docs = await listEndpoints(deps.db, viewer.account.id);
  return Promise.all(
    docs.map(async (doc) => ({
      doc,
      latest: (await deliveriesOf(deps.db, doc._id, 1))[0] ?? null,
    })),
  );
}

export function showWebhooks(deps: ApiDeps): PageHandler {
  return async (_req, res) => {
    const viewer = await viewerOfSession(deps, res);
    const endpoints = await listPage(deps, viewer);
    sendPage(res, 200, webhooksPage(viewer, deps.now(), endpoints, EMPTY));
  };
}

export function addWebhook(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const viewer = await viewerOfSession(deps, res);
    const input = inputOf(req);
    try {
      const body = { url: input.url, events: input.events };
      const { doc, secret } = await createEndpoint(
        deps,
        auditContext(req, res),
        viewer.account.id,
        body,
      );
      const endpoints = await listPage(deps, viewer);
      const created = { url: doc.url, secret };
      sendPage(res, 201, webhooksPage(viewer, deps.now(), endpoints, EMPTY, created));
    } catch (err) {
      const problem = refusal(err).message;
      const endpoints = await listPage(deps, viewer);
      sendPage(res, 400, webhooksPage(viewer, deps.now(), endpoints, { ...input, problem }));
    }
  };
}

/** The endpoint named by the path, or its 404 page sent (null). */
async function ownEndpoint(deps: ApiDeps, req: Request, res: Response, viewer: Viewer) {
  try {
    return await endpointOf(deps.db, viewer.account.id, String(req.params.id));
  } catch (err) {
    sendPage(res, 404, messagePage(viewer, 'Not found', refusal(err).message));
    return null;
  }
}

async function sendEndpointPage(
  deps: ApiDeps,
  res: Response,
  at: { viewer: Viewer; doc: EndpointDoc; status: number; input: EndpointInput },
) {
  const deliveries = await deliveriesOf(deps.db, at.doc._id, DELIVERIES_SHOWN);
  const body = endpointPage(at.viewer, deps.now(), at.doc, deliveries, at.input);
  sendPage(res, at.status, body);
}

export function showWebhook(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const viewer = await viewerOfSession(deps, res);
    const doc = await ownEndpoint(deps, req, res, viewer);
    if (doc)
      await sendEndpointPage(deps, res, { viewer, doc, status: 200, input: inputOfDoc(doc) });
  };
}

export function changeWebhook(deps: ApiDeps): PageHandler {
  return async (req, res) => {
    const viewer = await viewerOfSession(deps, res);
    const doc = await ownEndpoint(deps, req, res, viewer);
    if (!doc) return;
    const input = inputOf(req);
    try {
      await updateEndpoint(deps, auditContext(req, res), viewer.account.id, doc._id.toHexString(), {
        url: input.url,
        events: input.events,
        // Only a change is sent: saving a disabled-after-failing endpoint unchanged keeps it so.
        ...(input.enabled !== doc.enabled ? { enabled: input.enabled } : {}),
      });
    } catch (err) {
      const problem = refusal(err).message;
      return sendEndpointPage(deps, res, {
        viewer,
        doc,
        status: 400,
        input: { ...input, problem },
      });
    }
    res.redirect(303, `/ui/webhooks/${doc._id.toHexString()}`);
  };
}

/** A use-case sending a delivery by hand: a redelivery, or a test. */
type ByHand = (
  deps: EmitDeps,
  ctx: AuditContext,
  accountId: string,
  id: string,
) => Promise<{ endpointId: { toHexString(): string } }>;

/** Sends a delivery by hand (`param`: the path's id); a refusal (limit, not found) is its page. */
function byHand(deps: ApiDeps, send: ByHand, param: string): PageHandler {
  return async (req, res) => {
    const viewer = await viewerOfSession(deps, res);
    let endpointId: string;
    try {
      const ctx = auditContext(req, res);
      const id = String(req.params[param]);
      endpointId = (
        await send(emitDeps(deps), ctx, viewer.account.id, id)
      ).endpointId.toHexString();
    } catch (err) {
      const refused = refusal(err);
      const after = refused.details?.retryAfterSeconds;
      if (typeof after === 'number') res.setHeader('Retry-After', String(after));
      return sendPage(res, refused.status, messagePage(viewer, 'Refused', refused.message));
    }
    res.redirect(303, `/ui/webhooks/${endpointId}`);
  };
}

/** The pages' routes, made by api/web/routes.ts's page maker (session; CSRF on the forms). */
export function webhookPages(deps: ApiDeps, page: Page, form: readonly RequestHandler[]): Route[] {
  return [
    page('get', '/ui/webhooks', 'read', uiGetWebhooksContract, showWebhooks(deps)),
    page('post', '/ui/webhooks', 'manage', uiPostWebhooksContract, ...form, addWebhook(deps)),
    page('get', '/ui/webhooks/:id', 'read', uiGetWebhooksByIdContract, showWebhook(deps)),
    page(
      'post',
      '/ui/webhooks/:id',
      'manage',
      uiPostWebhooksByIdContract,
      ...form,
      changeWebhook(deps),
    ),
    page(
      'post',
      '/ui/webhooks/:id/test',
      'manage',
      uiPostWebhooksByIdTestContract,
      ...form,
      byHand(deps, sendTestDelivery, 'id'),
    ),
    page(
      'post',
      '/ui/webhook-deliveries/:deliveryId/redeliver',
      'manage',
      uiPostWebhookDeliveriesByDeliveryIdRedeliverContract,
      ...form,
      byHand(deps, redeliver, 'deliveryId'),
    ),
  ];
}
