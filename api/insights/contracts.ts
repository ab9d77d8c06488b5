/** Contracts of an APK's install funnel and an app's version adoption (api/routes/insights.ts). */
import { Type } from '@sinclair/typebox';
import { contract } from '../route-contract';
import { errorResponse, integerFrom, json } from '../openapi/common';

const bearer = [{ apiKey: [] }];
const at = { type: ['string', 'null'], format: 'date-time' };

const funnelStages = {
  type: 'object',
  description: 'Installations that reached each stage, each counted once per stage.',
  required: ['offered', 'downloaded', 'installed', 'failed'],
  properties: {
    offered: { type: 'integer', description: 'Sent a `version` event for the APK.' },
    downloaded: {
      type: 'integer',
      description: 'Fetched it (/download) or reported it downloaded.',
    },
    installed: {
      type: 'integer',
      description: 'Reported running it, or the client reported the installer succeeded.',
    },
    failed: { type: 'integer', description: 'The client reported the installer failed.' },
  },
};

const bytesOf = (what: string) => ({
  type: 'object',
  description: `Updates that came ${what}, and the bytes received for them (every attempt).`,
  properties: { updates: { type: 'integer' }, bytes: { type: 'integer' } },
});

const transfers = {
  type: 'object',
  description:
    'How updates to this APK came over the network, as the clients reported with the installation outcome (docs/delta-updates.md).',
  properties: {
    delta: bytesOf('as a patch'),
    full: bytesOf('as the full APK (a fallback included)'),
    fallbacks: {
      type: 'object',
      description:
        'Full downloads after a patch was tried, by reason: no-patch, patch-failed, no-space, mismatch, network.',
      additionalProperties: { type: 'integer' },
    },
  },
};

export const insightSchemas = {
  ApkFunnel: {
    type: 'object',
    properties: {
      apk: { $ref: '#/components/schemas/Apk' },
      counts: funnelStages,
      transfers,
      installations: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            deviceId: { type: ['string', 'null'] },
            offeredAt: at,
            downloadedAt: at,
            installedAt: at,
            failedAt: at,
            failure: {
              type: ['object', 'null'],
              description: 'The first failure reported: the OS status and message, when sent.',
              properties: {
                osStatus: { type: ['integer', 'null'] },
                message: { type: ['string', 'null'] },
              },
            },
          },
        },
      },
      next: {
        type: ['string', 'null'],
        description: 'Pass as `after` for the next page; null on the last page.',
      },
    },
  },
  Adoption: {
    type: 'object',
    properties: {
      package: { type: 'string' },
      days: { type: 'integer' },
      points: {
        type: 'array',
        description: 'Hourly samples, oldest first; the last point is computed at the request.',
        items: {
          type: 'object',
          properties: {
            at: { type: 'string', format: 'date-time' },
            total: { type: 'integer' },
            versions: {
              type: 'array',
              description: 'Highest versionCode first; unknown hashes, then no hash, last.',
              items: {
                type: 'object',
                properties: {
                  md5: { type: ['string', 'null'] },
                  versionCode: { type: ['integer', 'null'] },
                  versionName: { type: ['string', 'null'] },
                  count: { type: 'integer' },
                },
              },
            },
          },
        },
      },
    },
  },
};

const denials = {
  '400': errorResponse('VALIDATION_FAILED'),
  '401': errorResponse('UNAUTHENTICATED'),
  '404': errorResponse('NOT_FOUND (no such app or APK)'),
};

/** Installations shown per page of a funnel, at most. */
const MAX_FUNNEL_PAGE = 200;
/** Days of adoption history, at most. */
const MAX_ADOPTION_DAYS = 90;

export const funnelContract = contract({
  summary:
    "An APK's install funnel: how many installations were offered it, downloaded it, installed it and failed to, each counted once, and a page of installations ordered by an opaque cursor. Name the APK by sha256, md5 or versionCode.",
  security: bearer,
  query: Type.Object({
    sha256: Type.Optional(Type.String()),
    md5: Type.Optional(Type.String()),
    versionCode: Type.Optional(integerFrom('versionCode', 0, 2 ** 31 - 1)),
    limit: Type.Optional(integerFrom('limit', 1, MAX_FUNNEL_PAGE)),
    after: Type.Optional(Type.String()),
  }),
  responses: { '200': json('The funnel.', 'ApkFunnel'), ...denials },
});

export const adoptionContract = contract({
  summary:
    "The app's version adoption: installations seen in the 24 h before each point, by the version they run; hourly points over `days` (default 7), the last one computed now.",
  security: bearer,
  query: Type.Object({ days: Type.Optional(integerFrom('days', 1, MAX_ADOPTION_DAYS)) }),
  responses: { '200': json('The series.', 'Adoption'), ...denials },
});
