/**
 * The access matrix enumerates the route table and the queue board's routes; this checks that they are all a
 * host serves. Each host's Express app is built as api/main.ts builds it (inert dependencies: no
 * request is served) and its router read back: every route and every sub-app it mounts must be
 * one the matrix asks on that host, and every one the matrix asks must be mounted there. So a
 * route mounted beside the table, or on a host the table does not name, cannot escape the matrix.
 */
import { Queue } from 'bullmq';
import { createHostApp } from '../../../api/app';
import { STREAM_PATH } from '../../../api/push/stream-endpoint';
import type { Host } from '../../../api/route-table';
import { inertDeps, routeTable } from '../../helpers/route-table';
import { boardRoutes } from './board';

const HOSTS: readonly Host[] = ['admin', 'web', 'push'];
/**
 * Where middleware every request passes through is mounted (request log, body parsers, the 404
 * and error handlers, the web administration's 404 page under /ui): these answer no route of
 * their own.
 */
const MIDDLEWARE_PATHS = new Set(['/', '/api/v2', '/ui']);

interface Layer {
  readonly route?: { readonly path: string; readonly methods: Record<string, boolean> };
  readonly rawPath?: unknown;
}

/** What the host's router holds: `METHOD path` for routes, `USE path` for mounted sub-apps. */
function mountedOn(host: Host): Set<string> {
  // The queue board wants BullMQ queues; prototypes suffice to mount it, and connect nowhere.
  const deps = inertDeps({
    producers: {
      get: (name: string): unknown =>
        Object.assign(Object.create(Queue.prototype) as object, { name }),
    },
  });
  const app = createHostApp(host, deps, routeTable()) as unknown as {
    router: { stack: Layer[] };
  };
  const out = new Set<string>();
  for (const layer of app.router.stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods)) {
        out.add(`${method.toUpperCase()} ${layer.route.path}`);
      }
    } else if (!MIDDLEWARE_PATHS.has(String(layer.rawPath))) {
      out.add(`USE ${String(layer.rawPath)}`);
    }
  }
  return out;
}

/** What the matrix asks on the host: the table's routes, and the sub-app the board's lie in. */
function enumeratedOn(host: Host, mounts: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const route of routeTable().filter((r) => r.hosts.includes(host))) {
    out.add(`${route.method.toUpperCase()} ${route.path}`);
  }
  const subApps = [...mounts].filter((m) => m.startsWith('USE ')).map((m) => m.slice(4));
  // The board is on the admin host only (matrix.tsv says so; the matrix test asks elsewhere too).
  for (const key of host === 'admin' ? boardRoutes() : []) {
    const routePath = key.slice(key.indexOf(' ') + 1);
    const under = subApps.find((p) => routePath === p || routePath.startsWith(`${p}/`));
    out.add(under ? `USE ${under}` : `${key} (not mounted)`);
  }
  return out;
}

test.each(HOSTS)('the %s host mounts exactly what the access matrix enumerates', (host) => {
  const mounted = mountedOn(host);
  const enumerated = enumeratedOn(host, mounted);
  expect({ host, notEnumerated: [...mounted].filter((m) => !enumerated.has(m)) }).toEqual({
    host,
    notEnumerated: [],
  });
  expect({ host, notMounted: [...enumerated].filter((m) => !mounted.has(m)) }).toEqual({
    host,
    notMounted: [],
  });
});

test('the stream the push listener serves before Express is the table’s, on push', () => {
  const stream = routeTable().find((r) => r.method === 'get' && r.path === STREAM_PATH);
  expect(stream?.hosts).toContain('push');
});

test('every route devices call is on the web and push hosts (spec section 8)', () => {
  const onBoth = (key: string) => {
    const route = routeTable().find((r) => `${r.method.toUpperCase()} ${r.path}` === key);
    return { key, hosts: [...(route?.hosts ?? [])].sort() };
  };
  const deviceRoutes = [
    'POST /exception',
    'POST /api/v2/exceptions',
    'POST /api/v2/installations',
    'POST /api/v2/heartbeat',
    'GET /api/v2/push-key',
    'GET /download',
    'GET /apps/api_list_json',
  ];
  expect(deviceRoutes.map(onBoth)).toEqual(
    deviceRoutes.map((key) => ({ key, hosts: ['admin', 'push', 'web'] })),
  );
  expect(onBoth(`GET ${STREAM_PATH}`)).toEqual({ key: `GET ${STREAM_PATH}`, hosts: ['push'] });
});
