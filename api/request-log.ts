/**
 * Request ids and one log line per request. Only the path is logged, never the query string:
 * legacy PushLink clients put the API key in it (`/download?api_key=…`); and the token of a
 * download link (`/d/<token>`, a bearer credential for the APK) and of an invitation link
 * (`/ui/join/<token>`) are redacted. `requestLogger(res)` is
 * the request's child logger (with its request id), made on first use: a pino child carries a
 * dozen bound level methods and its own bindings, and a push stream lives for days without
 * logging anything.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import type { Logger } from '../shared/log';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The path as logged: a download link's token replaced (`/d/[redacted]/qr.svg`), and an
 * invitation link's (`/ui/join/[redacted]`, docs/teams.md).
 */
export function loggedPath(path: string): string {
  return path // Express routes ignore case
    .replace(/^\/d\/[^/]+/i, '/d/[redacted]')
    .replace(/^\/ui\/join\/[^/]+/i, '/ui/join/[redacted]');
}

interface RequestLogLocals {
  requestId?: string;
  baseLog?: Logger;
  host?: string;
  log?: Logger;
}

/** The request's child logger (request id, host). */
export function requestLogger(res: Response, fallback: Logger): Logger {
  const locals = res.locals as RequestLogLocals;
  if (!locals.baseLog) return fallback;
  return (locals.log ??= locals.baseLog.child({ requestId: locals.requestId, host: locals.host }));
}

/**
 * Gives the request its id (the client's `X-Request-Id` when safe, else a new one, echoed back)
 * and logs one line when the response is finished. For Express requests and the push streams
 * the push listener serves itself.
 */
export function trackRequest(
  req: IncomingMessage,
  res: ServerResponse,
  logger: (requestId: string) => Logger,
  path: () => string,
): string {
  const incoming = req.headers['x-request-id'];
  const requestId =
    typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', requestId);
  const started = process.hrtime.bigint();
  res.once('finish', () => {
    logger(requestId).info(
      {
        method: req.method,
        path: loggedPath(path()),
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      },
      'request',
    );
  });
  return requestId;
}

export function requestLog(log: Logger, host: string): RequestHandler {
  return (req, res, next) => {
    const locals = res.locals as RequestLogLocals;
    locals.requestId = trackRequest(
      req,
      res,
      () => requestLogger(res, log),
      () => req.path,
    );
    locals.baseLog = log;
    locals.host = host;
    next();
  };
}
