/** Contracts of uploads: PushLink's form, the JSON API's upload and an upload's status. */
import { contract } from '../route-contract';
import { errorResponse, text } from '../openapi/common';

const multipartUpload = (withKey: boolean) => ({
  required: true,
  content: {
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: withKey ? ['apiKey', 'apk'] : ['apk'],
        properties: {
          ...(withKey ? { apiKey: { type: 'string' } } : {}),
          apk: { type: 'string', format: 'binary' },
          current: { type: 'string', enum: ['true', 'false'] },
          whatsnew: { type: 'string' },
          ...(withKey ? { async: { type: 'string', enum: ['true', 'false'] } } : {}),
          ...(withKey
            ? {
                package: {
                  type: 'string',
                  description:
                    'Optional (apkrelay upload sends it): the package the APK must be; recorded in the audit log. Not a package name: 400.',
                },
              }
            : {}),
        },
      },
    },
  },
});

export const uploadSchemas = {
  Apk: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      package: { type: 'string' },
      versionCode: { type: 'integer' },
      versionName: { type: ['string', 'null'] },
      minSdk: { type: ['integer', 'null'] },
      targetSdk: { type: ['integer', 'null'] },
      md5: {
        type: 'string',
        description: 'Lowercase hex MD5 of the whole file (PushLink identity).',
      },
      sha256: { type: 'string' },
      size: { type: 'integer' },
      signerSha256: {
        type: 'string',
        description: 'SHA-256 of the signing certificate Android uses.',
      },
      debuggable: { type: 'boolean' },
      whatsnew: { type: ['string', 'null'] },
      uploadedAt: { type: 'string', format: 'date-time' },
    },
  },
  UploadAccepted: {
    type: 'object',
    required: ['jobId', 'statusUrl'],
    properties: { jobId: { type: 'string' }, statusUrl: { type: 'string', format: 'uri' } },
  },
  UploadStatus: {
    type: 'object',
    required: ['jobId', 'status', 'verdict', 'apk'],
    properties: {
      jobId: { type: 'string' },
      status: { enum: ['queued', 'processing', 'done', 'failed'] },
      verdict: {
        oneOf: [
          { type: 'null' },
          {
            type: 'object',
            properties: {
              code: {
                enum: [
                  'ACCEPTED',
                  'APK_INVALID',
                  'APK_DUPLICATE',
                  'APK_SIGNER_MISMATCH',
                  'APK_PACKAGE_MISMATCH',
                  'APK_TOO_LARGE',
                  'UPLOAD_FAILED',
                ],
              },
              message: { type: 'string' },
            },
          },
        ],
      },
      apk: { oneOf: [{ type: 'null' }, { $ref: '#/components/schemas/Apk' }] },
    },
  },
};

export const legacyUploadContract = contract({
  summary:
    'PushLink-compatible upload. Waits for the verdict and answers in plain text, or answers ' +
    '202 with JSON at once with `async=true` or `Prefer: respond-async`.',
  requestBody: multipartUpload(true),
  responses: {
    '200': text('deploy successful'),
    '202': {
      description: 'Queued (asynchronous mode).',
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/UploadAccepted' } },
      },
    },
    '400': text('Not a multipart form, malformed, or several apk files.'),
    '401': text(
      'deploy fails, Invalid Api Key (also: no key). The apiKey field may come before or after the apk file.',
    ),
    '408': text('The body brought fewer than UPLOAD_PROGRESS_BYTES in UPLOAD_PROGRESS_WINDOW_MS.'),
    '409': text(
      "deploy fails, this APK hash is the same of another APK uploaded | deploy fails, APK signer does not match this app's signer",
    ),
    '413': text('The APK exceeds MAX_APK_BYTES.'),
    '422': text('deploy fails, Invalid APK file'),
    '429': text(
      'Too many failed API key attempts, or more than UPLOADS_PER_ADDRESS uploads at once from this address; retry after Retry-After.',
    ),
    '500': text('The upload could not be processed.'),
    '503': text(
      'A backing service is unavailable, or more than UPLOADS_TOTAL uploads at once; retry after Retry-After.',
    ),
  },
});

export const uploadApkContract = contract({
  summary: 'Upload an APK of this package; answers 202 at once.',
  security: [{ apiKey: [] }],
  parameters: [{ name: 'package', in: 'path', required: true, schema: { type: 'string' } }],
  requestBody: multipartUpload(false),
  responses: {
    '202': {
      description: 'Queued.',
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/UploadAccepted' } },
      },
    },
    '400': errorResponse('VALIDATION_FAILED'),
    '401': errorResponse('UNAUTHENTICATED'),
    '408': errorResponse('UPLOAD_TOO_SLOW'),
    '413': errorResponse('APK_TOO_LARGE'),
    '429': errorResponse('UPLOADS_PER_ADDRESS_BUSY or AUTH_RATE_LIMITED (Retry-After)'),
    '503': errorResponse('UPLOADS_BUSY or DEPENDENCY_UNAVAILABLE (Retry-After)'),
  },
});

export const uploadStatusContract = contract({
  summary: "An upload's progress, verdict and APK record.",
  description:
    'Upload ids are 22 base64url characters (128 random bits); older uploads keep their 24 hex characters. A CI token sees only the uploads of its apps; any other upload is NOT_FOUND.',
  security: [{ apiKey: [] }],
  parameters: [
    {
      name: 'jobId',
      in: 'path',
      required: true,
      schema: { type: 'string', pattern: '^([A-Za-z0-9_-]{22}|[0-9a-f]{24})$' },
    },
  ],
  responses: {
    '200': {
      description: 'The upload.',
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/UploadStatus' } },
      },
    },
    '401': errorResponse('UNAUTHENTICATED'),
    '404': errorResponse('NOT_FOUND'),
  },
});
