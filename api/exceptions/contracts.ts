/** Contracts of exception reports: PushLink's form, the JSON report and the owner's reads. */
import { contract } from '../route-contract';
import { errorResponse, text } from '../openapi/common';

const budget = {
  type: ['object', 'null'],
  description: 'The app’s budget in the rolling 24 h window; null when the app is not known.',
  required: ['limit', 'remaining', 'freesAt'],
  properties: {
    limit: { type: 'integer', description: 'Plan installations × 2.' },
    remaining: { type: 'integer' },
    freesAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When the next slot frees up; null while slots remain.',
    },
  },
};

const budgetHeaders = {
  'X-Exception-Limit': { schema: { type: 'integer' }, description: 'Reports per 24 h.' },
  'X-Exception-Remaining': { schema: { type: 'integer' } },
  'X-Exception-Frees-At': {
    schema: { type: 'string', format: 'date-time' },
    description: 'Only when none remain: when the next slot frees up.',
  },
  'Retry-After': { schema: { type: 'integer' }, description: 'Only when none remain (seconds).' },
};

const verdict = (description: string) => ({
  description,
  headers: budgetHeaders,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ExceptionVerdict' } } },
});

const metadata = {
  oneOf: [
    {
      type: 'array',
      items: {
        type: 'object',
        required: ['key', 'value'],
        properties: { key: { type: 'string' }, value: { type: 'string' } },
      },
    },
    { type: 'object', additionalProperties: { type: 'string' } },
  ],
};

export const exceptionSchemas = {
  ExceptionVerdict: {
    type: 'object',
    required: ['status', 'reason', 'message', 'budget'],
    properties: {
      status: { enum: ['REGISTERED', 'LOST'] },
      reason: {
        enum: [
          null,
          'EXCEPTION_API_KEY_INVALID',
          'EXCEPTION_PACKAGE_UNKNOWN',
          'EXCEPTION_APK_HASH_UNKNOWN',
          'EXCEPTION_INSTALLATION_DISABLED',
          'EXCEPTION_INSTALLATION_UNKNOWN',
          'EXCEPTION_LIMIT_REACHED',
        ],
      },
      message: { type: 'string', description: 'The PushLink text of the verdict.' },
      reportId: { type: 'string', description: 'REGISTERED only.' },
      resent: {
        type: 'boolean',
        description: 'REGISTERED only: an identical report was sent before.',
      },
      budget,
    },
  },
  ExceptionReportInput: {
    type: 'object',
    required: ['package', 'hash', 'deviceId', 'stack'],
    properties: {
      package: { type: 'string' },
      hash: { type: 'string', description: 'MD5 of the installed APK.' },
      deviceId: { type: 'string' },
      stack: { type: 'array', items: { type: 'string' } },
      log: { type: 'array', items: { type: 'string' }, description: 'The last 200 are kept.' },
      metadata,
      extra: metadata,
      screen: { type: 'string', description: 'Base64 JPEG (whitespace ignored).' },
      handled: { type: 'boolean', default: false },
    },
  },
  ExceptionGroup: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      fingerprint: { type: 'string' },
      exceptionClass: { type: 'string' },
      title: { type: 'string' },
      count: { type: 'integer' },
      handled: { type: 'integer' },
      unhandled: { type: 'integer' },
      firstSeen: { type: 'string', format: 'date-time' },
      lastSeen: { type: 'string', format: 'date-time' },
      versions: { type: 'array', items: { type: 'string' } },
      devicesAffected: { type: 'integer' },
      devices: { type: 'array', items: { type: 'string' }, description: 'At most 100.' },
      latestReportId: { type: 'string' },
    },
  },
  ExceptionReport: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      package: { type: 'string' },
      version: { type: 'string', description: '`versionName (versionCode)`.' },
      apkHash: { type: 'string' },
      deviceId: { type: 'string' },
      handled: { type: 'boolean' },
      label: { enum: ['handled', 'unhandled'] },
      stack: { type: 'array', items: { type: 'string' } },
      log: { type: 'array', items: { type: 'string' } },
      metadata,
      extra: metadata,
      fingerprint: { type: 'string' },
      groupId: { type: 'string' },
      receivedAt: { type: 'string', format: 'date-time' },
      screenshot: { type: ['string', 'null'], format: 'uri' },
    },
  },
};

export const legacyExceptionContract = contract({
  summary:
    'PushLink-compatible exception report. Always HTTP 200 with a plain-text verdict (503 when ' +
    'the service cannot take it; the device keeps it and retries; 429 after too many failed API ' +
    'keys). Budget in X-Exception-* headers. On the admin, web and push hosts.',
  requestBody: {
    required: true,
    content: {
      'application/x-www-form-urlencoded': {
        schema: {
          type: 'object',
          required: ['package', 'api_key', 'hash', 'deviceId', 'st[]'],
          properties: {
            package: { type: 'string' },
            api_key: { type: 'string' },
            hash: { type: 'string' },
            deviceId: { type: 'string' },
            'st[]': { type: 'array', items: { type: 'string' } },
            'lc[]': { type: 'array', items: { type: 'string' } },
            'userInfo0[]': {
              type: 'array',
              items: { type: 'string' },
              description: 'userInfo<i>[]: key, then value.',
            },
            screen: { type: 'string' },
            handled: { type: 'string', enum: ['true', 'false'] },
          },
        },
      },
    },
  },
  responses: {
    '200': {
      ...text('Exception sent. | Exception sent but rejected: …'),
      headers: budgetHeaders,
    },
    '429': text(
      'Exception not sent: too many failed API key attempts; retry later. (Retry-After; AUTH_RATE_LIMITED)',
    ),
    '503': text('Exception not sent: the service is unavailable; retry later.'),
  },
});

export const reportExceptionContract = contract({
  summary:
    'Report an exception; answers REGISTERED (202) or LOST with the reason’s status. On the admin, web and push hosts.',
  security: [{ apiKey: [] }],
  requestBody: {
    required: true,
    content: {
      'application/json': { schema: { $ref: '#/components/schemas/ExceptionReportInput' } },
    },
  },
  responses: {
    '202': verdict('REGISTERED: the report will be stored.'),
    '400': errorResponse('VALIDATION_FAILED'),
    '401': verdict('LOST: EXCEPTION_API_KEY_INVALID'),
    '403': verdict('LOST: EXCEPTION_INSTALLATION_DISABLED or EXCEPTION_INSTALLATION_UNKNOWN'),
    '404': verdict('LOST: EXCEPTION_PACKAGE_UNKNOWN'),
    '413': errorResponse('PAYLOAD_TOO_LARGE'),
    '422': verdict('LOST: EXCEPTION_APK_HASH_UNKNOWN'),
    '429': verdict('LOST: EXCEPTION_LIMIT_REACHED'),
    '503': errorResponse(
      'DEPENDENCY_UNAVAILABLE, or EXCEPTION_INSTALLATION_REGISTERING (Retry-After: 1)',
    ),
  },
});

/** An owner's read of the app's reports: 200 `ok`, or 401 or 404. */
const ownerRead = (summary: string, ok: object, parameters?: unknown[]) =>
  contract({
    summary,
    security: [{ apiKey: [] }],
    ...(parameters ? { parameters } : {}),
    responses: {
      '200': ok,
      '401': errorResponse('UNAUTHENTICATED'),
      '404': errorResponse('NOT_FOUND'),
    },
  });

export const listGroupsContract = ownerRead(
  'Exceptions of an app grouped into issues (stack fingerprint), newest first.',
  {
    description: 'The groups.',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          properties: {
            package: { type: 'string' },
            groups: { type: 'array', items: { $ref: '#/components/schemas/ExceptionGroup' } },
          },
        },
      },
    },
  },
  [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500 } }],
);

export const showReportContract = ownerRead(
  'One exception report, with a link to its screenshot.',
  {
    description: 'The report.',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ExceptionReport' } } },
  },
);

export const screenshotContract = ownerRead("An exception report's screenshot.", {
  description: 'The JPEG bytes.',
  content: { 'image/jpeg': { schema: { type: 'string', format: 'binary' } } },
});

const jsonOf = (description: string, schema: object) => ({
  description,
  content: { 'application/json': { schema } },
});

const crashRate = {
  type: 'object',
  properties: {
    apkId: { type: 'string' },
    versionCode: { type: 'integer' },
    versionName: { type: ['string', 'null'] },
    installations: {
      type: 'integer',
      description: 'Installations that report running this APK now and were seen in the window.',
    },
    installationHours: {
      type: 'number',
      description:
        'Sum over those installations of the time from the later of their registration and the window start to the earlier of their last sighting and the window end.',
    },
    unhandled: {
      type: 'integer',
      description: 'Unhandled reports sent from this APK in the window.',
    },
    perInstallationHour: { type: ['number', 'null'] },
    perInstallation: { type: ['number', 'null'] },
    crashFreeInstallations: {
      type: 'integer',
      description: 'Its installations with no unhandled report from this APK in the window.',
    },
    crashFreePercent: { type: ['number', 'null'] },
  },
};

export const exceptionStatsContract = ownerRead(
  'Crash rate per version and reports per hour over the last 24 h (the Exceptions tab’s numbers).',
  jsonOf(
    'The window, the plan’s 24-h limit, 24 hourly counts (oldest first) and one row per version.',
    {
      type: 'object',
      properties: {
        package: { type: 'string' },
        from: { type: 'string', format: 'date-time' },
        to: { type: 'string', format: 'date-time' },
        windowHours: { type: 'integer' },
        limit: { type: 'integer' },
        hourly: { type: 'array', items: { type: 'integer' } },
        versions: { type: 'array', items: crashRate },
      },
    },
  ),
);

const tallies = {
  type: 'array',
  items: {
    type: 'object',
    properties: { name: { type: 'string' }, reports: { type: 'integer' } },
  },
};

export const showGroupContract = ownerRead(
  'One issue (group) by fingerprint: its trend, versions, devices and one page of its occurrences.',
  jsonOf('The group.', {
    type: 'object',
    properties: {
      group: { $ref: '#/components/schemas/ExceptionGroup' },
      now: { type: 'string', format: 'date-time' },
      hourly: {
        type: 'array',
        items: { type: 'integer' },
        description: '24 counts; bucket i starts 24 − i hours before now.',
      },
      daily: {
        type: 'array',
        items: { type: 'integer' },
        description: '30 counts; bucket i starts 30 − i days before now.',
      },
      versions: { ...tallies, description: 'Reports per version, most first.' },
      devices: { ...tallies, description: 'Reports per device id, most first.' },
      occurrences: {
        type: 'object',
        properties: {
          page: { type: 'integer' },
          pageSize: { type: 'integer' },
          total: { type: 'integer' },
          reports: { type: 'array', items: { type: 'object' } },
        },
      },
    },
  }),
  [
    { name: 'fingerprint', in: 'path', required: true, schema: { type: 'string' } },
    {
      name: 'page',
      in: 'query',
      schema: { type: 'integer', minimum: 1 },
      description: 'Occurrences, newest first, 20 a page (skip/limit); out of range is clamped.',
    },
  ],
);
