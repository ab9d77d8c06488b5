/**
 * `GET /api/v2/stream`: an installation's push stream (server-sent events through better-sse).
 * The push listener serves it without Express (see `createHostListener`): a stream is a request
 * that lives for days, and Express's per-request set-up (its request and response prototypes,
 * parsed query and URL, router closures) cost ~5 KB of heap and ~12 KB of RSS per idle stream:
 * measured with 3,000 idle plain-HTTP streams held by one process, the same better-sse handler
 * with and without Express in front (15.1 vs 10.3 KB of heap, 36 vs 23 KB of RSS per stream). The route table still lists it, and Express routes to this same
 * handler when the listener does not take the request itself (e.g. a HEAD request).
 *
 * Devices authenticate with their account's API key (Bearer, or `api_key`/`apiKey` in the query,
 * as PushLink clients send it) plus their device id; refusals are short texts.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createSession } from 'better-sse';
import proxyaddr from 'proxy-addr';
import { installationId, REGISTER_TEXT } from '../../shared/devices/installations';
import { apiKeyAccount, isAuthRateLimited } from '../auth';
import type { ApiDeps } from '../deps';
import { toAppError } from '../http-errors';
import { sendText } from '../text-reply';
import type { DeviceLookups } from './device-lookups';
import { installationCard } from './installation-cards';
import { LightHttp1Connection } from './light-connection';

export const STREAM_PATH = '/api/v2/stream';
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export type StreamHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Whether the push listener takes this request itself (see the module comment). */
export function isStreamRequest(req: IncomingMessage): boolean {
  const url = req.url ?? '';
  const end = url.indexOf('?');
  return req.method === 'GET' && (end === -1 ? url : url.slice(0, end)) === STREAM_PATH;
}

/** Express's `trust proxy` setting as a function of (address, hop): what TRUST_PROXY means. */
function trustFunction(trust: ApiDeps['trustProxy']): (addr: string, hop: number) => boolean {
  if (trust === undefined || trust === false) return () => false;
  if (typeof trust === 'number') return (_addr, hop) => hop < trust;
  return proxyaddr.compile([...trust]);
}

export function streamEndpoint(deps: ApiDeps, lookups: DeviceLookups): StreamHandler {
  const { heartbeatSeconds } = deps.limits;
  const auth = { ...deps, accounts: lookups.accounts };
  const trust = trustFunction(deps.trustProxy);

  async function open(req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const key = bearer ?? query.get('api_key') ?? query.get('apiKey') ?? undefined;
    const client = { ip: proxyaddr(req, trust), socket: req.socket };
    let account;
    try {
      account = await apiKeyAccount(auth, client, res, key);
    } catch (err) {
      if (!isAuthRateLimited(err)) throw err;
      return sendText(res, 429, 'Too many failed API key attempts; retry later.');
    }
    if (!account) return sendText(res, 401, REGISTER_TEXT.INVALID_KEY);
    const pkg = query.get('package') ?? '';
    const deviceId = query.get('deviceId') ?? '';
    const app = pkg ? await lookups.app(account.id, pkg) : null;
    if (!app) return sendText(res, 404, REGISTER_TEXT.INVALID_PACKAGE);
    const id = deviceId ? installationId(account.id, pkg, deviceId) : null;
    const card = id ? await installationCard(deps, app, id) : null;
    if (!id || !card) {
      return sendText(res, 404, 'Device not registered for this package: register first.');
    }
    const connection = new LightHttp1Connection(req, res, {
      'X-Accel-Buffering': 'no',
      'Cache-Control': 'no-cache, no-transform',
    });
    const session = await createSession(connection, {
      // Spread reconnections after an outage: 2-5 s.
      retry: 2_000 + Math.floor(Math.random() * 3_000),
      keepAlive: 15_000,
      trustClientEventId: true,
    });
    await deps.push.attach(
      app,
      id.toHexString(),
      card,
      session,
      {
        end: () => res.end(),
        destroy: () => res.destroy(),
        unreadBytes: () => res.writableLength + (res.socket?.writableLength ?? 0),
      },
      session.lastId,
      heartbeatSeconds,
    );
  }

  return async (req, res) => {
    const incoming = req.headers['x-request-id'];
    const requestId =
      typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    const logged = { requestId, host: 'push' };
    res.once('finish', () => {
      deps.log.info(
        {
          ...logged,
          method: req.method,
          path: STREAM_PATH,
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
    const url = req.url ?? '';
    const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
    try {
      await open(req, res, query);
    } catch (err) {
      const appError = toAppError(err);
      if (appError.status >= 500) {
        deps.log.error({ ...logged, err: (err as Error).message }, 'push stream failed');
      }
      if (res.headersSent) {
        // The stream has started: no error reply is possible. End it; the client reconnects.
        res.end();
        return;
      }
      if (appError.code === 'DEPENDENCY_UNAVAILABLE') res.setHeader('Retry-After', '5');
      const body = JSON.stringify({ error: { code: appError.code, message: appError.message } });
      res.statusCode = appError.status;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', String(Buffer.byteLength(body)));
      res.end(body);
    }
  };
}
