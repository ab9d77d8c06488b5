/**
 * The OpenAPI 3.1 document of the HTTP interface, served at /api/v2/openapi.json. A test keeps it
 * true: every route in the route table is documented here and nothing else is.
 */
const errorBody = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
  },
} as const;

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const plan = {
  type: 'object',
  required: ['installations'],
  properties: { installations: { type: 'integer', minimum: 0 } },
} as const;

const accountBody = {
  type: 'object',
  required: ['id', 'email', 'apiKey', 'plan'],
  properties: {
    id: { type: 'string' },
    email: { type: 'string', format: 'email' },
    apiKey: { type: 'string', description: 'Credential of the account; keep it secret.' },
    plan: { $ref: '#/components/schemas/Plan' },
  },
} as const;

const apkBody = {
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
} as const;

const uploadAccepted = {
  type: 'object',
  required: ['jobId', 'statusUrl'],
  properties: { jobId: { type: 'string' }, statusUrl: { type: 'string', format: 'uri' } },
} as const;

const uploadStatus = {
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
} as const;

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
        },
      },
    },
  },
});

const text = (description: string) => ({
  description,
  content: { 'text/plain': { schema: { type: 'string' } } },
});

export function openApiDocument(serverUrl: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'apkrelay',
      version: '2',
      description:
        'Distribution of signed Android APKs to enrolled devices. JSON endpoints live under ' +
        '/api/v2 and authenticate with `Authorization: Bearer <apiKey>`; errors are ' +
        '`{"error":{"code","message"}}` with a stable code.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: errorBody,
        Plan: plan,
        Account: accountBody,
        Apk: apkBody,
        UploadAccepted: uploadAccepted,
        UploadStatus: uploadStatus,
      },
    },
    paths: {
      '/healthz': {
        get: {
          summary: 'The process is alive.',
          responses: { '200': { description: 'Alive.' } },
        },
      },
      '/readyz': {
        get: {
          summary: 'Redis and MongoDB are reachable and every queue has a live worker.',
          responses: {
            '200': { description: 'Ready.' },
            '503': { description: 'Not ready; `checks` says which dependency is missing.' },
          },
        },
      },
      '/api/v2/openapi.json': {
        get: {
          summary: 'This document.',
          responses: { '200': { description: 'The OpenAPI document.' } },
        },
      },
      '/api/v2/accounts': {
        post: {
          summary: 'Sign up: creates an account on the free plan and returns its API key.',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['email', 'password'],
                  properties: {
                    email: { type: 'string', format: 'email' },
                    password: { type: 'string', minLength: 8, maxLength: 1024 },
                  },
                },
              },
            },
          },
          responses: {
            '201': {
              description: 'Created.',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Account' } } },
            },
            '400': errorResponse('VALIDATION_FAILED'),
            '409': errorResponse('ACCOUNT_EMAIL_TAKEN'),
            '503': errorResponse('DEPENDENCY_UNAVAILABLE'),
          },
        },
      },
      '/apps/api_upload': {
        post: {
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
            '401': text('deploy fails, Invalid Api Key'),
            '409': text(
              "deploy fails, this APK hash is the same of another APK uploaded | deploy fails, APK signer does not match this app's signer",
            ),
            '413': text('The APK exceeds MAX_APK_BYTES.'),
            '422': text('deploy fails, Invalid APK file'),
            '500': text('The upload could not be processed.'),
            '503': text('A backing service is unavailable; retry after Retry-After.'),
          },
        },
      },
      '/api/v2/apps/{package}/apks': {
        post: {
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
            '413': errorResponse('APK_TOO_LARGE'),
            '503': errorResponse('DEPENDENCY_UNAVAILABLE'),
          },
        },
      },
      '/api/v2/uploads/{jobId}': {
        get: {
          summary: "An upload's progress, verdict and APK record.",
          security: [{ apiKey: [] }],
          parameters: [{ name: 'jobId', in: 'path', required: true, schema: { type: 'string' } }],
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
        },
      },
      '/api/v2/account': {
        get: {
          summary: "The caller's account, API key included.",
          security: [{ apiKey: [] }],
          responses: {
            '200': {
              description: 'The account.',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Account' } } },
            },
            '401': errorResponse('UNAUTHENTICATED'),
          },
        },
      },
    },
  } as const;
}
