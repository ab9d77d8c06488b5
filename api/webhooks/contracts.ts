/** Contracts of webhooks (docs/webhooks.md) and of the audit log (docs/audit.md). */
import { AUDIT_ACTIONS } from '../../shared/audit/types';
import { WEBHOOK_EVENTS } from '../../shared/webhooks/types';
import { errorResponse, json } from '../openapi/common';
import { contract } from '../route-contract';

const bearer = [{ apiKey: [] }];
const query = (name: string, description: string, schema: object = { type: 'string' }) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
const refused = {
  '401': errorResponse('UNAUTHENTICATED'),
  '404': errorResponse('NOT_FOUND: no such endpoint of this account.'),
};
const endpointBody = (required: string[]) => ({
  required: true,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required,
        properties: {
          url: { type: 'string', description: 'An https:// URL.' },
          events: { type: 'array', items: { enum: [...WEBHOOK_EVENTS] } },
          enabled: { type: 'boolean' },
        },
      },
    },
  },
});
const actor = {
  type: 'object',
  properties: { kind: { type: 'string' }, id: { type: 'string' }, name: { type: 'string' } },
};

export const webhookSchemas = {
  WebhookEndpoint: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'array', items: { enum: [...WEBHOOK_EVENTS] } },
      enabled: { type: 'boolean' },
      disabledReason: { enum: ['owner', 'failing', null] },
      failingSince: { type: ['string', 'null'], format: 'date-time' },
      createdAt: { type: 'string', format: 'date-time' },
      secret: { type: 'string', description: 'In the creation reply only.' },
    },
  },
  WebhookDelivery: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      endpointId: { type: 'string' },
      event: { enum: [...WEBHOOK_EVENTS] },
      eventId: { type: 'string' },
      state: { enum: ['pending', 'delivered', 'failed'] },
      redeliveries: { type: 'integer' },
      attempts: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            at: { type: 'string', format: 'date-time' },
            statusCode: { type: ['integer', 'null'] },
            excerpt: { type: 'string' },
            durationMs: { type: 'integer' },
          },
        },
      },
    },
  },
  AuditEntry: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      at: { type: 'string', format: 'date-time' },
      actor,
      action: { enum: [...AUDIT_ACTIONS] },
      resource: {
        type: 'object',
        properties: { kind: { type: 'string' }, id: { type: 'string' } },
      },
      address: { type: ['string', 'null'] },
      details: { type: 'object' },
    },
  },
};

const list = (ref: string, key: string, description: string) => ({
  description,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: { [key]: { type: 'array', items: { $ref: `#/components/schemas/${ref}` } } },
      },
    },
  },
});

export const listWebhooksContract = contract({
  summary: "The account's webhook endpoints.",
  security: bearer,
  responses: { '200': list('WebhookEndpoint', 'webhooks', 'The endpoints.'), ...refused },
});

/** A write of an endpoint; its body is checked by the use-case (shared/webhooks/endpoints.ts). */
const endpointWrite = (summary: string, required: string[], status: string, reply: string) =>
  contract({
    summary,
    security: bearer,
    requestBody: endpointBody(required),
    responses: {
      [status]: json(reply, 'WebhookEndpoint'),
      '400': errorResponse('VALIDATION_FAILED'),
      ...refused,
    },
  });

export const createWebhookContract = endpointWrite(
  'Add an endpoint; the reply carries its signing secret, shown this once.',
  ['url', 'events'],
  '201',
  'The endpoint, with `secret`.',
);

export const showWebhookContract = contract({
  summary: 'One endpoint.',
  security: bearer,
  responses: { '200': json('The endpoint.', 'WebhookEndpoint'), ...refused },
});

export const changeWebhookContract = endpointWrite(
  "Change an endpoint's URL, events or enabled (enabling clears an automatic off).",
  [],
  '200',
  'The endpoint.',
);

export const removeWebhookContract = contract({
  summary: 'Delete an endpoint (its delivery log stays).',
  security: bearer,
  responses: { '204': { description: 'Deleted.' }, ...refused },
});

export const webhookDeliveriesContract = contract({
  summary: "The endpoint's latest 100 deliveries, newest first, with every attempt.",
  security: bearer,
  responses: { '200': list('WebhookDelivery', 'deliveries', 'The deliveries.'), ...refused },
});

export const redeliverContract = contract({
  summary: 'Send a delivery again (same body and event id, signed anew).',
  security: bearer,
  responses: {
    '202': json('The delivery, queued again.', 'WebhookDelivery'),
    ...refused,
    '429': errorResponse(
      'WEBHOOK_REDELIVERY_RATE_LIMITED: more than WEBHOOK_REDELIVERIES_PER_MINUTE redeliveries by hand for this account in the last minute; Retry-After says when to try again.',
    ),
  },
});

/** The filter is read by the use-case (shared/audit/list.ts), which the web page shares. */
export const listAuditContract = contract({
  summary: "The account's audit log, newest first, filtered and paginated.",
  security: bearer,
  parameters: [
    query('action', 'One action code.', { enum: [...AUDIT_ACTIONS] }),
    query('resourceKind', 'app, upload, rollout, installation, webhook, delivery.'),
    query('resourceId', 'The resource id (a package for apps and rollouts).'),
    query('actorKind', 'account-key, session or system.'),
    query('actorId', "The actor's id."),
    query('from', 'Entries at or after this instant.', { type: 'string', format: 'date-time' }),
    query('to', 'Entries before this instant.', { type: 'string', format: 'date-time' }),
    query('before', '`next` of the previous page.'),
    query('limit', '1 to 200 (default 50).', { type: 'integer' }),
  ],
  responses: {
    '200': {
      description: 'A page of entries; `next` is null on the last page.',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: {
              entries: { type: 'array', items: { $ref: '#/components/schemas/AuditEntry' } },
              next: { type: ['string', 'null'] },
            },
          },
        },
      },
    },
    '400': errorResponse('VALIDATION_FAILED'),
    '401': errorResponse('UNAUTHENTICATED'),
  },
});

export const refuseAuditChangeContract = contract({
  summary: 'Refused: audit entries are append-only.',
  responses: { '405': errorResponse('METHOD_NOT_ALLOWED') },
});
