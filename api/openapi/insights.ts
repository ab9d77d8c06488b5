/** OpenAPI of an APK's install funnel and an app's version adoption (api/routes/insights.ts). */
import { errorResponse, json } from './common';

const bearer = [{ apiKey: [] }];
const pkg = { name: 'package', in: 'path', required: true, schema: { type: 'string' } };
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

export const insightSchemas = {
  ApkFunnel: {
    type: 'object',
    properties: {
      apk: { $ref: '#/components/schemas/Apk' },
      counts: funnelStages,
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

export const insightPaths = {
  '/api/v2/apps/{package}/funnel': {
    get: {
      summary:
        "An APK's install funnel: how many installations were offered it, downloaded it, installed it and failed to, each counted once, and a page of installations ordered by an opaque cursor. Name the APK by sha256, md5 or versionCode.",
      security: bearer,
      parameters: [
        pkg,
        { name: 'sha256', in: 'query', schema: { type: 'string' } },
        { name: 'md5', in: 'query', schema: { type: 'string' } },
        { name: 'versionCode', in: 'query', schema: { type: 'integer', minimum: 0 } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200 } },
        { name: 'after', in: 'query', schema: { type: 'string' } },
      ],
      responses: { '200': json('The funnel.', 'ApkFunnel'), ...denials },
    },
  },
  '/api/v2/apps/{package}/adoption': {
    get: {
      summary:
        "The app's version adoption: installations seen in the 24 h before each point, by the version they run; hourly points over `days` (default 7), the last one computed now.",
      security: bearer,
      parameters: [
        pkg,
        { name: 'days', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 90 } },
      ],
      responses: { '200': json('The series.', 'Adoption'), ...denials },
    },
  },
};
