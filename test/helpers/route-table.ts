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

/** Dependencies to build routes and host apps with, never to serve a request. */
export function inertDeps(overrides: Record<string, unknown> = {}): ApiDeps {
  const known: Record<string, unknown> = {
    ...overrides,
    publicUrls: { base: 'https://admin.test', web: 'https://web.test', push: 'https://push.test' },
    limits: { maxApkBytes: 1, uploadWaitTimeoutMs: 1, maxExceptionBytes: 1, heartbeatSeconds: 30 },
    trustProxy: false,
  };
  const deps = new Proxy(known, {
    get: (target, prop): unknown =>
      typeof prop === 'string' && prop in target ? target[prop] : inert(),
  });
  return deps as unknown as ApiDeps;
}

export function routeTable(): Route[] {
  return allRoutes(inertDeps());
}
