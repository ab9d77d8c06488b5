/**
 * Request ids and one log line per request. Only the path is logged, never the query string:
 * legacy PushLink clients put the API key in it (`/download?api_key=…`).
 */
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../shared/log';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export function requestLog(log: Logger, host: string): RequestHandler {
  return (req, res, next) => {
    const incoming = req.header('x-request-id');
    const requestId = incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const reqLog = log.child({ requestId, host });
    res.locals.log = reqLog;
    res.locals.requestId = requestId;
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      reqLog.info(
        {
          method: req.method,
          path: req.path,
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
    next();
  };
}
