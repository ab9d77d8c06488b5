/**
 * The queue board: bull-board at `/ops/queues` on the admin host, every registered queue, for
 * accounts with the `operator` role only (`Authorization: Bearer <apiKey>` until the web
 * administration has sessions). It is a UI with its own sub-routes and static assets, so it is
 * mounted here rather than listed in the route table (and the OpenAPI document).
 *
 * Read-only but for retrying failed jobs. bull-board 9's `readOnlyMode` also refuses retries (it
 * forces `allowRetries` off), so the board is mounted writable and gated here instead: reads pass,
 * the two retry routes pass for failed jobs, every other method and route is 405. An operator
 * could otherwise add a job naming any account (issue 24), empty queues or rewrite job data.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Express, RequestHandler } from 'express';
import { AppError } from '../shared/errors';
import { QUEUES } from '../shared/queues';
import { operatorAuth } from './auth';
import type { ApiDeps } from './deps';

export const OPS_BOARD_PATH = '/ops/queues';

/** `PUT /api/queues/:queue/:jobId/retry` and `PUT /api/queues/:queue/retry/failed`. */
const RETRY_ROUTES = [
  /^\/api\/queues\/[^/]+\/[^/]+\/retry\/?$/,
  /^\/api\/queues\/[^/]+\/retry\/failed\/?$/,
];

export const readOnlyButRetry: RequestHandler = (req, _res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD') return next();
  if (req.method === 'PUT' && RETRY_ROUTES.some((r) => r.test(req.path))) return next();
  throw new AppError(
    'METHOD_NOT_ALLOWED',
    'the queue board is read-only but for retrying failed jobs',
  );
};

export function mountOpsBoard(app: Express, deps: ApiDeps): void {
  const adapter = new ExpressAdapter();
  adapter.setBasePath(OPS_BOARD_PATH);
  createBullBoard({
    queues: QUEUES.map(
      (q) =>
        new BullMQAdapter(deps.producers.get(q.name), { readOnlyMode: false, allowRetries: true }),
    ),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'apkrelay queues' } },
  });
  app.use(
    OPS_BOARD_PATH,
    ...operatorAuth(deps),
    readOnlyButRetry,
    adapter.getRouter() as RequestHandler,
  );
}
