/** Contracts of device keys, CI tokens and the account key's restriction (docs/keys.md). */
import { Type } from '@sinclair/typebox';
import { contract } from '../route-contract';
import { errorResponse, json, jsonBody } from '../openapi/common';

export const keySchemas = {
  AccessKey: {
    type: 'object',
    required: ['id', 'kind', 'name', 'apps', 'createdAt', 'createdBy', 'lastUsedAt', 'revokedAt'],
    properties: {
      id: { type: 'string' },
      kind: { type: 'string', enum: ['device-key', 'ci-token'] },
      name: { type: 'string' },
      apps: { type: 'array', items: { type: 'string' } },
      createdAt: { type: 'string', format: 'date-time' },
      createdBy: {
        type: ['object', 'null'],
        required: ['kind', 'id', 'name'],
        properties: { kind: { type: 'string' }, id: { type: 'string' }, name: { type: 'string' } },
        description:
          'Who made it, as the audit log names actors (account-key, session, member); null for keys made before this was recorded.',
      },
      lastUsedAt: {
        type: ['string', 'null'],
        format: 'date-time',
        description: 'Last authenticated use, written at most once a minute.',
      },
      revokedAt: { type: ['string', 'null'], format: 'date-time' },
    },
  },
  NewAccessKey: {
    allOf: [
      { $ref: '#/components/schemas/AccessKey' },
      {
        type: 'object',
        required: ['secret'],
        properties: {
          secret: {
            type: 'string',
            description: 'dk_… or ct_…: shown this once, stored only keyed-hashed and sealed.',
          },
        },
      },
    ],
  },
};

const forbidden = errorResponse(
  'KEY_SCOPE_REFUSED: a device key, a CI token or a restricted account key.',
);
const security = [{ apiKey: [] }];
const refused = { '401': errorResponse('UNAUTHENTICATED'), '403': forbidden };

export const listKeysContract = contract({
  summary: "The account's device keys and CI tokens.",
  security,
  responses: {
    '200': {
      description: 'Every key and token, revoked ones included; never a secret.',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['keys'],
            properties: {
              keys: { type: 'array', items: { $ref: '#/components/schemas/AccessKey' } },
            },
          },
        },
      },
    },
    ...refused,
  },
});

/** The kind, name and apps are checked by the use-case (shared/), behind the web form too. */
export const createKeyContract = contract({
  summary: 'Create a device key or CI token for named apps; its secret is answered this once.',
  security,
  requestBody: jsonBody({
    type: 'object',
    required: ['kind', 'name', 'apps'],
    properties: {
      kind: { type: 'string', enum: ['device-key', 'ci-token'] },
      name: { type: 'string', minLength: 1, maxLength: 100 },
      apps: {
        type: 'array',
        minItems: 1,
        maxItems: 50,
        items: { type: 'string', description: 'Android package name.' },
      },
    },
  }),
  responses: {
    '201': json('Created; `secret` is not shown again.', 'NewAccessKey'),
    '400': errorResponse('VALIDATION_FAILED'),
    ...refused,
  },
});

export const revokeKeyContract = contract({
  summary: 'Revoke a device key or CI token (at once; device routes cache keys for 5 s).',
  security,
  responses: {
    '200': json('Revoked (revoking again answers the first revocation).', 'AccessKey'),
    ...refused,
    '404': errorResponse('NOT_FOUND: no such key of this account.'),
  },
});

export const apiKeyRestrictionContract = contract({
  summary: 'Restrict the account API key to the device routes (deviceOnly), or lift it.',
  description:
    'Once restricted, the account key cannot lift it: use the web administration (account page).',
  security,
  body: Type.Object({
    deviceOnly: Type.Boolean({ errorMessage: 'deviceOnly must be true or false' }),
  }),
  responses: {
    '200': { description: 'The switch as set: `{deviceOnly}`.' },
    '400': errorResponse('VALIDATION_FAILED'),
    ...refused,
  },
});
