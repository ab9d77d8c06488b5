/**
 * The OpenAPI 3.1 document of the HTTP interface, served at /api/v2/openapi.json, assembled from
 * one part per area. A test keeps it true: every route of the route table is documented here and
 * nothing else is.
 */
import { accountPaths, accountSchemas } from './accounts';
import { errorBody } from './common';
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
    paths: {
      ...accountPaths,
      ...uploadPaths,
      ...downloadPaths,
      ...downloadLinkPaths,
      ...devicePaths,
      ...exceptionPaths,
      ...operationPaths,
      ...webPaths,
    },
  };
}
