import type { ApiDeps } from '../deps';
import { openApiDocument } from '../openapi/index';
import { openApiContract } from '../openapi/accounts';
import type { Route } from '../route-table';
import { accountRoutes } from './accounts';
import { auditRoutes } from './audit';
import { appRoutes } from './apps';
import { deviceRoutes } from './devices';
import { downloadLinkRoutes } from './download-links';
import { downloadRoutes } from './downloads';
import { exceptionRoutes } from './exceptions';
import { healthRoutes } from './health';
import { insightRoutes } from './insights';
import { keyRoutes } from './keys';
import { operationsRoutes } from './operations';
import { rolloutRoutes } from './rollouts';
import { uploadRoutes } from './uploads';
import { webRoutes } from './web';
import { webhookRoutes } from './webhooks';

/** Every route of every host. */
export function allRoutes(deps: ApiDeps): Route[] {
  let document: ReturnType<typeof openApiDocument> | undefined = undefined;
  const routes: Route[] = [
    ...healthRoutes(deps),
    {
      method: 'get',
      path: '/api/v2/openapi.json',
      hosts: ['admin'],
      access: 'public',
      contract: openApiContract,
      handlers: [
        (_req, res) => {
          res.json(document);
        },
      ],
    },
    ...accountRoutes(deps),
    ...keyRoutes(deps),
    ...uploadRoutes(deps),
    ...downloadRoutes(deps),
    ...appRoutes(deps),
    ...rolloutRoutes(deps),
    ...downloadLinkRoutes(deps),
    ...deviceRoutes(deps),
    ...insightRoutes(deps),
    ...exceptionRoutes(deps),
    ...webhookRoutes(deps),
    ...auditRoutes(deps),
    ...operationsRoutes(deps),
    ...webRoutes(deps),
  ];
  // Built once, now: a route without an operation fails the start, not the first reader.
  document = openApiDocument(deps.publicUrls, routes);
  return routes;
}
