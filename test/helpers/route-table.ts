/** The route table without a running server: deps are an inert proxy (handlers are never called). */
import type { ApiDeps } from '../../api/deps';
import type { Route } from '../../api/route-table';
import { allRoutes } from '../../api/routes';

/** Any property read or call on it yields another inert value; nothing runs. */
function inert(): unknown {
  const fn = (): unknown => inert();
  return new Proxy(fn, {
    get: (_target, prop): unknown => (prop === Symbol.toPrimitive ? () => '' : inert()),
    apply: (): unknown => inert(),
  });
}

export function routeTable(): Route[] {
  const known: Record<string, unknown> = {
    publicUrls: { base: 'https://admin.test', web: 'https://web.test', push: 'https://push.test' },
    limits: { maxApkBytes: 1, uploadWaitTimeoutMs: 1, maxExceptionBytes: 1, heartbeatSeconds: 30 },
  };
  const deps = new Proxy(known, {
    get: (target, prop): unknown =>
      typeof prop === 'string' && prop in target ? target[prop] : inert(),
  });
  return allRoutes(deps as unknown as ApiDeps);
}
