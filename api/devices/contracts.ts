/** Contracts of the device routes and of the owner's view and control of installations. */
import { Type } from '@sinclair/typebox';
import { contract } from '../route-contract';
import { enumOf, errorResponse, json, text } from '../openapi/common';

const bearer = [{ apiKey: [] }];
const deviceAuth =
  'The account API key as `Authorization: Bearer <apiKey>`, or `apiKey` in the body (`api_key` in the query for the stream).';

const registration = {
  type: 'object',
  required: ['package', 'deviceId'],
  properties: {
    package: { type: 'string' },
    deviceId: { type: 'string', maxLength: 200 },
    apiKey: { type: 'string' },
    installedMd5: { type: 'string', description: 'MD5 of the APK the app runs.' },
    lastDownloadedMd5: { type: 'string' },
    strategy: { enum: ['STATUS_BAR', 'FRIENDLY_POPUP', 'ANNOYING_POPUP', 'CUSTOM'] },
    device: {
      type: 'object',
      properties: {
        brand: { type: 'string' },
        model: { type: 'string' },
        osVersion: { type: 'string' },
        sdkInt: { type: 'integer' },
      },
    },
    metadata: {
      description: 'String pairs, as [{key, value}] or {key: value}; resent whenever they change.',
      oneOf: [
        {
          type: 'array',
          items: {
            type: 'object',
            properties: { key: { type: 'string' }, value: { type: 'string' } },
          },
        },
        { type: 'object', additionalProperties: { type: 'string' } },
      ],
    },
    location: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } } },
  },
};

const lastInstall = {
  type: 'object',
  description:
    'Sent once, on the heartbeat after an installation attempt: what the OS installer answered. Stored on the installation and shown in its list as lastInstall (with reportedAt).',
  required: ['md5', 'versionCode', 'status'],
  properties: {
    md5: { type: 'string', description: 'MD5 of the APK the device tried to install.' },
    versionCode: { type: 'integer', minimum: 0 },
    status: { enum: ['success', 'failure'] },
    osStatus: {
      type: 'integer',
      description:
        'The OS status (Android: PackageInstaller.STATUS_*); -1: failed before the OS answered.',
    },
    message: { type: 'string', maxLength: 1000, description: "The OS's message." },
    at: { type: 'string', format: 'date-time', description: "When, by the device's clock." },
    download: {
      type: 'object',
      nullable: true,
      description:
        'How the APK came (docs/delta-updates.md): a patch or the full APK, the bytes received for this update (every attempt), and why a patch that was tried was not used.',
      required: ['via', 'bytes'],
      properties: {
        via: { enum: ['delta', 'full'] },
        bytes: { type: 'integer', minimum: 0 },
        fallback: {
          type: 'object',
          nullable: true,
          required: ['reason', 'message'],
          properties: {
            reason: { enum: ['no-patch', 'patch-failed', 'no-space', 'mismatch', 'network'] },
            message: { type: 'string', maxLength: 300 },
          },
        },
      },
    },
  },
};

/** One row of the owner's installation list (shared/devices/listing.ts). */
const installationRow = {
  type: 'object',
  properties: {
    deviceId: { type: 'string' },
    status: { enum: ['enabled', 'disabled'] },
    online: { type: 'boolean', description: 'Seen within the last three heartbeat intervals.' },
    installedMd5: { type: 'string', nullable: true },
    lastDownloadedMd5: { type: 'string', nullable: true },
    pendingApkId: { type: 'string', nullable: true, description: 'Offered and not yet applied.' },
    ahead: {
      type: 'boolean',
      description:
        'Runs a higher versionCode than the APK it would be offered (e.g. a halted rollout installed it): it is offered nothing, never a downgrade.',
    },
    strategy: { type: 'string', nullable: true },
    channel: {
      enum: ['sse', 'pushlink'],
      description:
        "How the device reaches the push host: apkrelay's stream (sse) or the PushLink SDK's socket (pushlink, LEGACY_PUSH_PORT).",
    },
    plVersion: {
      type: 'string',
      nullable: true,
      description:
        'The PushLink SDK version a pushlink device reported (e.g. 5.6.0); null for sse.',
    },
    device: { type: 'object' },
    metadata: { type: 'array', items: { type: 'object' } },
    location: { type: 'object', nullable: true },
    lastInstall: { type: 'object', nullable: true },
    registeredAt: { type: 'string', format: 'date-time' },
    lastSeenAt: { type: 'string', format: 'date-time' },
  },
};

export const deviceSchemas = {
  Installation: installationRow,
  InstallationPage: {
    type: 'object',
    properties: {
      page: { type: 'integer' },
      pageSize: { type: 'integer' },
      total: { type: 'integer' },
      installations: { type: 'array', items: { $ref: '#/components/schemas/Installation' } },
      summary: {
        type: 'object',
        description:
          'The whole fleet of the app, whatever the filters: the Installations tab’s summary strip.',
        properties: {
          total: { type: 'integer' },
          online: { type: 'integer' },
          offline: { type: 'integer' },
          versions: {
            type: 'array',
            description:
              'Highest versionCode first; md5 null: no APK of the app (or none reported).',
            items: {
              type: 'object',
              properties: {
                md5: { type: ['string', 'null'] },
                versionCode: { type: ['integer', 'null'] },
                versionName: { type: ['string', 'null'] },
                installations: { type: 'integer' },
              },
            },
          },
          ahead: {
            type: 'array',
            items: { type: 'string' },
            description: 'Device ids of the installations ahead of the APK they would be offered.',
          },
        },
      },
    },
  },
  InstallationDetail: {
    type: 'object',
    properties: {
      installation: { $ref: '#/components/schemas/Installation' },
      history: {
        type: 'array',
        description:
          'The install funnel’s marks of this installation, oldest first: each APK offered, downloaded, installed or failed (with the OS status and message).',
        items: {
          type: 'object',
          properties: {
            md5: { type: 'string' },
            versionCode: { type: ['integer', 'null'] },
            versionName: { type: ['string', 'null'] },
            stage: { enum: ['offered', 'downloaded', 'installed', 'failed'] },
            at: { type: 'string', format: 'date-time' },
            osStatus: { type: ['integer', 'null'] },
            message: { type: ['string', 'null'] },
          },
        },
      },
      reports: {
        type: 'array',
        description: 'Its newest 100 exception reports, newest first.',
        items: { type: 'object' },
      },
    },
  },
  Registration: registration,
  Heartbeat: {
    ...registration,
    properties: { ...registration.properties, lastInstall },
  },
  InstallationStatus: {
    type: 'object',
    properties: {
      status: { enum: ['enabled', 'disabled'] },
      accountId: {
        type: 'string',
        description: 'The account the API key belongs to; signed notices name it.',
      },
      deviceId: { type: 'string' },
      heartbeatSeconds: { type: 'integer' },
      streamUrl: { type: 'string', format: 'uri' },
    },
  },
};

export const registerContract = contract({
  summary: `Register an installation (admin, web and push hosts). ${deviceAuth} The first N installations of the account (N = plan) are enabled, later ones disabled. streamUrl is on the push host.`,
  requestBody: {
    required: true,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Registration' } } },
  },
  responses: {
    '200': json('Registered.', 'InstallationStatus'),
    '400': errorResponse('VALIDATION_FAILED'),
    '401': errorResponse('UNAUTHENTICATED: "Device register failed: Invalid API Key. ..."'),
    '404': errorResponse(
      'NOT_FOUND: "Device register failed: Invalid Package. Probably you never uploaded this app."',
    ),
    '429': errorResponse(
      'DEVICE_REGISTRATIONS_RATE_LIMITED: a new installation past DEVICE_NEW_REGISTRATIONS_PER_KEY or _PER_APP in the last minute; Retry-After says when to try again. AUTH_RATE_LIMITED: too many failed API keys.',
    ),
  },
});

export const heartbeatContract = contract({
  summary: `Heartbeat (every heartbeatSeconds), with changed metadata and hashes, and once the outcome of an installation attempt (admin, web and push hosts). ${deviceAuth}`,
  requestBody: {
    required: true,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Heartbeat' } } },
  },
  responses: {
    '200': json('Seen.', 'InstallationStatus'),
    '401': errorResponse('UNAUTHENTICATED'),
    '404': errorResponse('NOT_FOUND (not registered)'),
  },
});

export const streamContract = contract({
  summary:
    'Push stream (server-sent events; push host only, the push channel): `status` on connect, then `version` (offer) and `giveup` ' +
    'events, each signed (Ed25519, see /api/v2/push-key). Event ids are notice ids: send Last-Event-ID to resume.',
  parameters: [
    { name: 'package', in: 'query', required: true, schema: { type: 'string' } },
    { name: 'deviceId', in: 'query', required: true, schema: { type: 'string' } },
    { name: 'api_key', in: 'query', required: false, schema: { type: 'string' } },
    { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' } },
  ],
  responses: {
    '200': {
      description: 'text/event-stream',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    },
    '401': text(
      'Device register failed: Invalid API Key. Probably caused by the wrong configuration.',
    ),
    '404': text('Unknown package, or device not registered.'),
  },
});

export const pushKeyContract = contract({
  summary:
    'The public key that signs push events: {algorithm: "Ed25519", publicKey (SPKI DER, base64), publicKeyPem}. On the admin, web and push hosts.',
  responses: { '200': { description: 'The key.' } },
});

export const listInstallationsContract = contract({
  summary:
    "The app's installations, filtered, sorted (newest seen first unless `sort` says otherwise) and paged on the server (skip/limit over the sorted list), with the summary of the whole fleet.",
  security: bearer,
  query: Type.Object({
    status: Type.Optional(
      enumOf(['enabled', 'disabled', 'online', 'offline'] as const, {
        errorMessage: 'status must be enabled, disabled, online or offline',
      }),
    ),
    sort: Type.Optional(
      enumOf(['lastSeen', 'version', 'deviceId'] as const, {
        errorMessage: 'sort must be lastSeen, version or deviceId',
      }),
    ),
  }),
  // Read by api/devices/installations-list.ts: a page out of range is clamped; a bad version or
  // meta is refused (VALIDATION_FAILED).
  parameters: [
    { name: 'q', in: 'query', schema: { type: 'string' }, description: 'Device id prefix.' },
    {
      name: 'version',
      in: 'query',
      schema: { type: 'integer', minimum: 0 },
      description: 'Only installations running an APK of this versionCode.',
    },
    {
      name: 'meta',
      in: 'query',
      schema: { type: 'string' },
      description: 'Only installations with this metadata pair, written key=value.',
    },
    { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 } },
    {
      name: 'pageSize',
      in: 'query',
      schema: { type: 'integer', minimum: 1, maximum: 200 },
    },
  ],
  responses: {
    '200': json(
      'One page of installations (SSE and PushLink devices together).',
      'InstallationPage',
    ),
    '400': errorResponse('VALIDATION_FAILED'),
    '401': errorResponse('UNAUTHENTICATED'),
    '404': errorResponse('NOT_FOUND'),
  },
});

export const installationStatusContract = contract({
  summary: 'Enable (claims a seat of the plan) or disable (frees it) an installation.',
  security: bearer,
  body: Type.Object({
    status: enumOf(['enabled', 'disabled'] as const, {
      errorMessage: 'status must be enabled or disabled',
    }),
  }),
  responses: {
    '200': { description: '{deviceId, status}' },
    '400': errorResponse('VALIDATION_FAILED'),
    '401': errorResponse('UNAUTHENTICATED'),
    '404': errorResponse('NOT_FOUND'),
    '409': errorResponse('PLAN_FULL'),
  },
});

export const showInstallationContract = contract({
  summary:
    'One installation: its row as in the list, its history (versions offered, downloaded, installed or failed with the OS message) and its exception reports.',
  security: bearer,
  responses: {
    '200': json('The installation.', 'InstallationDetail'),
    '401': errorResponse('UNAUTHENTICATED'),
    '404': errorResponse('NOT_FOUND'),
  },
});
