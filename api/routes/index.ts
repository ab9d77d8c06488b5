import type { ApiDeps } from '../deps';
import { openApiDocument } from '../openapi/index';
import { openApiContract } from '../accounts/contracts';
import type { Route } from '../route-table';
import { accountRoutes } from '../accounts/routes';
import { auditRoutes } from '../audit/routes';
import { appRoutes } from '../apps/routes';
import { deviceRoutes } from '../devices/routes';
import { downloadLinkRoutes } from '../downloads/link-routes';
import { downloadRoutes } from '../downloads/routes';
import { deltaRoutes } from '../downloads/delta';
import { exceptionRoutes } from '../exceptions/routes';
import { healthRoutes } from '../operations/health-routes';
import { insightRoutes } from '../insights/routes';
import { keyRoutes } from '../accounts/key-routes';
import { operationsRoutes } from '../operations/routes';
import { rolloutRoutes } from '../rollouts/routes';
import { uploadRoutes } from '../uploads/routes';
import { webRoutes } from '../web/routes';
import { webhookRoutes } from '../webhooks/routes';

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
    ...deltaRoutes(deps),
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
