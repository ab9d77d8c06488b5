/**
 * The queue board: bull-board at `/ops/queues` on the admin host, every registered queue, for
 * accounts with the `operator` role only (`Authorization: Bearer <apiKey>` until the web
 * administration has sessions). It is a UI with its own sub-routes and static assets, so it is
 * mounted here rather than listed in the route table (and the OpenAPI document).
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Express, RequestHandler } from 'express';
import { QUEUES } from '../shared/queues';
import { operatorAuth } from './auth';
import type { ApiDeps } from './deps';

export const OPS_BOARD_PATH = '/ops/queues';

export function mountOpsBoard(app: Express, deps: ApiDeps): void {
  const adapter = new ExpressAdapter();
  adapter.setBasePath(OPS_BOARD_PATH);
  createBullBoard({
    queues: QUEUES.map((q) => new BullMQAdapter(deps.producers.get(q.name))),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'apkrelay queues' } },
  });
  app.use(OPS_BOARD_PATH, ...operatorAuth(deps), adapter.getRouter() as RequestHandler);
}
