/**
 * `GET /api/v2/stream`: an installation's push stream (server-sent events through better-sse).
 * The push listener serves it without Express (see `createHostListener`): a stream is a request
 * that lives for days, and Express's per-request set-up (its request and response prototypes,
 * parsed query and URL, router closures) stays in memory for as long as the stream: about a third
 * of an idle stream's heap (figures in docs/benchmarks.md). The route table still lists it, and
 * Express routes to this same handler when the listener does not take the request itself (e.g. a
 * HEAD request).
 *
 * Devices authenticate with their account's API key (Bearer, or `api_key`/`apiKey` in the query,
 * as PushLink clients send it) plus their device id; refusals are short texts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createSession } from 'better-sse';
import {
  installationCard,
  installationId,
  REGISTER_TEXT,
  type DeviceLookups,
} from '../../shared/devices/store';
import { apiKeyAccount, isAuthRateLimited, isKeyRefused, type ClientView } from '../auth';
import type { Logger } from '../../shared/log';
import type { ApiDeps } from '../deps';
import { replyWithError } from '../http-errors';
import { trackRequest } from '../request-log';
import { sendText } from '../text-reply';
import { LightHttp1Connection, parseQuery } from './light-connection';
import { sseChannel } from './channel';

export const STREAM_PATH = '/api/v2/stream';

/**
 * `client`: who is asking, for the failed-auth throttle: Express's request itself, or the client
 * address the push listener resolved with Express's own `trust proxy` function (TRUST_PROXY).
 */
export type StreamHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  client: ClientView,
) => Promise<void>;

/** Whether the push listener takes this request itself (see the module comment). */
export function isStreamRequest(req: IncomingMessage): boolean {
  const url = req.url ?? '';
  const end = url.indexOf('?');
  return req.method === 'GET' && (end === -1 ? url : url.slice(0, end)) === STREAM_PATH;
}

export function streamEndpoint(deps: ApiDeps, lookups: DeviceLookups): StreamHandler {
  const { heartbeatSeconds } = deps.limits;
  const auth = { ...deps, accounts: lookups.accounts };

  async function open(
    req: IncomingMessage,
    res: ServerResponse,
    client: ClientView,
    query: URLSearchParams,
  ) {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const key = bearer ?? query.get('api_key') ?? query.get('apiKey') ?? undefined;
    const pkg = query.get('package') ?? '';
    let account;
    try {
      account = await apiKeyAccount(auth, client, res, key, {
        need: { scope: 'device', package: pkg },
      });
    } catch (err) {
      if (isKeyRefused(err)) return sendText(res, 403, err.message);
      if (!isAuthRateLimited(err)) throw err;
      return sendText(res, 429, 'Too many failed API key attempts; retry later.');
    }
    if (!account) return sendText(res, 401, REGISTER_TEXT.INVALID_KEY);
    const deviceId = query.get('deviceId') ?? '';
    const app = pkg ? await lookups.app(account.id, pkg) : null;
    if (!app) return sendText(res, 404, REGISTER_TEXT.INVALID_PACKAGE);
    const id = deviceId ? installationId(account.id, pkg, deviceId) : null;
    const card = id ? await installationCard(deps, app, id) : null;
    if (!id || !card) {
      return sendText(res, 404, 'Device not registered for this package: register first.');
    }
    // The client left while it was being authenticated: its 'close' has fired already, so no
    // session would ever hear of it and its stream would stay registered.
    if (req.socket.destroyed || res.destroyed) return;
    const connection = new LightHttp1Connection(
      req,
      res,
      { 'X-Accel-Buffering': 'no', 'Cache-Control': 'no-cache, no-transform' },
      query,
    );
    const session = await createSession(connection, {
      // Spread reconnections after an outage: 2-5 s.
      retry: 2_000 + Math.floor(Math.random() * 3_000),
      keepAlive: 15_000,
      trustClientEventId: true,
    });
    const conn = {
      end: () => res.end(),
      destroy: () => res.destroy(),
      unreadBytes: () => res.writableLength + (res.socket?.writableLength ?? 0),
    };
    await deps.push.attach(
      app,
      id.toHexString(),
      deviceId,
      // apkrelay's client gives up by offers only: no abandoned-download rule (hub.ts).
      { ...card, lastDownloadedMd5: null },
      sseChannel(session, conn, heartbeatSeconds),
      session.lastId,
    );
  }

  return async (req, res, client) => {
    let reqLog: Logger | undefined;
    const logger = (requestId: string) => (reqLog ??= deps.log.child({ requestId, host: 'push' }));
    const requestId = trackRequest(req, res, logger, () => STREAM_PATH);
    const query = parseQuery(req.url ?? '');
    try {
      await open(req, res, client, query);
    } catch (err) {
      if (!res.headersSent) return replyWithError(res, err, logger(requestId));
      // The stream has started: no error reply is possible. End it; the client reconnects.
      logger(requestId).error({ err: (err as Error).message }, 'push stream failed');
      res.end();
    }
  };
}
