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

export const legacyDownloadContract = contract({
  summary: 'The current APK (PushLink-compatible; on the admin, web and push hosts).',
  parameters: [
    query('package', true, 'Package name.'),
    query('api_key', true, 'API key of the account.'),
    query(
      'deviceId',
      false,
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
    '401': text('Download failed: Invalid API Key.'),
    '403': text(
      'Download failed: this installation is disabled (plan quantity of installations reached).',
    ),
    '404': text('Unknown package, or no current APK.'),
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
