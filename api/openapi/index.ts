/**
 * The OpenAPI 3.1 document of the HTTP interface, served at /api/v2/openapi.json, derived from the
 * route table: one operation per route, from its contract (operation.ts), on the hosts it is
 * mounted on; the components (shared schemas, security schemes) come from the per-area files.
 */
import { accountSchemas } from '../accounts/contracts';
import { appSchemas } from '../apps/contracts';
import { errorBody, errorResponse, text } from './common';
import { deviceSchemas } from '../devices/contracts';
import { downloadLinkSchemas } from '../downloads/link-contracts';
import { exceptionSchemas } from '../exceptions/contracts';
import { insightSchemas } from '../insights/contracts';
import { keySchemas } from '../accounts/key-contracts';
import { downloadSchemas } from '../downloads/contracts';
import { rolloutSchemas } from '../rollouts/contracts';
import { uploadSchemas } from '../uploads/contracts';
import { webSecuritySchemes } from '../web/contracts';
import { webhookSchemas } from '../webhooks/contracts';
import { toOpenApiPath, type Host, type Route } from '../route-table';
import { operationOf } from './operation';

/** The public URL of each host (PUBLIC_BASE_URL is the admin host's). */
export type HostUrls = Readonly<Record<'base' | 'web' | 'push', string>>;

export function openApiDocument(urls: HostUrls, routes: readonly Route[]) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'apkrelay',
      version: '2',
      description:
        'Distribution of signed Android APKs to enrolled devices. JSON endpoints live under ' +
        '/api/v2 and authenticate with `Authorization: Bearer <apiKey>`; errors are ' +
        '`{"error":{"code","message"}}` with a stable code. Device keys (`dk_`) call only the device ' +
        'routes and CI tokens (`ct_`) only upload and make-current of their apps; elsewhere they ' +
        'get 403 KEY_SCOPE_REFUSED or KEY_APP_REFUSED. The PushLink-compatible endpoints ' +
        '(`/apps/...`, `/download`, `/exception`) keep their parameter names and plain-text replies.',
    },
    // The admin host; an operation served elsewhere lists its own servers.
    servers: [{ url: urls.base, description: HOST_DESCRIPTION.admin }],
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN' },
        ...webSecuritySchemes,
      },
      schemas: {
        Error: errorBody,
        ...accountSchemas,
        ...keySchemas,
        ...uploadSchemas,
        ...downloadSchemas,
        ...appSchemas,
        ...downloadLinkSchemas,
        ...deviceSchemas,
        ...insightSchemas,
        ...exceptionSchemas,
        ...rolloutSchemas,
        ...webhookSchemas,
      },
    },
    paths: withServers(urls, withAuthThrottle(operations(routes))),
  };
}

/** The operation of each route, marked with its hosts when not the admin host alone. */
function operations(routes: readonly Route[]): Paths {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const route of routes) {
    const path = toOpenApiPath(route.path);
    const operation = operationOf(route.path, route.contract) as unknown as Operation;
    const adminOnly = route.hosts.length === 1 && route.hosts[0] === 'admin';
    paths[path] = {
      ...paths[path],
      [route.method]: adminOnly ? operation : { ...operation, hosts: route.hosts },
    };
  }
  return paths;
}

interface Operation {
  readonly responses: Record<string, unknown>;
  /** The route's hosts when not the admin host alone (`operations`); absent: the admin host. */
  readonly hosts?: readonly Host[];
}
type Paths = Record<string, Record<string, Operation>>;

/** The same paths, each operation replaced by `change(operation)`. */
function eachOperation<T extends object>(paths: T, change: (operation: Operation) => object): T {
  const out: Record<string, Record<string, object>> = {};
  for (const [path, operations] of Object.entries(paths as Paths)) {
    out[path] = {};
    for (const [method, operation] of Object.entries(operations)) {
      out[path][method] = change(operation);
    }
  }
  return out as T;
}

/**
 * Every operation that refuses a wrong key (it documents a 401) also answers 429 once failures
 * from the client or with the key pass their limits (api/auth.ts), in the 401's dialect.
 */
function withAuthThrottle<T extends object>(paths: T): T {
  return eachOperation(paths, (operation) => {
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
    return { ...operation, responses };
  });
}

const HOST_DESCRIPTION: Record<Host, string> = {
  admin: 'admin host (PUBLIC_BASE_URL)',
  web: 'web host (PUBLIC_WEB_URL)',
  push: 'push host (PUBLIC_PUSH_URL)',
};

/**
 * An operation marked with the hosts it is served on gets them as its `servers`, and loses the
 * mark; the others stay on the document's server, the admin host.
 */
function withServers<T extends object>(urls: HostUrls, paths: T): T {
  const urlOf: Record<Host, string> = { admin: urls.base, web: urls.web, push: urls.push };
  return eachOperation(paths, ({ hosts, ...operation }) =>
    hosts
      ? {
          ...operation,
          servers: hosts.map((h) => ({ url: urlOf[h], description: HOST_DESCRIPTION[h] })),
        }
      : operation,
  );
}
