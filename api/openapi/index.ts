/**
 * The OpenAPI 3.1 document of the HTTP interface, served at /api/v2/openapi.json, assembled from
 * one part per area. A test keeps it true: every route of the route table is documented here and
 * nothing else is.
 */
import { accountPaths, accountSchemas } from './accounts';
import { errorBody, errorResponse, text } from './common';
import { devicePaths, deviceSchemas } from './devices';
import { downloadLinkPaths, downloadLinkSchemas } from './download-links';
import { exceptionPaths, exceptionSchemas } from './exceptions';
import { downloadPaths, downloadSchemas } from './downloads';
import { operationPaths } from './operations';
import { uploadPaths, uploadSchemas } from './uploads';
import { webPaths, webSecuritySchemes } from './web';

export function openApiDocument(serverUrl: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'apkrelay',
      version: '2',
      description:
        'Distribution of signed Android APKs to enrolled devices. JSON endpoints live under ' +
        '/api/v2 and authenticate with `Authorization: Bearer <apiKey>`; errors are ' +
        '`{"error":{"code","message"}}` with a stable code. The PushLink-compatible endpoints ' +
        '(`/apps/...`, `/download`, `/exception`) keep their parameter names and plain-text replies.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN' },
        ...webSecuritySchemes,
      },
      schemas: {
        Error: errorBody,
        ...accountSchemas,
        ...uploadSchemas,
        ...downloadSchemas,
        ...downloadLinkSchemas,
        ...deviceSchemas,
        ...exceptionSchemas,
      },
    },
    paths: withAuthThrottle({
      ...accountPaths,
      ...uploadPaths,
      ...downloadPaths,
      ...downloadLinkPaths,
      ...devicePaths,
      ...exceptionPaths,
      ...operationPaths,
      ...webPaths,
    }),
  };
}

type Paths = Record<string, Record<string, { responses: Record<string, unknown> }>>;

/**
 * Every operation that refuses a wrong key (it documents a 401) also answers 429 once failures
 * from the client or with the key pass their limits (api/auth.ts), in the 401's dialect.
 */
function withAuthThrottle<T extends object>(paths: T): T {
  const out: Paths = {};
  for (const [path, operations] of Object.entries(paths as Paths)) {
    out[path] = {};
    for (const [method, operation] of Object.entries(operations)) {
      const refusal = operation.responses['401'] as { content?: object } | undefined;
      const responses = { ...operation.responses };
      if (refusal && !responses['429']) {
        const description =
          'AUTH_RATE_LIMITED: too many failed API-key authentications from this client or with this key; Retry-After says when to try again.';
        responses['429'] =
          refusal.content && 'text/plain' in refusal.content
            ? text(description)
            : errorResponse(description);
      }
      out[path][method] = { ...operation, responses };
    }
  }
  return out as T;
}
