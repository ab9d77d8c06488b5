import { errorResponse, json, onHosts, text } from './common';
import { apkResponses, pathParam, selector } from './downloads';

const bearer = [{ apiKey: [] }];

export const downloadLinkSchemas = {
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

export const downloadLinkPaths = {
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
      summary:
        'Download through a hashed link (no credential; web host, also admin). Resumable with Range.',
      description:
        'Each download is counted against maxDownloads. A Range after byte 0 (with no If-Range, ' +
        'or one equal to the ETag) continues a counted download uncounted until a reply has sent ' +
        "the file's last byte; any other request is a new download. HEAD counts nothing. An " +
        'expired, revoked or used-up link answers 410 to every request shape.',
      ...onHosts('web', 'admin'),
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
      ...onHosts('web', 'admin'),
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
      ...onHosts('web', 'admin'),
      parameters: [pathParam('token')],
      responses: {
        '200': { description: 'image/png' },
        '404': text('Unknown link.'),
        '410': text('Dead link.'),
      },
    },
  },
};
