/**
 * How the access matrix asks the routes of webhooks and of the audit log (issue 20), keyed as in
 * matrix.tsv. Who should get what is in matrix.tsv.
 */
import { request } from '../../helpers/http';
import { boardJudge, formJudge, jsonJudge, pageJudge, type Call } from './judge';
import type { CaseContext, Entry } from './expectations';
import { keyOf, knowsCsrf, sessionOf } from './roles';

const bearer = (c: CaseContext): Record<string, string> => {
  const key = keyOf(c.w, c.role);
  return key ? { authorization: `Bearer ${key}` } : {};
};
const call =
  (method: Call['method'], path: (c: CaseContext) => string, json?: unknown) =>
  (c: CaseContext): Call => ({
    method,
    path: path(c),
    headers: bearer(c),
    ...(json !== undefined ? { json } : {}),
  });
/** Subscribed to an event the matrix never causes: no deliveries pile up. */
const ENDPOINT = { url: 'https://hooks.example.invalid/matrix-case', events: ['backup.failed'] };

/**
 * A fresh endpoint of A for one case, so deleting it leaves A's others to the other cases. On the
 * hosts the route is not on (asked after every case, when A's key may have been regenerated) any
 * id does: the route is not there.
 */
async function freshEndpointOfA(c: CaseContext): Promise<string> {
  if (c.host !== 'admin') return c.w.a.webhookId;
  const r = await request(`${c.w.stack.urls.admin}/api/v2/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.w.a.apiKey}` },
    json: ENDPOINT,
    ca: c.w.stack.ca,
  });
  if (r.status !== 201) throw new Error(`endpoint of A: ${r.status} ${r.text}`);
  return r.json<{ id: string }>().id;
}

const cookie = (c: CaseContext): Record<string, string> => {
  const session = sessionOf(c.w, c.role);
  return session ? { cookie: session.cookie } : {};
};
const page =
  (path: string) =>
  (c: CaseContext): Call => ({ method: 'GET', path, headers: cookie(c) });

/** The add and edit forms' fields of ENDPOINT. */
const ENDPOINT_FORM = { url: ENDPOINT.url, 'event:backup.failed': 'on' };
/** A signed-in form: the role's session, and its CSRF token when the role knows it. */
const webForm =
  (path: (c: CaseContext) => string, fields: Record<string, string> = {}) =>
  (c: CaseContext): Call => ({
    method: 'POST',
    path: path(c),
    headers: cookie(c),
    form: { ...fields, _csrf: knowsCsrf(c.role) ? (sessionOf(c.w, c.role)?.csrf ?? '') : '' },
  });

export const WEBHOOK_EXPECTATIONS: Readonly<Record<string, Entry>> = {
  'GET /api/v2/webhooks': { judge: jsonJudge, call: call('GET', () => '/api/v2/webhooks') },
  'POST /api/v2/webhooks': {
    judge: jsonJudge,
    call: call('POST', () => '/api/v2/webhooks', ENDPOINT),
  },
  'GET /api/v2/webhooks/:id': {
    judge: jsonJudge,
    call: call('GET', (c) => `/api/v2/webhooks/${c.w.a.webhookId}`),
  },
  'PUT /api/v2/webhooks/:id': {
    judge: jsonJudge,
    call: call('PUT', (c) => `/api/v2/webhooks/${c.w.a.webhookId}`, { enabled: true }),
  },
  'DELETE /api/v2/webhooks/:id': {
    judge: jsonJudge,
    call: async (c) => ({
      method: 'DELETE',
      path: `/api/v2/webhooks/${await freshEndpointOfA(c)}`,
      headers: bearer(c),
    }),
  },
  'GET /api/v2/webhooks/:id/deliveries': {
    judge: jsonJudge,
    call: call('GET', (c) => `/api/v2/webhooks/${c.w.a.webhookId}/deliveries`),
  },
  'POST /api/v2/webhook-deliveries/:deliveryId/redeliver': {
    judge: jsonJudge,
    call: call('POST', (c) => `/api/v2/webhook-deliveries/${c.w.a.deliveryId}/redeliver`),
  },
  'GET /api/v2/audit': { judge: jsonJudge, call: call('GET', () => '/api/v2/audit') },
  'GET /ui/audit': { judge: pageJudge, call: page('/ui/audit') },
  'GET /ui/webhooks': { judge: pageJudge, call: page('/ui/webhooks') },
  'POST /ui/webhook-deliveries/:deliveryId/redeliver': {
    judge: formJudge,
    call: webForm((c) => `/ui/webhook-deliveries/${c.w.a.deliveryId}/redeliver`),
  },
  'POST /ui/webhooks': { judge: formJudge, call: webForm(() => '/ui/webhooks', ENDPOINT_FORM) },
  'GET /ui/webhooks/:id': {
    judge: pageJudge,
    call: (c) => page(`/ui/webhooks/${c.w.a.webhookId}`)(c),
  },
  'POST /ui/webhooks/:id': {
    judge: formJudge,
    call: webForm((c) => `/ui/webhooks/${c.w.a.webhookId}`, { ...ENDPOINT_FORM, enabled: 'on' }),
  },
  'POST /ui/webhooks/:id/test': {
    judge: formJudge,
    call: webForm((c) => `/ui/webhooks/${c.w.a.webhookId}/test`),
  },
  'PUT /api/v2/audit/:id': {
    judge: boardJudge,
    call: call('PUT', (c) => `/api/v2/audit/${c.w.a.auditId}`, { action: 'webhook.deleted' }),
  },
  'DELETE /api/v2/audit/:id': {
    judge: boardJudge,
    call: call('DELETE', (c) => `/api/v2/audit/${c.w.a.auditId}`),
  },
};
