/**
 * JSON API of webhooks (docs/webhooks.md): an account's endpoints (the secret is in the creation
 * reply only), their delivery log, and redelivery by hand. The use-cases are shared/webhooks/.
 */
import type { Request, Response } from 'express';
import { deliveriesOf, presentDelivery, redeliver } from '../../shared/webhooks/deliveries';
import {
  createEndpoint,
  deleteEndpoint,
  endpointOf,
  listEndpoints,
  presentEndpoint,
  updateEndpoint,
} from '../../shared/webhooks/endpoints';
import { auditContext, emitDeps } from '../audit-context';
import { currentAccount } from '../auth';
import type { ApiDeps } from '../deps';
import {
  changeWebhookContract,
  createWebhookContract,
  listWebhooksContract,
  redeliverContract,
  removeWebhookContract,
  showWebhookContract,
  webhookDeliveriesContract,
} from './contracts';
import type { Route } from '../route-table';
import { ownerRoute } from '../owner-route';

const DELIVERIES_SHOWN = 100;
const body = (req: Request) => (req.body ?? {}) as Record<string, unknown>;

export async function listWebhooks(deps: ApiDeps, _req: Request, res: Response): Promise<void> {
  const docs = await listEndpoints(deps.db, currentAccount(res).id);
  res.json({ webhooks: docs.map(presentEndpoint) });
}

export async function createWebhook(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const ctx = auditContext(req, res);
  const { doc, secret } = await createEndpoint(deps, ctx, currentAccount(res).id, body(req));
  res.status(201).json({ ...presentEndpoint(doc), secret });
}

export async function showWebhook(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const doc = await endpointOf(deps.db, currentAccount(res).id, String(req.params.id));
  res.json(presentEndpoint(doc));
}

export async function changeWebhook(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const ctx = auditContext(req, res);
  const id = String(req.params.id);
  res.json(presentEndpoint(await updateEndpoint(deps, ctx, currentAccount(res).id, id, body(req))));
}

export async function removeWebhook(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const ctx = auditContext(req, res);
  await deleteEndpoint(deps, ctx, currentAccount(res).id, String(req.params.id));
  res.status(204).end();
}

export async function webhookDeliveries(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const doc = await endpointOf(deps.db, currentAccount(res).id, String(req.params.id));
  const docs = await deliveriesOf(deps.db, doc._id, DELIVERIES_SHOWN);
  res.json({ deliveries: docs.map(presentDelivery) });
}

export async function redeliverWebhook(deps: ApiDeps, req: Request, res: Response): Promise<void> {
  const ctx = auditContext(req, res);
  const id = String(req.params.deliveryId);
  const doc = await redeliver(emitDeps(deps), ctx, currentAccount(res).id, id);
  res.status(202).json(presentDelivery(doc));
}

export function webhookRoutes(deps: ApiDeps): Route[] {
  const route = ownerRoute(deps);
  return [
    route('get', '/api/v2/webhooks', listWebhooksContract, listWebhooks),
    route('post', '/api/v2/webhooks', createWebhookContract, createWebhook),
    route('get', '/api/v2/webhooks/:id', showWebhookContract, showWebhook),
    route('put', '/api/v2/webhooks/:id', changeWebhookContract, changeWebhook),
    route('delete', '/api/v2/webhooks/:id', removeWebhookContract, removeWebhook),
    route('get', '/api/v2/webhooks/:id/deliveries', webhookDeliveriesContract, webhookDeliveries),
    route(
      'post',
      '/api/v2/webhook-deliveries/:deliveryId/redeliver',
      redeliverContract,
      redeliverWebhook,
    ),
  ];
}
