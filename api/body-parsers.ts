/**
 * Bounded parsers of small request bodies (JSON, urlencoded forms), in place of express.json and
 * express.urlencoded. Those read a refused body to its very end before answering (an endless
 * chunked body: no answer, ever) and decode invalid UTF-8 into replacement characters. Here a body
 * past its limit is answered 413 at once and its connection closed (api/close-after-reply.ts);
 * a body that is not UTF-8, or not JSON, is 400; too many form fields is 413.
 */
import { isUtf8 } from 'node:buffer';
import type { Request, RequestHandler } from 'express';
import { AppError } from '../shared/errors';
import { closeAfterReply } from './close-after-reply';
import { readBody } from './exceptions/read-body';

const MAX_FORM_FIELDS = 1000;

function charsetOf(req: Request): string | undefined {
  return /;\s*charset=("?)([^";]+)\1/i.exec(req.header('content-type') ?? '')?.[2]?.toLowerCase();
}

/** Reads the body for a parser: the checks both parsers share; null when the client left. */
async function utf8Body(req: Request, limit: number): Promise<string | null> {
  const charset = charsetOf(req);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    if (!req.complete) closeAfterReply(req);
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', { message: `unsupported charset "${charset}"` });
  }
  const encoding = (req.header('content-encoding') ?? 'identity').toLowerCase();
  if (encoding !== 'identity') {
    if (!req.complete) closeAfterReply(req);
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', {
      message: `unsupported content encoding "${encoding}"`,
    });
  }
  const read = await readBody(req, limit);
  if (!read.ok) {
    if (read.reason === 'aborted') return null;
    throw new AppError('PAYLOAD_TOO_LARGE', { message: `the body is larger than ${limit} bytes` });
  }
  if (!isUtf8(read.body))
    throw new AppError('VALIDATION_FAILED', { message: 'the body is not valid UTF-8' });
  return read.body.toString('utf8');
}

/** JSON bodies (`application/json`, `+json`), objects or arrays only (as express.json's strict). */
export function jsonBody(limit: number): RequestHandler {
  return async (req, _res, next) => {
    if (req.body !== undefined || !req.is(['application/json', '+json'])) return next();
    const text = await utf8Body(req, limit);
    if (text === null) return;
    if (text.trim() === '') {
      req.body = {};
      return next();
    }
    if (!/^[\s]*[[{]/.test(text))
      throw new AppError('VALIDATION_FAILED', { message: 'malformed JSON body' });
    try {
      req.body = JSON.parse(text) as unknown;
    } catch {
      throw new AppError('VALIDATION_FAILED', { message: 'malformed JSON body' });
    }
    next();
  };
}

/** `application/x-www-form-urlencoded` forms: a string per name (the first one given). */
export function formBody(limit: number): RequestHandler {
  return async (req, _res, next) => {
    if (req.body !== undefined || !req.is('application/x-www-form-urlencoded')) return next();
    const text = await utf8Body(req, limit);
    if (text === null) return;
    const params = new URLSearchParams(text);
    const body: Record<string, string> = Object.create(null) as Record<string, string>;
    let n = 0;
    for (const [name, value] of params) {
      if (++n > MAX_FORM_FIELDS) {
        throw new AppError('PAYLOAD_TOO_LARGE', {
          message: `the form has more than ${MAX_FORM_FIELDS} fields`,
        });
      }
      // URLSearchParams turns percent-encoded bytes that are not UTF-8 into U+FFFD.
      if (`${name}${value}`.includes('\ufffd')) {
        throw new AppError('VALIDATION_FAILED', { message: 'the form is not valid UTF-8' });
      }
      if (!(name in body)) body[name] = value;
    }
    req.body = body;
    next();
  };
}
