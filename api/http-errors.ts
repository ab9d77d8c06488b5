/**
 * The one place where errors become HTTP replies. JSON API errors have the shape
 * `{"error":{"code","message"}}`; anything unexpected (an internal code of the catalogue included)
 * is logged and answered as INTERNAL without details. Backing-service outages become 503 with Retry-After, so clients know to retry.
 */
import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import {
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import { AppError, ERRORS, isInternalCode, type ErrorCode } from '../shared/errors';
import type { Logger } from '../shared/log';
import { RedisUnavailableError } from '../shared/storage/redis';
import { requestLogger } from './request-log';

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) {
    return isInternalCode(err.code) ? new AppError('INTERNAL', { cause: err }) : err;
  }
  const e = err as { type?: string; status?: number; name?: string; message?: string };
  // body-parser / raw-body errors
  if (e.type === 'entity.parse.failed')
    return new AppError('VALIDATION_FAILED', { message: 'malformed JSON body' });
  if (e.type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE');
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
    return new AppError('UNSUPPORTED_MEDIA_TYPE');
  }
  if (isDependencyOutage(err)) return new AppError('DEPENDENCY_UNAVAILABLE', { cause: err });
  return new AppError('INTERNAL', { cause: err });
}

/** Socket-level failures of a backing service, by their system error code. */
const OUTAGE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

/**
 * Redis (the fail-fast producer connection) and MongoDB connectivity failures, told by class or
 * code: RedisUnavailableError (shared/storage/redis.ts), the driver's network and selection
 * errors, socket error codes.
 */
export function isDependencyOutage(err: unknown): boolean {
  if (err instanceof AppError) return err.code === 'DEPENDENCY_UNAVAILABLE';
  if (err instanceof RedisUnavailableError) return true;
  if (
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoTopologyClosedError
  ) {
    return true;
  }
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && OUTAGE_CODES.has(code);
}

export function sendError(res: ServerResponse, err: AppError): void {
  if (err.code === 'DEPENDENCY_UNAVAILABLE') res.setHeader('Retry-After', '5');
  if (err.code === 'EXCEPTION_INSTALLATION_REGISTERING') res.setHeader('Retry-After', '1');
  const after = err.details?.retryAfterSeconds;
  if (typeof after === 'number') res.setHeader('Retry-After', String(after));
  const body = JSON.stringify({ error: { code: err.code, message: err.message } });
  res.statusCode = err.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', String(Buffer.byteLength(body)));
  res.end(body);
}

/** Logs an error (unexpected ones with their details) and answers it; for Express or not. */
export function replyWithError(res: ServerResponse, err: unknown, reqLog: Logger): void {
  const appError = toAppError(err);
  if (appError.status >= 500) {
    reqLog.error({ err: describe(err), code: appError.code }, 'request failed');
  } else {
    reqLog.debug({ code: appError.code }, 'request refused');
  }
  sendError(res, appError);
}

export function errorMiddleware(log: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    replyWithError(res, err, requestLogger(res, log));
  };
}

export function notFound(code: ErrorCode = 'NOT_FOUND'): RequestHandler {
  return (_req, res) => {
    res.status(ERRORS[code].status).json({ error: { code, message: ERRORS[code].message } });
  };
}

function describe(err: unknown): Record<string, unknown> {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? err.cause : undefined;
    return { name: err.name, message: err.message, stack: err.stack, cause: cause?.message };
  }
  return { value: String(err) };
}
