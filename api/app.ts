/**
 * `createHostApp(host, deps)`: the Express app of one host (admin, web or push), built from the
 * route table. No listen(), no env reads; api/main.ts wires it to a socket.
 */
import type { RequestListener } from 'node:http';
import express, { type Express, type RequestHandler } from 'express';
import proxyaddr from 'proxy-addr';
import type { ApiDeps } from './deps';
import { jsonBody } from './body-parsers';
import { closeUnreadBodies } from './close-after-reply';
import { errorMiddleware, notFound } from './http-errors';
import { mountOpsBoard } from './operations/ops-board';
import { requestLog } from './request-log';
import { validateRequest } from './request-validation';
import type { Host, Route } from './route-table';
import { isStreamRequest, streamEndpoint } from './push/stream-endpoint';
import { allRoutes } from './routes';
import { webNotFound } from './web/not-found';

const JSON_LIMIT = 64 * 1024;

export function createHostApp(
  host: Host,
  deps: ApiDeps,
  routes: readonly Route[] = allRoutes(deps),
): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Which X-Forwarded-For hops to believe (req.ip): the throttles count per client address.
  app.set('trust proxy', deps.trustProxy === undefined ? false : deps.trustProxy);
  app.use(requestLog(deps.log, host));
  // Browsers reach the admin and web hosts; the push host speaks to devices only.
  const hsts = deps.hstsMaxAge ?? 0;
  if (hsts > 0 && host !== 'push') {
    app.use((_req, res, next) => {
      res.setHeader('Strict-Transport-Security', `max-age=${hsts}`);
      next();
    });
  }
  app.use(closeUnreadBodies);
  // Routes allowed larger JSON bodies parse them first; the default parser then skips them.
  for (const route of routes) {
    if (route.jsonLimit !== undefined && route.hosts.includes(host)) {
      app[route.method](route.path, jsonBody(route.jsonLimit));
    }
  }
  app.use('/api/v2', jsonBody(JSON_LIMIT));
  for (const route of routes) {
    if (route.hosts.includes(host)) app[route.method](route.path, ...checkedHandlers(route));
  }
  if (host === 'admin') mountOpsBoard(app, deps);
  app.use('/api/v2', notFound());
  if (host === 'admin') app.use('/ui', ...webNotFound(deps));
  app.use((_req, res) => {
    res.status(404).type('text/plain').send('Not found');
  });
  app.use(errorMiddleware(deps.log));
  return app;
}

/** A route's handlers, its contract's request check (if any) before the last one, its work. */
function checkedHandlers(route: Route): RequestHandler[] {
  const check = validateRequest(route.contract);
  if (!check) return [...route.handlers];
  return [...route.handlers.slice(0, -1), check, ...route.handlers.slice(-1)];
}

/**
 * The request listener of a host: its Express app, except that the push host takes its streams
 * (`GET /api/v2/stream`) itself, before Express (api/push/stream-endpoint.ts says why).
 */
export function createHostListener(host: Host, deps: ApiDeps): RequestListener {
  const app = createHostApp(host, deps);
  if (host !== 'push') return app;
  const stream = streamEndpoint(deps, deps.deviceLookups);
  // Express's own compiled TRUST_PROXY setting: the client address is what req.ip would say.
  const trust = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  return (req, res) => {
    if (isStreamRequest(req))
      void stream(req, res, { ip: proxyaddr(req, trust), socket: req.socket });
    else app(req, res);
  };
}
