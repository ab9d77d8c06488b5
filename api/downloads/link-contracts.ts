/** Contracts of download links: the owner's JSON routes and the public `/d/{token}` ones. */
import { Type } from '@sinclair/typebox';
import { contract } from '../route-contract';
import { documentedSchema } from '../openapi/operation';
import { errorResponse, json, jsonBody, text } from '../openapi/common';
import { apkResponses, selector } from './contracts';

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

/** The longest a download link lives: 90 days. */
const MAX_TTL_SECONDS = 90 * 24 * 3600;

/** The link's bounds, checked here; the APK it names (`selector`) is read by `pickApk`. */
const linkBounds = Type.Object({
  ttlSeconds: Type.Integer({
    minimum: 1,
    maximum: MAX_TTL_SECONDS,
    errorMessage: `ttlSeconds must be a whole number from 1 to ${MAX_TTL_SECONDS}`,
  }),
  maxDownloads: Type.Optional(
    Type.Unsafe<number | null>({
      type: ['integer', 'null'],
      minimum: 1,
      errorMessage: 'maxDownloads must be a positive whole number',
    }),
  ),
});

export const createLinkContract = contract({
  summary:
    'Create a hashed download link to the current APK, or to one named by sha256/md5/versionCode.',
  security: bearer,
  body: linkBounds,
  requestBody: jsonBody({ allOf: [selector, documentedSchema(linkBounds)] }),
  responses: {
    '201': json('The link.', 'DownloadLink'),
    '400': errorResponse('VALIDATION_FAILED'),
    '401': errorResponse('UNAUTHENTICATED'),
    '404': errorResponse('NOT_FOUND'),
  },
});

/** A route of the owner's links answering `status` with no error of its own. */
const linksContract = (summary: string, status: string, description: string) =>
  contract({
    summary,
    security: bearer,
    responses: {
      [status]: { description },
      '401': errorResponse('UNAUTHENTICATED'),
      '404': errorResponse('NOT_FOUND'),
    },
  });

export const listLinksContract = linksContract("The app's download links.", '200', 'The links.');
export const revokeLinkContract = linksContract('Revoke a download link.', '204', 'Revoked.');

/** Plain-text refusals: the link's holder is a person with a browser, not an API client. */
export const useLinkContract = contract({
  summary:
    'Download through a hashed link (no credential; web host, also admin). Resumable with Range.',
  description:
    'Each download is counted against maxDownloads. A Range after byte 0 (with no If-Range, ' +
    'or one equal to the ETag) continues a counted download uncounted until a reply has sent ' +
    "the file's last byte; any other request is a new download. HEAD counts nothing. An " +
    'expired, revoked or used-up link answers 410 to every request shape.',
  responses: {
    ...apkResponses,
    '404': text('Unknown download link (never issued, or altered).'),
    '410': text('Expired, revoked or used up.'),
  },
});

const qrContract = (format: 'SVG' | 'PNG', type: string) =>
  contract({
    summary: `QR code of the link, as ${format}.`,
    responses: {
      '200': { description: type },
      '404': text('Unknown link.'),
      '410': text('Dead link.'),
    },
  });

export const qrSvgContract = qrContract('SVG', 'image/svg+xml');
export const qrPngContract = qrContract('PNG', 'image/png');
