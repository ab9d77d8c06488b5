/** Contracts of apps, their current APK and the PushLink download and metadata routes. */
import { contract } from '../route-contract';
import { errorResponse, json, text } from '../openapi/common';

const bearer = [{ apiKey: [] }];
const query = (name: string, required: boolean, description: string) => ({
  name,
  in: 'query',
  required,
  description,
  schema: { type: 'string' },
});

const apkBinary = (description: string) => ({
  description,
  headers: {
    'Content-Disposition': {
      schema: { type: 'string' },
      description: `attachment; filename="<package>.apk"; filename*=UTF-8''<package>.apk (RFC 6266)`,
    },
    ETag: { schema: { type: 'string' }, description: 'The SHA-256 of the APK, quoted.' },
    'Accept-Ranges': { schema: { type: 'string' } },
  },
  content: {
    'application/vnd.android.package-archive': { schema: { type: 'string', format: 'binary' } },
  },
});

export const apkResponses = {
  '200': apkBinary(
    'The whole APK; or an empty body when Range starts at the size (download complete).',
  ),
  '206': apkBinary('The requested range (`bytes=N-` or `bytes=N-M`), with Content-Range.'),
  '416': text('Several ranges, or a start beyond the size.'),
};

export const selector = {
  type: 'object',
  description: 'Names an APK of the app by one of sha256, md5 or versionCode.',
  properties: {
    sha256: { type: 'string' },
    md5: { type: 'string' },
    versionCode: { type: 'integer' },
  },
};

export const downloadSchemas = {
  AppSummary: {
    type: 'object',
    properties: {
      package: { type: 'string' },
      label: { type: ['string', 'null'] },
      signerSha256: { type: 'string' },
      currentVersion: {
        type: 'integer',
        description: 'Goes up by one at every change of the current APK.',
      },
      current: { oneOf: [{ type: 'null' }, { $ref: '#/components/schemas/Apk' }] },
      createdAt: { type: 'string', format: 'date-time' },
      fleet: {
        $ref: '#/components/schemas/AppFleet',
        description: 'In the list of apps only.',
      },
    },
  },
  AppListing: {
    type: 'object',
    description: 'The answer of /apps/api_list_json.',
    properties: {
      package: { type: 'string' },
      label: { type: ['string', 'null'] },
      signerSha256: { type: 'string' },
      currentVersion: { type: 'integer' },
      apks: {
        type: 'array',
        items: {
          allOf: [
            { $ref: '#/components/schemas/Apk' },
            { type: 'object', properties: { current: { type: 'boolean' } } },
          ],
        },
      },
      installation: {
        description: 'Present when deviceId was given; null when that device never registered.',
        oneOf: [
          { type: 'null' },
          {
            type: 'object',
            properties: {
              deviceId: { type: 'string' },
              status: { enum: ['enabled', 'disabled'] },
              installedHash: { type: ['string', 'null'] },
              lastDownloadedHash: { type: ['string', 'null'] },
              lastSeenAt: { type: 'string', format: 'date-time' },
            },
          },
        ],
      },
    },
  },
};

/** `package`, `api_key` and `deviceId`: how a device names itself to the download routes. */
const deviceDownload = (deviceIdWhat: string) => [
  query('package', true, 'Package name.'),
  query('api_key', true, 'API key of the account.'),
  query('deviceId', false, deviceIdWhat),
];

const downloadRefusals = {
  '401': text('Download failed: Invalid API Key.'),
  '403': text(
    'Download failed: this installation is disabled (plan quantity of installations reached).',
  ),
};

export const legacyDownloadContract = contract({
  summary: 'The current APK (PushLink-compatible; on the admin, web and push hosts).',
  parameters: [
    ...deviceDownload(
      'Records the download against this installation; a disabled one gets no APK.',
    ),
    query('hash', false, 'MD5 of the installed APK (accepted, informative).'),
    query('lastDownloadHash', false, 'MD5 of the last downloaded APK (accepted; empty = absent).'),
    query('pid', false, 'Accepted.'),
    query('plVersion', false, 'Accepted.'),
    query('androidId', false, 'Accepted.'),
    { name: 'Range', in: 'header', required: false, schema: { type: 'string' } },
  ],
  responses: {
    ...apkResponses,
    ...downloadRefusals,
    '404': text('Unknown package, or no current APK.'),
  },
});

const deltaBinary = (description: string) => ({
  description,
  headers: {
    ETag: { schema: { type: 'string' }, description: 'The SHA-256 of the patch bytes, quoted.' },
    'X-Apkrelay-Delta-From': { schema: { type: 'string' }, description: 'The `from` MD5.' },
    'X-Apkrelay-Delta-To': { schema: { type: 'string' }, description: 'The `to` SHA-256.' },
    'X-Apkrelay-Delta-Format': {
      schema: { type: 'string' },
      description: 'The patch format served: `1` (ARDELTA1) or `2` (ARDELTA2).',
    },
    'Accept-Ranges': { schema: { type: 'string' } },
  },
  content: { 'application/vnd.apkrelay.delta': { schema: { type: 'string', format: 'binary' } } },
});

export const deltaDownloadContract = contract({
  summary:
    'A proven patch from the installed APK to a target APK, of a format the client accepts (docs/delta-updates.md; on the admin, web and push hosts).',
  parameters: [
    ...deviceDownload(
      'Records the download of the target APK against this installation; a disabled one gets no patch.',
    ),
    query('from', true, 'MD5 of the installed APK (32 lower-case hex digits).'),
    query('to', true, 'SHA-256 of the target APK (64 lower-case hex digits).'),
    query(
      'formats',
      false,
      'Patch formats the client applies, comma-separated (`2,1`); absent: `1`. The smallest ready patch of one is served.',
    ),
    { name: 'Range', in: 'header', required: false, schema: { type: 'string' } },
  ],
  responses: {
    '200': deltaBinary('The whole patch; an empty body when Range starts at its size.'),
    '206': deltaBinary('The requested range, with Content-Range.'),
    '400': text(
      '`from` or `to` is missing or not a hash, or `formats` is malformed or names no known format.',
    ),
    ...downloadRefusals,
    '404': text('Unknown package, or `Delta not available.` (then download the full APK).'),
    '416': text('Several ranges, or a start beyond the size.'),
    '503': text(
      '`Delta not ready yet.` with Retry-After (1 to 60 s): the patch is being made; ask again then.',
    ),
  },
});

export const legacyListContract = contract({
  summary:
    'The app, every APK and optionally one installation (PushLink-compatible metadata; on the admin, web and push hosts).',
  parameters: [
    query('packageName', true, 'Package name.'),
    query('apiKey', true, 'API key of the account.'),
    query('deviceId', false, 'Adds that installation.'),
  ],
  responses: {
    '200': json('The app.', 'AppListing'),
    '401': errorResponse('UNAUTHENTICATED'),
    '404': errorResponse('NOT_FOUND'),
  },
});

export const listAppsContract = contract({
  summary:
    "The account's apps with their current APK and their fleet: installations by version, online, the rollout, crashes per hour.",
  security: bearer,
  responses: {
    '200': {
      description: 'The apps.',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: {
              apps: { type: 'array', items: { $ref: '#/components/schemas/AppSummary' } },
            },
          },
        },
      },
    },
    '401': errorResponse('UNAUTHENTICATED'),
  },
});

export const showAppContract = contract({
  summary: 'One app with every APK, newest first.',
  security: bearer,
  responses: {
    '200': json('The app.', 'AppListing'),
    '401': errorResponse('UNAUTHENTICATED'),
    '404': errorResponse('NOT_FOUND'),
  },
});

export const makeCurrentContract = contract({
  summary:
    'Make an APK current; making an earlier one current gives the newer update up on devices.',
  security: bearer,
  requestBody: { required: true, content: { 'application/json': { schema: selector } } },
  responses: {
    '200': json('The app with its new current APK.', 'AppSummary'),
    '400': errorResponse('VALIDATION_FAILED'),
    '401': errorResponse('UNAUTHENTICATED'),
    '404': errorResponse('NOT_FOUND'),
  },
});
