/**
 * Operations on the admin host: `GET /metrics` (Prometheus text; `Authorization: Bearer
 * <METRICS_TOKEN>`, off when no token is configured). The queue board (`/ops/queues`, bull-board)
 * is a UI with its own sub-routes and assets, mounted by ops-board.ts outside this table.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AppError } from '../../shared/errors';
import type { ApiDeps } from '../deps';
import { metricsContract } from './contracts';
import type { Route } from '../route-table';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time check of `Authorization: Bearer <token>` against the configured token. */
export function metricsTokenAuth(token: () => string | undefined): RequestHandler {
  let expected: Buffer | undefined;
  return (req, res, next) => {
    const configured = token();
    expected ??= configured === undefined ? undefined : digest(configured);
    if (!expected)
      throw new AppError('NOT_FOUND', { message: 'metrics are off (no METRICS_TOKEN)' });
    const given = /^Bearer\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '')?.[1];
    if (!given || !timingSafeEqual(digest(given), expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="apkrelay-metrics"');
      throw new AppError('UNAUTHENTICATED');
    }
    next();
  };
}

export function operationsRoutes(deps: ApiDeps): Route[] {
  return [
    {
      method: 'get',
      path: '/metrics',
      hosts: ['admin'],
      access: 'metricsToken',
      contract: metricsContract,
      handlers: [
        metricsTokenAuth(() => deps.metricsToken),
        async (_req, res) => {
          const body = await deps.metrics.render();
          res.status(200).setHeader('Content-Type', deps.metrics.contentType);
          res.setHeader('Cache-Control', 'no-store');
          res.end(body);
        },
      ],
    },
  ];
}
