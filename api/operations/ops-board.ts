/**
 * The queue board: bull-board at `/ops/queues` on the admin host, every registered queue, for
 * accounts with the `operator` role only (`Authorization: Bearer <apiKey>` until the web
 * administration has sessions). It is a UI with its own sub-routes and static assets, so it is
 * mounted here rather than listed in the route table (and the OpenAPI document).
 *
 * Read-only but for retrying failed jobs, which the operator's audit log records. bull-board 9's `readOnlyMode` also refuses retries (it
 * forces `allowRetries` off), so the board is mounted writable and gated here instead: reads pass,
 * the two retry routes pass for failed jobs (bull-board alone would re-run completed ones too, so
 * the gate asks the job's state), every other method and route is 405. An operator
 * could otherwise add a job naming any account (issue 24), empty queues or rewrite job data.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Express, Request, RequestHandler, Response } from 'express';
import { AppError } from '../../shared/errors';
import { QUEUES } from '../../shared/queues';
import { audit } from '../audit-context';
import { currentAccount, operatorAuth } from '../auth';
import type { ApiDeps } from '../deps';

export const OPS_BOARD_PATH = '/ops/queues';

/** `PUT /api/queues/:queue/:jobId/retry`: bull-board retries completed jobs too, so it is gated. */
const RETRY_ONE = /^\/api\/queues\/([^/]+)\/([^/]+)\/retry\/?$/;
/** `PUT /api/queues/:queue/retry/failed`: bull-board retries the status the path names. */
const RETRY_FAILED = /^\/api\/queues\/([^/]+)\/retry\/failed\/?$/;

const readOnly = (): AppError =>
  new AppError('METHOD_NOT_ALLOWED', {
    message: 'the queue board is read-only but for retrying failed jobs',
  });

type BoardDeps = Pick<ApiDeps, 'producers' | 'db' | 'now' | 'log'>;

/**
 * A retry the board carried out (2xx) goes in the operator's own audit log (`queue.retried`,
 * resource `queue`: the queue's name; `details.job`: the job id, or `all failed`). Written once
 * the board has answered: a refused or failed retry records nothing.
 */
function auditRetry(deps: BoardDeps, req: Request, res: Response, queue: string, job: string) {
  res.on('finish', () => {
    if (res.statusCode >= 300) return;
    const change = {
      accountId: currentAccount(res).id,
      action: 'queue.retried' as const,
      resource: { kind: 'queue', id: queue },
      details: { job },
    };
    audit(deps, req, res, change).catch((err: Error) =>
      deps.log.error({ err: err.message, queue, job }, 'queue board retry not audited'),
    );
  });
}

/** Reads pass; retries pass for failed jobs only (and are audited); every other write is refused. */
export function readOnlyButRetry(deps: BoardDeps): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    if (req.method !== 'PUT') return next(readOnly());
    const all = RETRY_FAILED.exec(req.path);
    if (all) {
      auditRetry(deps, req, res, decodeURIComponent(all[1]!), 'all failed');
      return next();
    }
    const one = RETRY_ONE.exec(req.path);
    if (!one) return next(readOnly());
    const queue = QUEUES.find((q) => q.name === decodeURIComponent(one[1]!));
    if (!queue) return next(); // bull-board answers its own "queue not found"
    const jobId = decodeURIComponent(one[2]!);
    deps.producers
      .get(queue.name)
      .getJobState(jobId)
      .then((state) => {
        if (state !== 'failed') return next(readOnly());
        auditRetry(deps, req, res, queue.name, jobId);
        next();
      }, next);
  };
}

/** Shown under each queue's name: what "overdue" means there (workers/watchdog.ts). */
export function budgetNote(budgetMs: number): string {
  return `Job budget ${budgetMs / 1000} s: an attempt running longer fails (JOB_DEADLINE_EXCEEDED) and is retried; a job active longer is overdue, and its log says so.`;
}

export function mountOpsBoard(app: Express, deps: ApiDeps): void {
  const adapter = new ExpressAdapter();
  adapter.setBasePath(OPS_BOARD_PATH);
  createBullBoard({
    queues: QUEUES.map(
      (q) =>
        new BullMQAdapter(deps.producers.get(q.name), {
          readOnlyMode: false,
          allowRetries: true,
          description: budgetNote(q.budgetMs),
        }),
    ),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'apkrelay queues' } },
  });
  app.use(
    OPS_BOARD_PATH,
    ...operatorAuth(deps),
    readOnlyButRetry(deps),
    adapter.getRouter() as RequestHandler,
  );
}
