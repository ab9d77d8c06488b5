/** Contracts of rollouts (docs/rollouts.md). */
import { errorResponse, jsonBody, json } from '../openapi/common';
import { contract } from '../route-contract';
import { selector } from '../downloads/contracts';

const bearer = [{ apiKey: [] }];

const report = {
  type: ['object', 'null'],
  description: "The health gate's numbers: counts, installation-hours, ratio and p-value.",
  properties: {
    verdict: { enum: ['halt', 'healthy', 'hold', 'insufficient'] },
    newCount: { type: 'integer' },
    newHours: { type: 'number' },
    oldCount: { type: 'integer' },
    oldHours: { type: 'number' },
    ratio: { type: ['number', 'null'] },
    pValue: { type: ['number', 'null'] },
  },
};

export const rolloutSchemas = {
  Rollout: {
    type: 'object',
    required: [
      'state',
      'percent',
      'stages',
      'stageIndex',
      'apk',
      'installed',
      'offered',
      'installations',
      'nextStageAt',
      'haltReason',
      'gate',
      'history',
    ],
    properties: {
      state: { enum: ['running', 'paused', 'halted', 'completed'] },
      percent: { type: 'number', description: 'Share of the (targeted) fleet offered the APK.' },
      stages: { type: 'array', items: { type: 'number' } },
      stageIndex: { type: 'integer' },
      apk: { $ref: '#/components/schemas/Apk' },
      previous: { oneOf: [{ $ref: '#/components/schemas/Apk' }, { type: 'null' }] },
      targeting: {
        type: 'object',
        properties: {
          metadata: {
            type: ['object', 'null'],
            properties: {
              key: { type: 'string' },
              values: { type: 'array', items: { type: 'string' } },
            },
          },
          deviceIds: { type: 'array', items: { type: 'string' } },
        },
      },
      installed: { type: 'integer', description: 'Installations reporting the APK installed.' },
      offered: {
        type: 'integer',
        description:
          'Installations it offers its APK now: inside at its percentage and targeting while running or paused, all once completed, none once halted.',
      },
      installations: { type: 'integer', description: "The app's installations." },
      startedAt: { type: 'string', format: 'date-time' },
      stageStartedAt: { type: 'string', format: 'date-time' },
      nextStageAt: {
        type: ['string', 'null'],
        format: 'date-time',
        description:
          'While running short of its last stage: the stage start plus ROLLOUT_SOAK_SECONDS, when the health gate advances it if it finds it healthy.',
      },
      haltReason: {
        type: ['string', 'null'],
        description:
          'Why it was halted, in one sentence from its decision history (null unless halted).',
      },
      gate: {
        type: 'object',
        description:
          "The health gate's settings (ROLLOUT_*): it halts when the new version's crash rate is significantly above factor × the previous version's.",
        properties: {
          factor: { type: 'number' },
          minExceptions: { type: 'integer' },
          soakMs: { type: 'integer' },
        },
      },
      updatedAt: { type: 'string', format: 'date-time' },
      health: {
        type: 'object',
        properties: {
          since: { type: 'string', format: 'date-time' },
          lastEvaluatedAt: { type: ['string', 'null'], format: 'date-time' },
          newHours: { type: 'number' },
          oldHours: { type: 'number' },
          last: report,
        },
      },
      history: {
        type: 'array',
        description: 'Decisions, newest last (at most 50); automatic ones carry their numbers.',
        items: {
          type: 'object',
          properties: {
            at: { type: 'string', format: 'date-time' },
            action: { type: 'string' },
            by: { enum: ['owner', 'health-gate'] },
            from: { type: ['string', 'null'] },
            to: { type: 'string' },
            percent: { type: 'number' },
            health: report,
          },
        },
      },
    },
  },
};

const rolloutReply = (description: string) => json(description, 'Rollout');

export const previewContract = contract({
  summary: 'Who a rollout at a percentage would include, with the app id buckets come from.',
  description:
    'A device is in at p % when bucket < round(p × 100), bucket = the first 4 bytes of SHA-256 of "<appId>:<deviceId>" (big-endian) modulo 10000. Targeting by device ids or metadata narrows a real rollout further.',
  security: bearer,
  // Read by previewPercent (shared/rollouts/preview.ts), which the web page's preview shares.
  parameters: [
    {
      name: 'percent',
      in: 'query',
      required: true,
      schema: { type: 'number', minimum: 0, maximum: 100, multipleOf: 0.01 },
    },
  ],
  responses: {
    '200': {
      description: "The app's installations, lowest bucket first.",
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: [
              'appId',
              'percent',
              'threshold',
              'buckets',
              'installations',
              'included',
              'devices',
            ],
            properties: {
              appId: { type: 'string' },
              percent: { type: 'number' },
              threshold: { type: 'integer' },
              buckets: { type: 'integer' },
              installations: { type: 'integer' },
              included: { type: 'integer' },
              devices: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['deviceId', 'bucket', 'included'],
                  properties: {
                    deviceId: { type: 'string' },
                    bucket: { type: 'integer' },
                    included: { type: 'boolean' },
                  },
                },
              },
            },
          },
        },
      },
    },
    '400': errorResponse('VALIDATION_FAILED: percent'),
    '401': errorResponse('UNAUTHENTICATED'),
    '404': errorResponse('NOT_FOUND: no such app'),
  },
});

export const showRolloutContract = contract({
  summary: "The app's rollout (the latest one, finished or not).",
  security: bearer,
  responses: {
    '200': rolloutReply('The rollout.'),
    '401': errorResponse('UNAUTHENTICATED'),
    '404': errorResponse('NOT_FOUND: no such app, or no rollout yet.'),
  },
});

export const createRolloutContract = contract({
  summary: 'Start a rollout of an APK. Stages default to 1, 5, 25, 100 %; [100] makes it current.',
  security: bearer,
  requestBody: jsonBody({
    type: 'object',
    description: 'The APK by sha256, md5 or versionCode, plus stages and targeting.',
    properties: {
      ...selector.properties,
      stages: { type: 'array', items: { type: 'number' }, maxItems: 10 },
      targeting: {
        type: 'object',
        properties: {
          metadata: {
            type: 'object',
            properties: {
              key: { type: 'string' },
              values: { type: 'array', items: { type: 'string' } },
            },
          },
          deviceIds: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  }),
  responses: {
    '201': rolloutReply('The rollout, started.'),
    '400': errorResponse('VALIDATION_FAILED'),
    '401': errorResponse('UNAUTHENTICATED'),
    '404': errorResponse('NOT_FOUND'),
    '409': errorResponse('ROLLOUT_ACTIVE: one is running or paused.'),
  },
});

export const rolloutActionContract = contract({
  summary: 'Act on the rollout: pause, resume, advance, complete or halt.',
  security: bearer,
  parameters: [
    {
      name: 'action',
      in: 'path',
      required: true,
      schema: { enum: ['pause', 'resume', 'advance', 'complete', 'halt'] },
    },
  ],
  responses: {
    '200': rolloutReply('The rollout after the action.'),
    '401': errorResponse('UNAUTHENTICATED'),
    '404': errorResponse('NOT_FOUND'),
    '409': errorResponse(
      'ROLLOUT_STATE_CONFLICT: not allowed in this state, or changed meanwhile.',
    ),
  },
});
