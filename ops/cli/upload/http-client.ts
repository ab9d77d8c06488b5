/**
 * One HTTP(S) exchange over node:http / node:https, with a streamed request body and a bounded
 * reply. TLS trust is explicit: an extra CA (PEM), or none at all with `insecure`.
 */
import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { FormBody } from './multipart-stream';

export interface TlsTrust {
  /** PEM certificates trusted in addition to (or, for self-signed servers, instead of) the system's. */
  readonly ca?: string;
  /** Skip certificate verification altogether. */
  readonly insecure?: boolean;
}

export interface HttpReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

export interface HttpExchange {
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  readonly headers?: OutgoingHttpHeaders;
  /** A small body whole, or a streamed form. */
  readonly body?: Buffer | FormBody;
  readonly tls?: TlsTrust;
  /** Fails the exchange when the socket stays idle this long (0: never). */
  readonly idleTimeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** Replies longer than this are cut: upload replies are one line of text or a small JSON. */
const MAX_REPLY_BYTES = 1024 * 1024;

function stopBody(body: HttpExchange['body']): void {
  if (body && !Buffer.isBuffer(body)) body.stop();
}

export function exchange(x: HttpExchange): Promise<HttpReply> {
  const secure = x.url.protocol === 'https:';
  if (!secure && x.url.protocol !== 'http:') {
    return Promise.reject(new Error(`unsupported URL scheme ${x.url.protocol}`));
  }
  const send = secure ? httpsRequest : httpRequest;
  const tls = secure ? { ca: x.tls?.ca, rejectUnauthorized: !(x.tls?.insecure ?? false) } : {};
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      stopBody(x.body);
      req.destroy();
      reject(err);
    };
    const req = send(
      x.url,
      { method: x.method, headers: x.headers, agent: false, signal: x.signal, ...tls },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size >= MAX_REPLY_BYTES) return;
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on('error', fail);
        res.on('end', () => {
          if (settled) return;
          settled = true;
          // The server may answer before the whole body is sent (413, 401): stop sending.
          stopBody(x.body);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8').slice(0, MAX_REPLY_BYTES),
          });
        });
      },
    );
    req.on('error', fail);
    if (x.idleTimeoutMs) {
      req.setTimeout(x.idleTimeoutMs, () =>
        fail(new Error(`no activity from the server for ${x.idleTimeoutMs} ms`)),
      );
    }
    if (Buffer.isBuffer(x.body)) {
      req.end(x.body);
    } else if (x.body) {
      x.body.writeTo(req).then(() => {
        if (!settled) req.end();
      }, fail);
    } else {
      req.end();
    }
  });
}

/** Seconds of a Retry-After header (delta-seconds or HTTP date), or undefined. */
export function retryAfterMs(headers: IncomingHttpHeaders, now: number): number | undefined {
  const value = headers['retry-after'];
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
