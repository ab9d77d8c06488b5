import { errorResponse, json, text } from './common';

const bearer = [{ apiKey: [] }];
const pathParam = (name: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string' },
});
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
      description: 'attachment;filename=<package>.apk',
    },
    ETag: { schema: { type: 'string' }, description: 'The SHA-256 of the APK, quoted.' },
    'Accept-Ranges': { schema: { type: 'string' } },
  },
  content: {
    'application/vnd.android.package-archive': { schema: { type: 'string', format: 'binary' } },
  },
});

const apkResponses = {
  '200': apkBinary(
    'The whole APK; or an empty body when Range starts at the size (download complete).',
  ),
  '206': apkBinary('The requested range (`bytes=N-` or `bytes=N-M`), with Content-Range.'),
  '416': text('Several ranges, or a start beyond the size.'),
};

const selector = {
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
  DownloadLink: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      url: {
        type: 'string',
        format: 'uri',
        description: 'On the web host; carries no credential.',
      },
      qrSvgUrl: { type: 'string', format: 'uri' },
      qrPngUrl: { type: 'string', format: 'uri' },
      expiresAt: { type: 'string', format: 'date-time' },
      maxDownloads: { type: ['integer', 'null'] },
      downloads: { type: 'integer' },
      revoked: { type: 'boolean' },
    },
  },
};

export const downloadPaths = {
  '/download': {
    get: {
      summary: 'The current APK (PushLink-compatible; also served on the web host).',
      parameters: [
        query('package', true, 'Package name.'),
        query('api_key', true, 'API key of the account.'),
        query(
          'deviceId',
          false,
          'Records the download against this installation; a disabled one gets no APK.',
        ),
        query('hash', false, 'MD5 of the installed APK (accepted, informative).'),
        query(
          'lastDownloadHash',
          false,
          'MD5 of the last downloaded APK (accepted; empty = absent).',
        ),
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
    },
  },
  '/apps/api_list_json': {
    get: {
      summary: 'The app, every APK and optionally one installation (PushLink-compatible metadata).',
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
    },
  },
  '/api/v2/apps': {
    get: {
      summary: "The account's apps with their current APK.",
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
    },
  },
  '/api/v2/apps/{package}': {
    get: {
      summary: 'One app with every APK, newest first.',
      security: bearer,
      parameters: [pathParam('package')],
      responses: {
        '200': json('The app.', 'AppListing'),
        '401': errorResponse('UNAUTHENTICATED'),
        '404': errorResponse('NOT_FOUND'),
      },
    },
  },
  '/api/v2/apps/{package}/current': {
    put: {
      summary:
        'Make an APK current; making an earlier one current gives the newer update up on devices.',
      security: bearer,
      parameters: [pathParam('package')],
      requestBody: { required: true, content: { 'application/json': { schema: selector } } },
      responses: {
        '200': json('The app with its new current APK.', 'AppSummary'),
        '400': errorResponse('VALIDATION_FAILED'),
        '401': errorResponse('UNAUTHENTICATED'),
        '404': errorResponse('NOT_FOUND'),
      },
    },
  },
  '/api/v2/apps/{package}/download-links': {
    post: {
      summary:
        'Create a hashed download link to the current APK, or to one named by sha256/md5/versionCode.',
      security: bearer,
      parameters: [pathParam('package')],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              allOf: [
                selector,
                {
                  type: 'object',
                  required: ['ttlSeconds'],
                  properties: {
                    ttlSeconds: { type: 'integer', minimum: 1, maximum: 7776000 },
                    maxDownloads: { type: ['integer', 'null'], minimum: 1 },
                  },
                },
              ],
            },
          },
        },
      },
      responses: {
        '201': json('The link.', 'DownloadLink'),
        '400': errorResponse('VALIDATION_FAILED'),
        '401': errorResponse('UNAUTHENTICATED'),
        '404': errorResponse('NOT_FOUND'),
      },
    },
    get: {
      summary: "The app's download links.",
      security: bearer,
      parameters: [pathParam('package')],
      responses: {
        '200': { description: 'The links.' },
        '401': errorResponse('UNAUTHENTICATED'),
        '404': errorResponse('NOT_FOUND'),
      },
    },
  },
  '/api/v2/download-links/{id}': {
    delete: {
      summary: 'Revoke a download link.',
      security: bearer,
      parameters: [pathParam('id')],
      responses: {
        '204': { description: 'Revoked.' },
        '401': errorResponse('UNAUTHENTICATED'),
        '404': errorResponse('NOT_FOUND'),
      },
    },
  },
  '/d/{token}': {
    get: {
      summary: 'Download through a hashed link (no credential; web host). Resumable with Range.',
      parameters: [pathParam('token')],
      responses: {
        ...apkResponses,
        '404': text('Unknown download link (never issued, or altered).'),
        '410': text('Expired, revoked or used up.'),
      },
    },
  },
  '/d/{token}/qr.svg': {
    get: {
      summary: 'QR code of the link, as SVG.',
      parameters: [pathParam('token')],
      responses: {
        '200': { description: 'image/svg+xml' },
        '404': text('Unknown link.'),
        '410': text('Dead link.'),
      },
    },
  },
  '/d/{token}/qr.png': {
    get: {
      summary: 'QR code of the link, as PNG.',
      parameters: [pathParam('token')],
      responses: {
        '200': { description: 'image/png' },
        '404': text('Unknown link.'),
        '410': text('Dead link.'),
      },
    },
  },
};
