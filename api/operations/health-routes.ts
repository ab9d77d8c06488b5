import { livenessContract, readinessContract } from '../accounts/contracts';
import type { Route } from '../route-table';
import type { ApiDeps } from '../deps';

export function healthRoutes(deps: ApiDeps): Route[] {
  return [
    {
      method: 'get',
      path: '/healthz',
      hosts: ['admin'],
      access: 'public',
      contract: livenessContract,
      handlers: [
        (_req, res) => {
          res.json({ status: 'ok' });
        },
      ],
    },
    {
      method: 'get',
      path: '/readyz',
      hosts: ['admin'],
      access: 'public',
      contract: readinessContract,
      handlers: [
        async (_req, res) => {
          const [redis, mongo, workers] = await Promise.all([
            deps.readiness.redis().catch(() => false),
            deps.readiness.mongo().catch(() => false),
            deps.readiness.workers().catch(() => false),
          ]);
          const ready = redis && mongo && workers;
          if (!ready) res.setHeader('Retry-After', '5');
          res.status(ready ? 200 : 503).json({
            status: ready ? 'ready' : 'not-ready',
            checks: { redis, mongo, workers },
          });
        },
      ],
    },
  ];
}
